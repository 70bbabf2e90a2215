package store

import (
	"context"
	"errors"
	"fmt"
)

// errTooManyHolders: a drop has more tickets than the caller would keep in
// memory.
var errTooManyHolders = errors.New("more tickets than asked for")

// DropHolders reads the drop's tickets that hold a place (every status but
// released: what a claim's ticket condition refuses), by client, with a
// consistent Query of the drop's ticket partition, a page of up to 1,000 at
// a time; errTooManyHolders past most. With the drop read just before, it
// answers any claim of a sold-out drop from memory until the drop's
// Releases moves.
func (s *Store) DropHolders(ctx context.Context, dropID string, most int) (map[string]Ticket, error) {
	holders := map[string]Ticket{}
	cursor := ""
	for {
		p, err := pagedQuery(ctx, s, querySpec{key: onTable.pkEquals(ticketPartition(dropID)), consistent: true}, 1000, cursor, ticketRecord.ticket)
		if err != nil {
			return nil, fmt.Errorf("holders of drop %s: %w", dropID, err)
		}
		for _, t := range p.Items {
			if t.Status != TicketReleased {
				holders[t.Client] = t
			}
		}
		if len(holders) > most {
			return nil, fmt.Errorf("drop %s: %w", dropID, errTooManyHolders)
		}
		if p.Next == "" {
			return holders, nil
		}
		cursor = p.Next
	}
}

// NotHeldError is a refusal of a claim whose refuser knows the client
// holds no ticket of the drop, so nobody need read the ticket to be sure.
type NotHeldError struct{ Err error }

func (e *NotHeldError) Error() string { return e.Err.Error() }
func (e *NotHeldError) Unwrap() error { return e.Err }
