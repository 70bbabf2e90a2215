package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// An endpoint that has refused everything for three days is disabled:
// the deliverer notes on the endpoint the first refusal since its last
// 2xx (FailingSince, written only when that changes: the first refusal,
// the first 2xx after), and a refusal DisableWebhookAfter past it disables
// the endpoint and mails staff, in one transaction on condition the
// endpoint is failing since that same time and not disabled, so a 2xx in
// between keeps it and two refusals at once mail once. The key cache
// leaves a disabled endpoint out of new events; its owner or staff
// enable it again.

// DisableWebhookAfter is how long an endpoint refuses everything before
// it is disabled.
const DisableWebhookAfter = 72 * time.Hour

// MarkWebhookFailing notes the endpoint's first refusal since its last
// 2xx, at: one UpdateItem on condition it is not noted already (then, or
// when the endpoint is gone, nothing changes and no error).
func (s *Store) MarkWebhookFailing(ctx context.Context, owner, id string, at time.Time) error {
	err := s.updateIf(ctx, webhookOwnerKey(owner), webhookKey(id), expression.Set(expression.Name("FailingSince"), expression.Value(timestamp(at))),
		expression.AttributeExists(expression.Name(attrPK)).And(expression.AttributeNotExists(expression.Name("FailingSince"))))
	if err != nil && !isConditionFailed(err) {
		return fmt.Errorf("mark webhook %s failing: %w", id, err)
	}
	return nil
}

// MarkWebhookAnswering forgets the endpoint's refusals after a 2xx: one
// UpdateItem on condition it was failing (otherwise nothing, no error).
func (s *Store) MarkWebhookAnswering(ctx context.Context, owner, id string) error {
	err := s.updateIf(ctx, webhookOwnerKey(owner), webhookKey(id), expression.Remove(expression.Name("FailingSince")),
		expression.AttributeExists(expression.Name("FailingSince")))
	if err != nil && !isConditionFailed(err) {
		return fmt.Errorf("mark webhook %s answering: %w", id, err)
	}
	return nil
}

// DisableWebhook disables the endpoint at at with its last error, and
// puts the mail telling staff, in one transaction on condition the
// endpoint is still failing since failingSince and not disabled. It
// reports whether this call disabled it (false: a 2xx came in between,
// it was disabled already, or it is gone).
func (s *Store) DisableWebhook(ctx context.Context, hook WebhookEndpoint, at time.Time, lastError string, mail Mail) (bool, error) {
	upd := expression.Set(expression.Name("Disabled"), expression.Value(true)).
		Set(expression.Name("DisabledAt"), expression.Value(timestamp(at))).
		Set(expression.Name("LastError"), expression.Value(lastError))
	cond := expression.Name("FailingSince").Equal(expression.Value(timestamp(hook.FailingSince))).
		And(expression.Or(expression.AttributeNotExists(expression.Name("Disabled")), expression.Name("Disabled").Equal(expression.Value(false))))
	update, err := s.txUpdate(webhookOwnerKey(hook.Integration), webhookKey(hook.ID), upd, cond)
	if err != nil {
		return false, err
	}
	put, err := s.mailPut(mail)
	if err != nil {
		return false, err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{update, put}})
	if isTxConditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("disable webhook %s: %w", hook.ID, err)
	}
	return true, nil
}

// EnableWebhook enables one of owner's endpoints again, its refusals
// forgotten, and returns it; ErrNotFound when owner has none of that id.
// Deliveries failed meanwhile stay failed: resend them.
func (s *Store) EnableWebhook(ctx context.Context, owner, id string) (WebhookEndpoint, error) {
	expr, err := expression.NewBuilder().WithUpdate(expression.Remove(expression.Name("Disabled")).Remove(expression.Name("DisabledAt")).
		Remove(expression.Name("FailingSince")).Remove(expression.Name("LastError"))).
		WithCondition(expression.AttributeExists(expression.Name(attrPK))).Build()
	if err != nil {
		return WebhookEndpoint{}, err
	}
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(s.table), Key: itemKey(webhookOwnerKey(owner), webhookKey(id)),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(),
		ExpressionAttributeValues: expr.Values(), ReturnValues: types.ReturnValueAllNew})
	if isConditionFailed(err) {
		return WebhookEndpoint{}, fmt.Errorf("webhook %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return WebhookEndpoint{}, fmt.Errorf("enable webhook %s: %w", id, err)
	}
	var r webhookRecord
	if err := attributevalue.UnmarshalMap(out.Attributes, &r); err != nil {
		return WebhookEndpoint{}, err
	}
	return r.endpoint(), nil
}
