package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The events a change of a drop's status writes with it: drop.closed and
// drop.cancelled in the transaction that sets the status, ticket.voided
// with each ticket a cancellation voids; and cancelling a drop (staff's
// console and the API), which writes them.

// DropCancelMailID is the outbox id of the cancellation mail to one
// holder: one mail per drop and client, however often staff cancel.
func DropCancelMailID(dropID, client string) string { return MailID("dropcancel", dropID, client) }

// CancelDrop cancels a drop and voids its tickets, returning them (to
// tell their holders). A drop already cancelled is cancelled again: what
// a cancellation cut short is finished (the tickets left valid voided).
// A drop closed (by staff or the API) is ErrConflict. Voiding outlives a
// request's deadline on a big drop: give ctx time.
func (s *Store) CancelDrop(ctx context.Context, id string) ([]Ticket, error) {
	return s.CancelDropAnnounced(ctx, id, CancelAnnouncements{})
}

// CancelAnnouncements are the events a cancellation of an integration's
// drop writes: drop.cancelled with the status, ticket.voided with each
// ticket voided (keyed by drop and ticket: a cancellation run again
// writes none twice).
type CancelAnnouncements struct {
	Drop   *Announcement[Drop]
	Voided *Announcement[Ticket]
}

// CancelDropAnnounced is CancelDrop writing a's events.
func (s *Store) CancelDropAnnounced(ctx context.Context, id string, a CancelAnnouncements) ([]Ticket, error) {
	err := s.SetDropStatusAnnounced(ctx, id, DropCancelled, a.Drop)
	if errors.Is(err, ErrConflict) {
		d, rerr := s.DropConsistent(ctx, id)
		if rerr != nil {
			return nil, rerr
		}
		if d.Status != DropCancelled {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	tickets, err := s.voidTickets(ctx, id, a.Voided)
	if err != nil {
		return nil, fmt.Errorf("cancel drop %s: void tickets: %w", id, err)
	}
	return tickets, nil
}

// dropStatusEvent is the event of a drop set to status to.
func dropStatusEvent(to DropStatus) string {
	if to == DropCancelled {
		return EventDropCancelled
	}
	return EventDropClosed
}

// setDropStatusWithEvent sets d's status (to d.Status, by upd) on
// condition it is open, and puts the keyed event in the same transaction.
// done false: the event was written before (drop.closed at the deadline),
// and the status is left to a write without it.
func (s *Store) setDropStatusWithEvent(ctx context.Context, d Drop, upd expression.UpdateBuilder, a *Announcement[Drop]) (done bool, err error) {
	now := s.now().UTC().Truncate(time.Millisecond)
	change, err := s.txUpdate(dropKey(d.ID), sortKeyDropInfo, upd, expression.Name("Status").Equal(expression.Value(string(DropOpen))))
	if err != nil {
		return true, err
	}
	event, ok, err := txAnnounceOnce(s, a, dropStatusEvent(d.Status), d.ID, "", now, d)
	if err != nil || !ok {
		return err != nil, err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{change, event}})
	reasons := cancellationReasons(err)
	switch {
	case err == nil:
		return true, nil
	case len(reasons) == 2 && reasons[0] == reasonConditionFailed:
		return true, fmt.Errorf("drop %s is not open: %w", d.ID, ErrConflict)
	case len(reasons) == 2 && reasons[1] == reasonConditionFailed:
		return false, nil
	}
	return true, fmt.Errorf("set drop %s %s: %w", d.ID, d.Status, err)
}

// voidBatch is how many tickets one transaction voids with their events
// (two items each).
const voidBatch = 25

// voidAnnounced voids tickets of a drop not void yet, each with its
// ticket.voided event (keyed by drop and ticket), voidBatch to a
// transaction. A batch refused because one of its tickets was voided
// meanwhile (a cancellation run twice at once) is retried ticket by
// ticket, skipping those.
func (s *Store) voidAnnounced(ctx context.Context, dropID string, tickets []Ticket, a *Announcement[Ticket], product bool) error {
	for batch := range slices.Chunk(tickets, voidBatch) {
		items, err := s.voidItems(dropID, batch, a, product)
		if err != nil {
			return err
		}
		err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		if err == nil {
			continue
		}
		if !slices.Contains(cancellationReasons(err), reasonConditionFailed) {
			return fmt.Errorf("void tickets of %s: %w", dropID, err)
		}
		for _, t := range batch {
			items, err := s.voidItems(dropID, []Ticket{t}, a, product)
			if err != nil {
				return err
			}
			err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
			if err != nil && !slices.Contains(cancellationReasons(err), reasonConditionFailed) {
				return fmt.Errorf("void ticket of %s: %w", dropID, err)
			}
		}
	}
	return nil
}

// voidItems are the transaction items voiding tickets (on condition each
// is not void yet) with their events, and for a product drop each ticket's
// entry in the list of units to give back made due now (at most 3 items a
// ticket, 75 a batch).
func (s *Store) voidItems(dropID string, tickets []Ticket, a *Announcement[Ticket], product bool) ([]types.TransactWriteItem, error) {
	now := s.now().UTC().Truncate(time.Millisecond)
	// Not void yet, nor released meanwhile (the list lags).
	notVoid := expression.AttributeExists(expression.Name(attrPK)).And(expression.Name("Status").NotEqual(expression.Value(string(TicketVoid))),
		expression.Name("Status").NotEqual(expression.Value(string(TicketReleased))))
	var items []types.TransactWriteItem
	for _, t := range tickets {
		void, err := s.txUpdate(ticketPartition(dropID), ticketSortKey(t.Client),
			expression.Set(expression.Name("Status"), expression.Value(string(TicketVoid))), notVoid)
		if err != nil {
			return nil, err
		}
		items = append(items, void)
		if product {
			ret, err := s.txTicketReturnNow(dropID, t.Client, now)
			if err != nil {
				return nil, err
			}
			items = append(items, ret)
		}
		t.Status = TicketVoid
		event, ok, err := txAnnounceOnce(s, a, EventTicketVoided, dropID, t.Client, now, t)
		if err != nil {
			return nil, err
		}
		if ok {
			items = append(items, event)
		}
	}
	return items, nil
}
