package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Owners manage the staff. Every change of an account's role or state is
// one transaction: the customer item (on condition it is as read), its
// email item (which sign-in reads), a record of who changed what, and, when
// the number of active owners changes, the owner count under meta/owners on
// condition it stays above zero. Two owners demoting each other at once
// both write the count item, so DynamoDB runs their transactions one after
// the other and the second finds the count at one. The owner making the
// change is checked in the same transaction (still an active owner).

var (
	// ErrLastOwner refuses a change that would leave the shop without an
	// active owner.
	ErrLastOwner = errors.New("the shop's last owner")
	// ErrNotOwner refuses a change by someone who is not (or no longer) an
	// active owner.
	ErrNotOwner = errors.New("only an owner may change roles and accounts")
	// ErrNoChange is a change to what the account already is.
	ErrNoChange = errors.New("the account is already so")
)

// RoleAction is what a role change did.
type RoleAction string

const (
	ActionRole       RoleAction = "role"
	ActionDeactivate RoleAction = "deactivate"
	ActionReactivate RoleAction = "reactivate"
)

// RoleChange is one change an owner made to an account, kept under the
// account (c#id / role#<time>#id).
type RoleChange struct {
	At     time.Time
	Action RoleAction
	// From and To are the roles before and after (equal when the account
	// was deactivated or reactivated).
	From, To Role
	// ByID and ByName are the owner who made it; ByID is "" for the shop's
	// own set-up (the demo's first owner).
	ByID, ByName string
}

type roleChangeRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	At         string `dynamodbav:"At"`
	Action     string `dynamodbav:"Action"`
	From       string `dynamodbav:"From"`
	To         string `dynamodbav:"To"`
	ByID       string `dynamodbav:"ByID,omitempty"`
	ByName     string `dynamodbav:"ByName"`
}

// EndsSessions reports whether the change takes rights away (a demotion,
// a deactivation): the person's sessions end with it.
func (c RoleChange) EndsSessions() bool {
	return c.Action == ActionDeactivate || (c.Action == ActionRole && c.To.Demotes(c.From))
}

func (r roleChangeRecord) change() RoleChange {
	return RoleChange{At: parseTime(r.At), Action: RoleAction(r.Action), From: Role(r.From), To: Role(r.To), ByID: r.ByID, ByName: r.ByName}
}

// countsAsOwner says whether the account is one of the owners the count
// keeps: an owner who can sign in.
func countsAsOwner(c Customer) bool { return c.Role == RoleOwner && !c.Deactivated }

// ChangeRole gives the customer the role, by the owner by (as read for
// this request), and returns the customer and the change as made. Demoting the last active owner is ErrLastOwner; a by who
// is no active owner is ErrNotOwner; the role they have is ErrNoChange;
// an account changed since it was read is ErrConflict. 2 requests: a
// consistent GetItem of the account, then one TransactWriteItems. Ending
// a demoted person's sessions is the caller's next step (EndSessions).
func (s *Store) ChangeRole(ctx context.Context, customerID string, to Role, by Customer) (Customer, RoleChange, error) {
	if !ValidRole(to) {
		return Customer{}, RoleChange{}, fmt.Errorf("no such role: %q", to)
	}
	return s.changeAccount(ctx, customerID, &by, ActionRole, func(c *Customer) { c.Role = to })
}

// Deactivate stops the account from signing in, by the owner by; as
// ChangeRole (an active owner is the last one too).
func (s *Store) Deactivate(ctx context.Context, customerID string, by Customer) (Customer, RoleChange, error) {
	return s.changeAccount(ctx, customerID, &by, ActionDeactivate, func(c *Customer) { c.Deactivated = true })
}

// Reactivate lets a deactivated account sign in again, by the owner by.
func (s *Store) Reactivate(ctx context.Context, customerID string, by Customer) (Customer, RoleChange, error) {
	return s.changeAccount(ctx, customerID, &by, ActionReactivate, func(c *Customer) { c.Deactivated = false })
}

// MakeOwner makes the customer an owner on the shop's own authority (the
// demo's set-up), when no owner can: recorded as by the shop's set-up.
func (s *Store) MakeOwner(ctx context.Context, customerID string) (Customer, RoleChange, error) {
	return s.changeAccount(ctx, customerID, nil, ActionRole, func(c *Customer) { c.Role = RoleOwner })
}

// changeAccount applies change to the account as read now, by the owner by
// (nil: the shop's set-up), in one transaction (see the top of the file).
func (s *Store) changeAccount(ctx context.Context, customerID string, by *Customer, action RoleAction, change func(*Customer)) (Customer, RoleChange, error) {
	before, err := getItemConsistent(ctx, s, customerKey(customerID), customerKey(customerID), "customer "+customerID, customerRecord.customer)
	if err != nil {
		return Customer{}, RoleChange{}, err
	}
	if before.Deleted() || before.Closing {
		return before, RoleChange{}, fmt.Errorf("customer %s: %w", customerID, errAccountDeleted)
	}
	after := before
	change(&after)
	if after.Role == before.Role && after.Deactivated == before.Deactivated {
		return before, RoleChange{}, fmt.Errorf("customer %s: %w", customerID, ErrNoChange)
	}
	self := by != nil && by.ID == customerID
	switch {
	case by != nil && by.ID == "":
		return Customer{}, RoleChange{}, fmt.Errorf("a change with no owner: %w", ErrNotOwner)
	case self && !countsAsOwner(before):
		return Customer{}, RoleChange{}, fmt.Errorf("customer %s: %w", customerID, ErrNotOwner)
	}
	now := s.now()
	rec := roleChangeRecord{
		PK: customerKey(customerID), SK: roleChangeKey(now, NewID()), EntityType: entityRoleChange,
		At: timestamp(now), Action: string(action), From: string(before.Role), To: string(after.Role), ByName: "the shop's set-up",
	}
	if by != nil {
		rec.ByID, rec.ByName = by.ID, by.Name
	}
	items, err := s.accountChangeItems(before, after, rec)
	if err != nil {
		return Customer{}, RoleChange{}, err
	}
	countAt, actorAt := -1, -1
	if delta := b2i(countsAsOwner(after)) - b2i(countsAsOwner(before)); delta != 0 {
		count, err := s.countOwners(delta)
		if err != nil {
			return Customer{}, RoleChange{}, err
		}
		countAt = len(items)
		items = append(items, count)
	}
	if by != nil && !self {
		check, err := s.stillOwner(by.ID)
		if err != nil {
			return Customer{}, RoleChange{}, err
		}
		actorAt = len(items)
		items = append(items, check)
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if reasons := cancellationReasons(err); reasons != nil {
		failed := func(i int) bool { return i >= 0 && i < len(reasons) && reasons[i] == reasonConditionFailed }
		switch {
		case failed(actorAt):
			return Customer{}, RoleChange{}, fmt.Errorf("owner %s: %w", by.ID, ErrNotOwner)
		case failed(countAt):
			return Customer{}, RoleChange{}, fmt.Errorf("customer %s: %w", customerID, ErrLastOwner)
		case failed(0):
			return Customer{}, RoleChange{}, fmt.Errorf("customer %s changed meanwhile: %w", customerID, ErrConflict)
		}
	}
	if err != nil {
		return Customer{}, RoleChange{}, fmt.Errorf("change account %s: %w", customerID, err)
	}
	return after, rec.change(), nil
}

// wasActive is the condition that an account is not deactivated (an item
// from before deactivation existed has no such attribute).
func wasActive() expression.ConditionBuilder {
	deactivated := expression.Name("Deactivated")
	return expression.AttributeNotExists(deactivated).Or(deactivated.Equal(expression.Value(false)))
}

// accountChangeItems are the writes of an account's change from before to
// after: the customer on condition it is as read (its role, and whether
// it was deactivated), its email item alike, and the log's record.
func (s *Store) accountChangeItems(before, after Customer, rec roleChangeRecord) ([]types.TransactWriteItem, error) {
	deactivated := expression.Name("Deactivated")
	asRead := expression.Name("Role").Equal(expression.Value(string(before.Role)))
	if before.Deactivated {
		asRead = asRead.And(deactivated.Equal(expression.Value(true)))
	} else {
		asRead = asRead.And(wasActive())
	}
	set := expression.Set(expression.Name("Role"), expression.Value(string(after.Role))).
		Set(deactivated, expression.Value(after.Deactivated))
	customerUpdate, err := s.txUpdate(customerKey(before.ID), customerKey(before.ID), set, asRead)
	if err != nil {
		return nil, err
	}
	emailUpdate, err := s.txUpdate(emailKey(before.Email), emailKey(before.Email), set, expression.AttributeExists(expression.Name(attrPK)))
	if err != nil {
		return nil, err
	}
	item, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return nil, err
	}
	notExists, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))).Build()
	if err != nil {
		return nil, err
	}
	return []types.TransactWriteItem{customerUpdate, emailUpdate, {Put: &types.Put{
		TableName: aws.String(s.table), Item: item, ConditionExpression: notExists.Condition(), ExpressionAttributeNames: notExists.Names(),
	}}}, nil
}

// stillOwner checks that the owner making a change is still one now: an
// owner demoted a moment ago can no longer demote anyone.
func (s *Store) stillOwner(ownerID string) (types.TransactWriteItem, error) {
	cond, err := expression.NewBuilder().WithCondition(expression.Name("Role").Equal(expression.Value(string(RoleOwner))).And(wasActive())).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: aws.String(s.table), Key: itemKey(customerKey(ownerID), customerKey(ownerID)),
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values(),
	}}, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// countOwners is the transaction item that adds delta to the owner count;
// one that lowers it holds only while the count stays at one or more.
func (s *Store) countOwners(delta int) (types.TransactWriteItem, error) {
	upd := expression.Add(expression.Name("Count"), expression.Value(delta)).
		Set(expression.Name("EntityType"), expression.Value(entityMeta))
	b := expression.NewBuilder().WithUpdate(upd)
	if delta < 0 {
		b = b.WithCondition(expression.Name("Count").GreaterThanEqual(expression.Value(1 - delta)))
	}
	expr, err := b.Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(s.table), Key: itemKey(partitionMeta, sortKeyOwners), UpdateExpression: expr.Update(),
		ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}

type ownerCountRecord struct {
	Count int `dynamodbav:"Count"`
}

// owners is how many active owners the shop has (a consistent GetItem of
// meta/owners); 0 when none was ever made.
func (s *Store) owners(ctx context.Context) (int, error) {
	r, err := getItemConsistent(ctx, s, partitionMeta, sortKeyOwners, "owner count", asRecord[ownerCountRecord])
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	return r.Count, err
}

// roleChangesShown is how many of an account's changes its page shows.
const roleChangesShown = 20

// RoleChanges is the account's latest role changes, newest first: one
// Query of its partition (c#id, SK begins_with role#).
func (s *Store) RoleChanges(ctx context.Context, customerID string) ([]RoleChange, error) {
	page, err := pagedQuery(ctx, s, querySpec{key: onTable.pkAndSKPrefix(customerKey(customerID), prefixRoleChange), backward: true},
		roleChangesShown, "", roleChangeRecord.change)
	return page.Items, err
}
