package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

// Product drop tickets claimed before the list of units to give back
// (drop_ticket_return.go) have no entry in it: once per table, Migrate
// gives each one that may still owe its unit (not released, not returned)
// its entry, due at its RedeemBy plus the grace (a void one now), on
// condition it has none (a claim or void since wrote the right one). The
// job then decides each as it does any other: a ticket sold with its
// order just leaves the list.

// ticketReturnsMarker marks a table whose product drop tickets were all
// given their entry in the list of units to give back.
const ticketReturnsMarker = "ticket-returns-v1"

// migrateTicketReturns lists, once, the tickets of every product drop (a
// table just created has none).
func (s *Store) migrateTicketReturns(ctx context.Context, created bool) error {
	done, err := s.Marked(ctx, ticketReturnsMarker)
	if err != nil || done {
		return err
	}
	listed, cursor := 0, ""
	for !created {
		page, err := s.AllDrops(ctx, 100, cursor)
		if err != nil {
			return fmt.Errorf("list product drops for their tickets' units: %w", err)
		}
		for _, d := range page.Items {
			if d.ProductID == "" || len(d.SetAside) == 0 {
				continue
			}
			n, err := s.listDropTicketReturns(ctx, d)
			listed += n
			if err != nil {
				return err
			}
		}
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	if listed > 0 {
		MigrateLog("product drop tickets listed for their units' return to stock", "table", s.table, "tickets", listed)
	}
	if err := s.Mark(ctx, ticketReturnsMarker); err != nil && !errors.Is(err, ErrConflict) {
		return err
	}
	return nil
}

// listDropTicketReturns writes the entries of one product drop's tickets
// that have none and may owe their unit; it returns how many it wrote.
func (s *Store) listDropTicketReturns(ctx context.Context, d Drop) (int, error) {
	listed, cursor := 0, ""
	none := expression.AttributeNotExists(expression.Name(attrPK))
	for {
		page, err := s.DropTickets(ctx, d.ID, 100, cursor)
		if err != nil {
			return listed, fmt.Errorf("tickets of drop %s: %w", d.ID, err)
		}
		for _, t := range page.Items {
			if t.Status == TicketReleased || t.UnitReturned {
				continue
			}
			due := t.RedeemBy(d).Add(ticketReturnGrace)
			if t.Status == TicketVoid {
				due = s.now().UTC().Truncate(time.Millisecond)
			}
			err := s.putIf(ctx, newTicketReturn(d.ID, t.Client, due), none)
			if isConditionFailed(err) {
				continue
			}
			if err != nil {
				return listed, fmt.Errorf("list %s's ticket of %s: %w", t.Client, d.ID, err)
			}
			listed++
		}
		if page.Next == "" {
			return listed, nil
		}
		cursor = page.Next
	}
}
