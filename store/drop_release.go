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

// Releasing a ticket: its holder (an integration for its client, or staff
// for a customer) gives it back. In one transaction the ticket becomes
// released and the drop's count (its counter's, for a drop with counters)
// goes down by one, so the place can be claimed again, by anyone: a claim
// may overwrite a released ticket (Claim's condition).

// Refusals of a release other than the drop's own (ErrDropClosed,
// ErrDropCancelled) and ErrNotFound for a client without a ticket.
var (
	ErrTicketReleased       = errors.New("this ticket was released already")
	ErrTicketVoided         = errors.New("this ticket is void: its drop was cancelled")
	errTicketUsed           = errors.New("this ticket was used for an order")
	ErrTicketPendingPayment = errors.New("this ticket is held by an order awaiting its payment")
	ErrTicketInCart         = errors.New("this ticket is in its holder's cart: it must be taken out of the cart first")
	// errTicketExpired: a product drop's ticket that expired unused gave
	// its unit back to stock; its place is not given again.
	errTicketExpired = errors.New("this ticket expired unused: its unit went back to stock")
)

// ReleaseReason is the word the API answers a refused release with.
func ReleaseReason(err error) string {
	switch {
	case errors.Is(err, ErrTicketReleased):
		return "released"
	case errors.Is(err, ErrTicketVoided):
		return "void"
	case errors.Is(err, errTicketUsed):
		return "used"
	case errors.Is(err, ErrTicketPendingPayment):
		return "pending_payment"
	case errors.Is(err, ErrTicketInCart):
		return "in_cart"
	case errors.Is(err, errTicketExpired):
		return "expired"
	}
	return ClaimReason(err)
}

// ReleaseRequest is one release: a drop's ticket of one client.
type ReleaseRequest struct {
	DropID string
	Client string
	// Announce puts the ticket.released event in the release's
	// transaction, for the drop's integration's endpoints that want it.
	Announce *Announcement[Ticket]
}

// releaseAttempts bounds the transactions of a release that keeps meeting
// concurrent claims and releases of the same drop.
const releaseAttempts = 8

// ReleaseTicket gives a client's ticket back and returns it, released: a
// GetItem of the ticket and a Query of the drop (both consistent), then one
// TransactWriteItems: the ticket becomes released on condition it is still
// the valid ticket read; the count goes down by one on condition the drop
// is open (and the count above zero); a product drop's ticket on condition
// it is not in its holder's cart; the event, if asked for. Refusals:
// ErrNotFound, ErrTicketReleased, ErrTicketVoided, errTicketUsed,
// ErrTicketPendingPayment, ErrTicketInCart, errTicketExpired, ErrDropClosed,
// ErrDropCancelled.
func (s *Store) ReleaseTicket(ctx context.Context, req ReleaseRequest) (Ticket, error) {
	for attempt := 0; ; attempt++ {
		t, err := s.TicketConsistent(ctx, req.DropID, req.Client)
		if err != nil {
			return Ticket{}, err
		}
		if err := s.unreleasable(ctx, t); err != nil {
			return Ticket{}, err
		}
		d, err := s.DropConsistent(ctx, req.DropID)
		if err != nil {
			return Ticket{}, err
		}
		now := s.now().UTC().Truncate(time.Millisecond)
		if why := d.Why(now); why != nil && !errors.Is(why, ErrSoldOut) {
			return Ticket{}, why
		}
		released, err := s.releaseTx(ctx, req, d, t, now)
		if !errors.Is(err, errReleaseAgain) {
			return released, err
		}
		if attempt == releaseAttempts {
			return Ticket{}, fmt.Errorf("release %s of %s: %w", req.Client, req.DropID, ErrClaimContended)
		}
	}
}

// errReleaseAgain: the ticket or drop changed between the reads and the
// transaction, or the transaction met another: read again.
var errReleaseAgain = errors.New("release: read again")

// unreleasable is why a ticket read cannot be released, or nil when it is
// valid. A ticket redeemed by an order awaiting its payment says so.
func (s *Store) unreleasable(ctx context.Context, t Ticket) error {
	if t.UnitReturned && t.Status == TicketValid {
		return errTicketExpired
	}
	switch t.Status {
	case TicketValid:
		return nil
	case TicketReleased:
		return ErrTicketReleased
	case TicketVoid:
		return ErrTicketVoided
	case TicketRedeemed:
		if t.OrderID == "" {
			return errTicketUsed
		}
		o, err := s.OrderDetails(ctx, t.OrderID)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		if err == nil && o.Order.Status == OrderAwaitingPayment {
			return fmt.Errorf("order %s: %w", t.OrderID, ErrTicketPendingPayment)
		}
		return fmt.Errorf("order %s: %w", t.OrderID, errTicketUsed)
	}
	return fmt.Errorf("ticket status %q: %w", t.Status, errTicketUsed)
}

// releaseTx is the release's transaction; errReleaseAgain when a condition
// failed on a change since the reads, or it met another transaction.
func (s *Store) releaseTx(ctx context.Context, req ReleaseRequest, d Drop, t Ticket, now time.Time) (Ticket, error) {
	open := expression.Name("Status").Equal(expression.Value(string(DropOpen))).
		And(expression.Name("Closes").GreaterThan(expression.Value(timestamp(now))))
	dec := expression.Add(expression.Name("Claimed"), expression.Value(-1)).Add(expression.Name("Releases"), expression.Value(1))
	above := expression.Name("Claimed").GreaterThan(expression.Value(0))
	released := t
	released.Status = TicketReleased

	tkExpr, err := expression.NewBuilder().
		WithUpdate(expression.Set(expression.Name("Status"), expression.Value(string(TicketReleased))).
			Set(expression.Name("ReleasedAt"), expression.Value(timestamp(now)))).
		WithCondition(expression.Name("Status").Equal(expression.Value(string(TicketValid))).
			And(expression.Name("CreatedAt").Equal(expression.Value(timestamp(t.CreatedAt)))).
			And(expression.AttributeNotExists(expression.Name("UnitReturnedAt")))).Build()
	if err != nil {
		return Ticket{}, err
	}
	// The ticket first, the drop's item second: the reasons below read
	// them there.
	items := []types.TransactWriteItem{{Update: &types.Update{TableName: aws.String(s.table),
		Key: itemKey(ticketPartition(d.ID), ticketSortKey(t.Client)), UpdateExpression: tkExpr.Update(),
		ConditionExpression: tkExpr.Condition(), ExpressionAttributeNames: tkExpr.Names(), ExpressionAttributeValues: tkExpr.Values(),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}}}
	if len(d.Counters) > 0 {
		check, err := expression.NewBuilder().WithCondition(open).Build()
		if err != nil {
			return Ticket{}, err
		}
		upd, err := expression.NewBuilder().WithUpdate(dec).WithCondition(above).Build()
		if err != nil {
			return Ticket{}, err
		}
		items = append(items,
			types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String(s.table), Key: itemKey(dropKey(d.ID), sortKeyDropInfo),
				ConditionExpression: check.Condition(), ExpressionAttributeNames: check.Names(), ExpressionAttributeValues: check.Values(),
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
			types.TransactWriteItem{Update: &types.Update{TableName: aws.String(s.table), Key: itemKey(dropKey(d.ID), dropCounterKey(t.Counter)),
				UpdateExpression: upd.Update(), ConditionExpression: upd.Condition(), ExpressionAttributeNames: upd.Names(), ExpressionAttributeValues: upd.Values()}})
	} else {
		upd, err := expression.NewBuilder().WithUpdate(dec).WithCondition(open.And(above)).Build()
		if err != nil {
			return Ticket{}, err
		}
		items = append(items, types.TransactWriteItem{Update: &types.Update{TableName: aws.String(s.table), Key: itemKey(dropKey(d.ID), sortKeyDropInfo),
			UpdateExpression: upd.Update(), ConditionExpression: upd.Condition(), ExpressionAttributeNames: upd.Names(), ExpressionAttributeValues: upd.Values(),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}})
	}
	cart := -1
	if d.ProductID != "" && t.CustomerID != "" {
		// A ticket put in its holder's cart is on its way to an order.
		check, err := s.txCheck(cartKey(CustomerOwner(t.CustomerID)), sortKeyCart,
			expression.AttributeNotExists(expression.Name(cartLinePath(cartTicketKey(d.ID)))))
		if err != nil {
			return Ticket{}, err
		}
		cart = len(items)
		items = append(items, check)
	}
	if event, ok, err := txAnnounce(s, req.Announce, EventTicketReleased, now, released); err != nil {
		return Ticket{}, err
	} else if ok {
		items = append(items, event)
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if err == nil {
		return released, nil
	}
	return Ticket{}, releaseRefusal(err, cart, now)
}

// releaseRefusal says why the release's transaction was cancelled.
func releaseRefusal(err error, cart int, now time.Time) error {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return fmt.Errorf("release: %w", err)
	}
	r := tce.CancellationReasons
	failed := func(i int) bool { return i >= 0 && i < len(r) && aws.ToString(r[i].Code) == reasonConditionFailed }
	switch {
	case cart >= 0 && failed(cart):
		return ErrTicketInCart
	case failed(1) && r[1].Item != nil:
		var dr dropRecord
		if err := attributevalue.UnmarshalMap(r[1].Item, &dr); err != nil {
			return err
		}
		if why := dr.drop().Why(now); why != nil && !errors.Is(why, ErrSoldOut) {
			return why
		}
	}
	// The ticket changed (released, redeemed or claimed again meanwhile),
	// or another transaction held an item: read again and decide.
	return errReleaseAgain
}
