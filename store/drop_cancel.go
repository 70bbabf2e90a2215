package store

import (
	"context"
	"errors"
	"fmt"
)

// Cancelling a drop (staff's console and the API), the mail a
// cancellation sends to customers, and whether a listed drop's count can
// be trusted.

// MailDropCancelled tells a ticket holder that staff cancelled the drop
// and the ticket is void.
const MailDropCancelled MailKind = "drop_cancelled"

// DropCancelMailID is the outbox id of the cancellation mail to one
// holder: one mail per drop and client, however often staff cancel.
func DropCancelMailID(dropID, client string) string { return MailID("dropcancel", dropID, client) }

// ListedClaimed reports whether a drop read from a list (PublishedDrops,
// AllDrops) carries its claimed count: a drop with counters counts on its
// counter items, which lists do not read.
func (s *Store) ListedClaimed(d Drop) bool { return d.Counted() }

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

// TicketConsistent is Ticket with a strongly consistent read: a ticket
// just claimed is found.
func (s *Store) TicketConsistent(ctx context.Context, dropID, client string) (Ticket, error) {
	return getItemConsistent(ctx, s, ticketPartition(dropID), ticketSortKey(client), "ticket", ticketRecord.ticket)
}
