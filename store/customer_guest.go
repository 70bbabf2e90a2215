package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// NewGuest is what a guest checkout collects of the buyer: an email, the
// name on the address, and the language of the checkout.
type NewGuest struct {
	Email string
	Name  string
	Lang  string
}

// GuestCustomer is the passwordless customer of a guest checkout's email.
// The first guest checkout of an address writes the customer under the
// address's email item, as sign-up does (one transaction, both on
// condition they are new), with no password: orders are keyed by
// customer, so signing up later with that address sets a password on this
// same customer and its orders stay theirs. A later guest checkout of the
// address gets the same customer back. ErrEmailTaken when the address
// belongs to an account with a password (or a deactivated one): its owner
// signs in instead.
//
// A new address costs one transaction; an earlier guest's, the failed
// transaction and one strongly consistent read of the email item. Of many
// guest checkouts of one new address at once, one writes the customer and
// the others read it.
func (s *Store) GuestCustomer(ctx context.Context, g NewGuest) (Customer, error) {
	c := Customer{ID: NewID(), Email: NormalizeEmail(g.Email), Name: g.Name, Role: RoleCustomer, Lang: g.Lang,
		Guest: true, CreatedAt: s.now().UTC().Truncate(time.Millisecond)}
	err := s.createCustomerWithID(ctx, c, "", nil)
	if !errors.Is(err, ErrEmailTaken) {
		return c, err
	}
	r, err := getItemConsistent(ctx, s, emailKey(c.Email), emailKey(c.Email), "email", func(r emailRecord) emailRecord { return r })
	if errors.Is(err, ErrNotFound) {
		// Taken a moment ago and gone now (an account deleted meanwhile):
		// the buyer tries again.
		return Customer{}, fmt.Errorf("guest customer: %w", ErrConflict)
	}
	if err != nil {
		return Customer{}, fmt.Errorf("guest customer: %w", err)
	}
	if r.PasswordHash != "" || r.Deactivated {
		return Customer{}, ErrEmailTaken
	}
	return Customer{ID: r.CustomerID, Email: c.Email, Name: r.Name, Role: Role(r.Role), Guest: true}, nil
}
