package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// OrderReturn reads one return of an order (consistent: staff act on it).
func (s *Store) OrderReturn(ctx context.Context, orderID, returnID string) (Return, error) {
	return getItemConsistent(ctx, s, orderKey(orderID), returnKey(returnID), "return "+returnID, returnRecord.ret)
}

// ReturnsByStatus are the returns in a status, paged: the open ones oldest
// first (the next to work on), the closed ones newest first.
func (s *Store) ReturnsByStatus(ctx context.Context, status ReturnStatus, limit int, cursor string) (Page[Return], error) {
	q := querySpec{key: onGSI1.pkEquals(returnsInKey(status)), backward: !status.Open()}
	return pagedQuery(ctx, s, q, limit, cursor, returnRecord.ret)
}

// returnPut writes the return after a step, on condition it is still at the
// status and version its maker saw.
func (s *Store) returnPut(r Return, from ReturnStatus, version int) (types.TransactWriteItem, error) {
	item, err := attributevalue.MarshalMap(newReturnRecord(r))
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	cond, err := expression.NewBuilder().WithCondition(expression.And(
		expression.Name("Status").Equal(expression.Value(string(from))),
		expression.Name("Version").Equal(expression.Value(version)),
	)).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(s.table), Item: item, ConditionExpression: cond.Condition(),
		ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values(),
	}}, nil
}

// returnAt reads the return and checks it is at status from and version;
// the caller changes the copy and writes it with writeStep.
func (s *Store) returnAt(ctx context.Context, orderID, returnID string, from ReturnStatus, version int) (Return, error) {
	r, err := s.OrderReturn(ctx, orderID, returnID)
	if err != nil {
		return Return{}, err
	}
	if r.Version != version {
		return Return{}, fmt.Errorf("return %s is at version %d, not %d: %w", returnID, r.Version, version, ErrConflict)
	}
	if r.Status != from {
		return Return{}, fmt.Errorf("return %s is %s, not %s: %w", returnID, r.Status, from, ErrReturnStep)
	}
	return r, nil
}

func (s *Store) writeStep(ctx context.Context, r Return, from ReturnStatus, version int, extra ...types.TransactWriteItem) error {
	put, err := s.returnPut(r, from, version)
	if err != nil {
		return err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: append([]types.TransactWriteItem{put}, extra...)})
	if reasons := cancellationReasons(err); len(reasons) > 0 && reasons[0] == reasonConditionFailed {
		return fmt.Errorf("return %s changed meanwhile: %w", r.ID, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("return %s to %s: %w", r.ID, r.Status, err)
	}
	return nil
}

// ReceiveReturn marks a requested return received and puts mail (made by
// the caller from the received return) in the outbox, in one
// TransactWriteItems: the mail goes once, with the step.
func (s *Store) ReceiveReturn(ctx context.Context, orderID, returnID string, version int, by Customer, mail func(Return) Mail) (Return, error) {
	r, err := s.returnAt(ctx, orderID, returnID, ReturnRequested, version)
	if err != nil {
		return Return{}, err
	}
	r.Status, r.ReceivedAt, r.ReceivedBy, r.Version = ReturnReceived, s.now().UTC().Truncate(time.Millisecond), by.Name, version+1
	m := mail(r)
	m.ID = ReturnReceivedMailID(r.ID)
	put, err := s.mailPut(m)
	if err != nil {
		return Return{}, err
	}
	return r, s.writeStep(ctx, r, ReturnRequested, version, put)
}

// ReturnReceivedMailID is the outbox id of a return's "received" mail.
func ReturnReceivedMailID(returnID string) string { return MailID("return-received", returnID) }

// Inspection is staff's verdict on each line of a return, in its order.
type Inspection struct {
	Verdicts []ReturnVerdict
	Notes    []string
}

// InspectReturn records what staff found of each line of a received
// return: inspected (waiting for the refund) when a line is accepted,
// rejected (closed) when none is.
func (s *Store) InspectReturn(ctx context.Context, orderID, returnID string, version int, by Customer, in Inspection) (Return, error) {
	r, err := s.returnAt(ctx, orderID, returnID, ReturnReceived, version)
	if err != nil {
		return Return{}, err
	}
	if len(in.Verdicts) != len(r.Lines) || len(in.Notes) != len(r.Lines) {
		return Return{}, ErrBadReturn
	}
	r.Status = ReturnRejected
	for i := range r.Lines {
		note := strings.TrimSpace(in.Notes[i])
		if (in.Verdicts[i] != VerdictAccepted && in.Verdicts[i] != VerdictRejected) || len(note) > maxReturnNote {
			return Return{}, ErrBadReturn
		}
		r.Lines[i].Verdict, r.Lines[i].Note = in.Verdicts[i], note
		if in.Verdicts[i] == VerdictAccepted {
			r.Status = ReturnInspected
		}
	}
	r.InspectedAt, r.InspectedBy, r.Version = s.now().UTC().Truncate(time.Millisecond), by.Name, version+1
	return r, s.writeStep(ctx, r, ReturnReceived, version)
}

// ReturnRefund is what staff choose when refunding a return: the
// warehouse its accepted units go back into, and whether delivery is
// given back too (a return's refund does not give it back otherwise, even
// of every unit: see refund_shipping.go).
type ReturnRefund struct {
	Warehouse string
	Shipping  bool
}

// RefundReturn refunds the accepted lines of an inspected return (their
// value after the order's discount, gift card first, then card), with
// delivery if how says so, puts their units back in stock at
// how.Warehouse, and closes the return. The
// refund's key is the return's, so a step retried after the refund went
// through (the return's write failed, the form was sent twice, the card's
// part was left pending) finds the first refund and refunds nothing twice.
// Cost: RefundOrder's, then the return's read and one TransactWriteItems.
func (s *Store) RefundReturn(ctx context.Context, orderID, returnID string, version int, how ReturnRefund, by Customer, charger Refunder, mail func(Refund, Order) *Mail) (Return, error) {
	r, err := s.returnAt(ctx, orderID, returnID, ReturnInspected, version)
	if err != nil {
		return Return{}, err
	}
	if !ValidID(how.Warehouse) {
		return Return{}, fmt.Errorf("warehouse %q: %w", how.Warehouse, ErrNotFound)
	}
	rf, err := s.refundReturnedLines(ctx, r, how, by, charger, mail)
	if err != nil {
		return Return{}, err
	}
	r.Status, r.RefundedAt, r.RefundedBy, r.Version = ReturnRefunded, s.now().UTC().Truncate(time.Millisecond), by.Name, version+1
	r.Refunded, r.RefundedShipping, r.RestockedTo = rf.Amount, rf.Shipping, rf.RestockWarehouse
	return r, s.writeStep(ctx, r, ReturnInspected, version)
}

// ReturnRefundKey is the key of a return's refund among its order's refunds.
func ReturnRefundKey(returnID string) string { return "ret-" + returnID }

// refundReturnedLines is the refund of a return's accepted lines: the one
// call into the order refunds.
func (s *Store) refundReturnedLines(ctx context.Context, r Return, how ReturnRefund, by Customer, charger Refunder, mail func(Refund, Order) *Mail) (Refund, error) {
	return s.RefundOrder(ctx, returnRefundRequest(r, how, by, mail), charger)
}

// returnRefundRequest is the order refund a return's refund makes: its
// accepted lines, restocked where staff chose.
func returnRefundRequest(r Return, how ReturnRefund, by Customer, mail func(Refund, Order) *Mail) OrderRefundRequest {
	req := OrderRefundRequest{OrderID: r.OrderID, Key: ReturnRefundKey(r.ID), Reason: "Return: " + r.Reason,
		RestockWarehouse: how.Warehouse, Shipping: how.Shipping, fromReturn: true, By: by, Mail: mail}
	for _, l := range r.Lines {
		if l.Verdict == VerdictAccepted {
			req.Lines = append(req.Lines, RefundLine{ProductID: l.ProductID, DropID: l.DropID, Quantity: l.Quantity})
		}
	}
	return req
}
