package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A drop's tickets: claiming one (the transaction on the drop's
// conditions), reading and listing them, and voiding them when a drop is
// cancelled.

// Claim outcomes other than a ticket, each a refusal that says itself on
// the drop's page. ErrSoldOut is in errors.go.
var (
	ErrAlreadyClaimed error = Refuse(Conflict, "drops.refused.already", "already claimed: one ticket per customer")
	ErrDropNotOpen    error = Refuse(Invalid, "drops.refused.not_open", "this drop is not open yet")
	ErrDropClosed     error = Refuse(Invalid, "drops.refused.closed", "this drop is closed")
	ErrDropCancelled  error = Refuse(Invalid, "drops.claim.cancelled", "this drop was cancelled")
)

// ClaimReason is the word the API answers a refused claim with.
func ClaimReason(err error) string {
	switch {
	case errors.Is(err, ErrAlreadyClaimed):
		return "already_claimed"
	case errors.Is(err, ErrSoldOut):
		return "sold_out"
	case errors.Is(err, ErrDropNotOpen):
		return "not_open"
	case errors.Is(err, ErrDropClosed):
		return "closed"
	case errors.Is(err, ErrDropCancelled):
		return "cancelled"
	}
	return ""
}

// Ticket is one claim of a drop.
type Ticket struct {
	DropID     string
	DropTitle  string
	Client     string // "<customer id>" for the shop's customers, "<key name>:<client id>" for the API's
	CustomerID string // the shop's customer, if it is one
	CreatedAt  time.Time
	Status     TicketStatus
	Counter    int
	OrderID    string // the order that redeemed it
	// UnitReturned: a product drop's ticket that expired unused or was
	// voided gave its unit back to stock (drop_ticket_return.go).
	UnitReturned bool
}

// TicketStatus is whether a ticket still stands.
type TicketStatus string

const (
	TicketValid    TicketStatus = "valid"
	TicketVoid     TicketStatus = "void" // its drop was cancelled
	TicketRedeemed TicketStatus = "redeemed"
	TicketReleased TicketStatus = "released" // given back: its place can be claimed again
)

type ticketRecord struct {
	PK         string `dynamodbav:"PK"` // subject#<id>#ticket
	SK         string `dynamodbav:"SK"` // client#<client>
	EntityType string `dynamodbav:"EntityType"`
	DropID     string `dynamodbav:"DropID"`
	DropTitle  string `dynamodbav:"DropTitle"`
	Client     string `dynamodbav:"Client"`
	CustomerID string `dynamodbav:"CustomerID,omitempty"`
	CreatedAt  string `dynamodbav:"CreatedAt"`
	Status     string `dynamodbav:"Status"`
	Counter    int    `dynamodbav:"Counter"`
	OrderID    string `dynamodbav:"OrderID,omitempty"`
	// UnitReturnedAt: when its unit went back to stock (never redeemed now).
	UnitReturnedAt string `dynamodbav:"UnitReturnedAt,omitempty"`
	// GSI1: the drop's tickets in claim order. GSI2: a shop customer's
	// tickets, newest first (API clients get none).
	GSI1PK string `dynamodbav:"GSI1-PK"`
	GSI1SK string `dynamodbav:"GSI1-SK"`
	GSI2PK string `dynamodbav:"GSI2-PK,omitempty"`
	GSI2SK string `dynamodbav:"GSI2-SK,omitempty"`
}

func (r ticketRecord) ticket() Ticket {
	return Ticket{DropID: r.DropID, DropTitle: r.DropTitle, Client: r.Client, CustomerID: r.CustomerID,
		CreatedAt: parseTime(r.CreatedAt), Status: TicketStatus(r.Status), Counter: r.Counter, OrderID: r.OrderID,
		UnitReturned: r.UnitReturnedAt != ""}
}

// ClaimRequest is one claim: a drop, a client, and for the shop's
// customers the customer (whose tickets index then lists it).
type ClaimRequest struct {
	DropID     string
	Client     string
	CustomerID string
	DropTitle  string
	// Counter is the counter the claim counts on, for a drop with
	// counters (the gate picks one it believes has some left).
	Counter int
	// Announce puts the ticket.claimed event in the claim's transaction,
	// for the drop's integration's endpoints that want it.
	Announce *Announcement[Ticket]
	// RedeemWithin is a product drop's (Drop.TicketRedeemWithin): the
	// claim puts the ticket's entry in the list of units to give back
	// after it. Zero for other drops.
	RedeemWithin time.Duration
}

// Claim claims a ticket in one TransactWriteItems: the count goes up on
// condition that claimed < quantity, the drop is open and now is within
// [opens, closes); the ticket is put on condition it does not exist (or
// was released). The
// error says why a claim was refused: ErrAlreadyClaimed, ErrSoldOut (for a
// drop with counters: this counter is full, ErrCounterFull), ErrDropNotOpen,
// ErrDropClosed, ErrDropCancelled, or ErrNotFound for an unknown drop.
func (s *Store) Claim(ctx context.Context, req ClaimRequest, hasCounters bool) (Ticket, error) {
	now := s.now().UTC().Truncate(time.Millisecond)
	t := Ticket{DropID: req.DropID, DropTitle: req.DropTitle, Client: req.Client, CustomerID: req.CustomerID, CreatedAt: now, Status: TicketValid}
	window := expression.Name("Status").Equal(expression.Value(string(DropOpen))).
		And(expression.Name("Opens").LessThanEqual(expression.Value(timestamp(now)))).
		And(expression.Name("Closes").GreaterThan(expression.Value(timestamp(now))))
	inc := expression.Add(expression.Name("Claimed"), expression.Value(1))
	room := expression.Name("Claimed").LessThan(expression.Name("Quantity"))

	var items []types.TransactWriteItem
	if hasCounters {
		t.Counter = req.Counter
		check, err := expression.NewBuilder().WithCondition(window).Build()
		if err != nil {
			return Ticket{}, err
		}
		upd, err := expression.NewBuilder().WithUpdate(inc).WithCondition(room).Build()
		if err != nil {
			return Ticket{}, err
		}
		items = append(items,
			types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String(s.table), Key: itemKey(dropKey(req.DropID), sortKeyDropInfo),
				ConditionExpression: check.Condition(), ExpressionAttributeNames: check.Names(), ExpressionAttributeValues: check.Values(),
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
			types.TransactWriteItem{Update: &types.Update{TableName: aws.String(s.table), Key: itemKey(dropKey(req.DropID), dropCounterKey(req.Counter)),
				UpdateExpression: upd.Update(), ConditionExpression: upd.Condition(), ExpressionAttributeNames: upd.Names(), ExpressionAttributeValues: upd.Values()}})
	} else {
		upd, err := expression.NewBuilder().WithUpdate(inc).WithCondition(window.And(room)).Build()
		if err != nil {
			return Ticket{}, err
		}
		items = append(items, types.TransactWriteItem{Update: &types.Update{TableName: aws.String(s.table), Key: itemKey(dropKey(req.DropID), sortKeyDropInfo),
			UpdateExpression: upd.Update(), ConditionExpression: upd.Condition(), ExpressionAttributeNames: upd.Names(), ExpressionAttributeValues: upd.Values(),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}})
	}
	rec := ticketRecord{
		PK: ticketPartition(req.DropID), SK: ticketSortKey(req.Client), EntityType: entityTicket, DropID: req.DropID, DropTitle: req.DropTitle,
		Client: req.Client, CustomerID: req.CustomerID, CreatedAt: timestamp(now), Status: string(TicketValid), Counter: t.Counter,
		GSI1PK: dropClaimsKey(req.DropID), GSI1SK: createdKey(now, req.Client),
	}
	if req.CustomerID != "" {
		rec.GSI2PK, rec.GSI2SK = customerKey(req.CustomerID), ticketDatedKey(now)
	}
	item, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return Ticket{}, err
	}
	// A released ticket is no ticket: its client may claim again.
	notExists, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK)).
		Or(expression.Name("Status").Equal(expression.Value(string(TicketReleased))))).Build()
	if err != nil {
		return Ticket{}, err
	}
	// The event and a product drop's entry in the list of units to give
	// back go before the ticket, which stays last: the reasons read it there.
	if items, err = s.claimExtras(items, req, now, t); err != nil {
		return Ticket{}, err
	}
	// A client who holds a ticket gets it back from the failed condition
	// (ALL_OLD): a retried claim answers with it, with no read more.
	items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table), Item: item,
		ConditionExpression: notExists.Condition(), ExpressionAttributeNames: notExists.Names(), ExpressionAttributeValues: notExists.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}})

	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if err == nil {
		return t, nil
	}
	return Ticket{}, claimRefusal(err, req.DropID, hasCounters, len(items)-1, now)
}

// claimExtras adds to a claim's items the ticket.claimed event (if any
// endpoint wants it) and, for a product drop, the ticket's entry in the
// list of units to give back (drop_ticket_return.go).
func (s *Store) claimExtras(items []types.TransactWriteItem, req ClaimRequest, now time.Time, t Ticket) ([]types.TransactWriteItem, error) {
	if req.RedeemWithin > 0 {
		ret, err := s.txTicketReturn(req.DropID, req.Client, now, req.RedeemWithin)
		if err != nil {
			return nil, err
		}
		items = append(items, ret)
	}
	event, ok, err := txAnnounce(s, req.Announce, EventTicketClaimed, now, t)
	if err != nil {
		return nil, err
	}
	if ok {
		items = append(items, event)
	}
	return items, nil
}

// claimRefusal says why a claim's transaction was cancelled (last is the
// ticket's item, after the drop's and a counter's).
func claimRefusal(err error, dropID string, hasCounters bool, last int, now time.Time) error {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return fmt.Errorf("claim %s: %w", dropID, err)
	}
	r := tce.CancellationReasons
	failed := func(i int) bool { return i < len(r) && aws.ToString(r[i].Code) == reasonConditionFailed }
	if failed(last) && r[last].Item != nil {
		return claimHeld(r[last].Item, failed(0), r[0].Item, now)
	}
	switch {
	case failed(0):
		// The drop's item (window or, without counters, room) refused: its
		// old image says which.
		if r[0].Item == nil {
			return fmt.Errorf("drop %s: %w", dropID, ErrNotFound)
		}
		var dr dropRecord
		if err := attributevalue.UnmarshalMap(r[0].Item, &dr); err != nil {
			return err
		}
		why := dr.drop().Why(now)
		if why == nil { // a counter-less drop full at this instant
			why = ErrSoldOut
		}
		return why
	case hasCounters && failed(1):
		return ErrCounterFull
	case failed(last):
		return ErrAlreadyClaimed
	}
	// A conflict with a concurrent transaction on the same items: contention.
	return fmt.Errorf("claim %s: %w", dropID, ErrClaimContended)
}

// HeldError refuses the claim of a client who already holds a ticket of
// the drop, and carries that ticket: errors.Is(err, ErrAlreadyClaimed).
type HeldError struct{ Ticket Ticket }

func (e *HeldError) Error() string        { return ErrAlreadyClaimed.Error() }
func (e *HeldError) Is(target error) bool { return target == ErrAlreadyClaimed }

// Refusal is ErrAlreadyClaimed's: the drop's page says it as any claim
// already made.
func (e *HeldError) Refusal() *Refusal {
	r, _ := RefusalOf(ErrAlreadyClaimed)
	return r
}

// HeldTicket is the ticket a refused claim's client holds, when the
// refusal carries it.
func HeldTicket(err error) (Ticket, bool) {
	var h *HeldError
	if errors.As(err, &h) {
		return h.Ticket, true
	}
	return Ticket{}, false
}

// claimHeld is the refusal of a claim whose ticket condition failed: the
// ticket held (its old image), whatever else the drop says, unless the
// drop was cancelled (its tickets are void).
func claimHeld(ticketItem map[string]types.AttributeValue, dropFailed bool, dropItem map[string]types.AttributeValue, now time.Time) error {
	var tr ticketRecord
	if err := attributevalue.UnmarshalMap(ticketItem, &tr); err != nil {
		return err
	}
	if dropFailed && dropItem != nil {
		var dr dropRecord
		if err := attributevalue.UnmarshalMap(dropItem, &dr); err != nil {
			return err
		}
		if why := dr.drop().Why(now); errors.Is(why, ErrDropCancelled) {
			return why
		}
	}
	return &HeldError{Ticket: tr.ticket()}
}

// Errors of a claim that the gate retries; the drop's page says a
// contended one that is still so after the retries as busy.
var (
	ErrCounterFull          = fmt.Errorf("this share of the drop is gone: %w", ErrSoldOut)
	ErrClaimContended error = Refuse(Conflict, "drops.refused.busy", "the drop is busy; try again")
)

// Ticket reads one client's ticket of a drop.
func (s *Store) Ticket(ctx context.Context, dropID, client string) (Ticket, error) {
	return getItem(ctx, s, ticketPartition(dropID), ticketSortKey(client), "ticket", ticketRecord.ticket)
}

// TicketConsistent is Ticket with a strongly consistent read: a ticket
// just claimed is found.
func (s *Store) TicketConsistent(ctx context.Context, dropID, client string) (Ticket, error) {
	return getItemConsistent(ctx, s, ticketPartition(dropID), ticketSortKey(client), "ticket", ticketRecord.ticket)
}

// CustomerTickets lists a customer's tickets, newest first (GSI2:
// GSI2-PK=c#id, GSI2-SK begins_with t#).
func (s *Store) CustomerTickets(ctx context.Context, customerID string, limit int, cursor string) (Page[Ticket], error) {
	q := querySpec{key: onGSI2.pkAndSKPrefix(customerKey(customerID), prefixTicketDated), backward: true}
	return pagedQuery(ctx, s, q, limit, cursor, ticketRecord.ticket)
}

// DropTickets lists a drop's tickets in claim order (GSI1:
// GSI1-PK=subject#id#claims).
func (s *Store) DropTickets(ctx context.Context, dropID string, limit int, cursor string) (Page[Ticket], error) {
	return pagedQuery(ctx, s, querySpec{key: onGSI1.pkEquals(dropClaimsKey(dropID))}, limit, cursor, ticketRecord.ticket)
}

// voidTickets marks a cancelled drop's tickets void, page by page, and
// returns them (to tell their holders); released tickets stay as they are.
// Each ticket not void yet is voided with its ticket.voided event for a's
// endpoints (if a has any); a product drop's ticket with its entry in the
// list of units to give back made due now.
func (s *Store) voidTickets(ctx context.Context, dropID string, a *Announcement[Ticket]) ([]Ticket, error) {
	d, err := s.Drop(ctx, dropID)
	if err != nil {
		return nil, err
	}
	product := d.ProductID != ""
	var out []Ticket
	cursor := ""
	for {
		page, err := s.DropTickets(ctx, dropID, 100, cursor)
		if err != nil {
			return out, err
		}
		// A ticket given back before holds nothing to void.
		live := slices.DeleteFunc(slices.Clone(page.Items), func(t Ticket) bool { return t.Status == TicketReleased })
		if a != nil && len(a.Endpoints) > 0 {
			err = s.voidAnnounced(ctx, dropID, slices.DeleteFunc(slices.Clone(live), func(t Ticket) bool { return t.Status == TicketVoid }), a, product)
		} else {
			live, err = s.voidEach(ctx, dropID, live, product)
		}
		if err != nil {
			return out, err
		}
		for _, t := range live {
			t.Status = TicketVoid
			out = append(out, t)
		}
		if page.Next == "" {
			return out, nil
		}
		cursor = page.Next
	}
}

// voidEach voids tickets one UpdateItem each, on condition each was not
// released meanwhile (the list lags): the tickets it voided. A product
// drop's ticket then has its entry in the list of units to give back made
// due now (one more write: a stop between the two leaves the entry its
// claim made, due at RedeemBy, when the job sees the ticket void).
func (s *Store) voidEach(ctx context.Context, dropID string, tickets []Ticket, product bool) ([]Ticket, error) {
	upd, err := expression.NewBuilder().WithUpdate(expression.Set(expression.Name("Status"), expression.Value(string(TicketVoid)))).
		WithCondition(expression.Name("Status").NotEqual(expression.Value(string(TicketReleased)))).Build()
	if err != nil {
		return nil, err
	}
	var voided []Ticket
	for _, t := range tickets {
		_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(s.table), Key: itemKey(ticketPartition(dropID), ticketSortKey(t.Client)),
			UpdateExpression: upd.Update(), ConditionExpression: upd.Condition(),
			ExpressionAttributeNames: upd.Names(), ExpressionAttributeValues: upd.Values(),
		})
		if isConditionFailed(err) {
			continue
		}
		if err != nil {
			return voided, fmt.Errorf("void ticket: %w", err)
		}
		if product {
			if err := s.ticketReturnNow(ctx, dropID, t.Client); err != nil {
				return voided, err
			}
		}
		voided = append(voided, t)
	}
	return voided, nil
}
