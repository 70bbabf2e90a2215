package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"shop/store"
	"shop/store/payment"
)

// HoldGrace is how long after its deadline a held order waits for its
// provider's own expiry event before the reconcile step reads its page.
const HoldGrace = 2 * time.Minute

// HoldSettler settles the held orders whose webhook was missed (the
// reconcile job's part; *PaymentSettler).
type HoldSettler interface {
	SettleDue(ctx context.Context) (settled int, err error)
}

// SettleDue settles the held orders still awaiting payment HoldGrace
// past their deadline, as their webhook would have: each one's page is
// read by its saved id. At most 100 a run; the next run takes the rest.
func (s *PaymentSettler) SettleDue(ctx context.Context) (int, error) {
	due, err := s.Store.HeldOrdersDue(ctx, s.Store.Now(), HoldGrace, 100)
	if err != nil {
		return 0, err
	}
	settled := 0
	var errs []error
	for _, o := range due {
		if ctx.Err() != nil {
			break
		}
		if err := s.Settle(ctx, o); err != nil {
			errs = append(errs, fmt.Errorf("order %s: %w", o.ID, err))
			continue
		}
		settled++
	}
	return settled, errors.Join(errs...)
}

// Settle settles one held order past its deadline by its page: paid, it
// is placed; still open, the page is expired first (a page paid meanwhile
// is placed instead); expired, the hold is released. An order whose page
// was never attached (the provider failed, or the process died before)
// is released: a payment that still comes for it is refunded.
func (s *PaymentSettler) Settle(ctx context.Context, o store.Order) error {
	if o.Hold == nil || o.Status != store.OrderAwaitingPayment {
		return nil
	}
	if o.Hold.SessionID == "" {
		return s.release(ctx, s.Payments.Active(), o.ID, store.ReleaseDeadline, "")
	}
	pr, err := s.Payments.For(o.Hold.Provider)
	if err != nil {
		return err
	}
	cs, err := pr.RetrieveCheckout(ctx, o.Hold.SessionID)
	if err != nil {
		return fmt.Errorf("read its page %s: %w", o.Hold.SessionID, err)
	}
	switch cs.Status {
	case payment.SessionComplete:
		_, err := s.place(ctx, pr, o.ID, cs, "")
		return err
	case payment.SessionExpired:
		return s.release(ctx, pr, o.ID, store.ReleaseExpired, "")
	}
	cs, err = pr.ExpireCheckout(ctx, cs.ID)
	if errors.Is(err, payment.ErrCheckoutComplete) {
		_, err := s.place(ctx, pr, o.ID, cs, "")
		return err
	}
	if err != nil {
		return fmt.Errorf("expire its page %s: %w", o.Hold.SessionID, err)
	}
	return s.release(ctx, pr, o.ID, store.ReleaseDeadline, "")
}

// Cancel is the customer cancelling their order awaiting payment: its
// page is expired at the provider, then everything it held is given
// back and its lines return to the cart. A page paid meanwhile places
// the order instead: ErrOrderPaid with the order placed.
func (s *PaymentSettler) Cancel(ctx context.Context, o store.Order) (store.Order, error) {
	if o.Hold == nil {
		return o, store.ErrNotHeld
	}
	if o.Hold.SessionID != "" {
		pr, err := s.Payments.For(o.Hold.Provider)
		if err != nil {
			return o, err
		}
		cs, err := pr.ExpireCheckout(ctx, o.Hold.SessionID)
		if errors.Is(err, payment.ErrCheckoutComplete) {
			applied, err := s.place(ctx, pr, o.ID, cs, "")
			if err != nil {
				return o, err
			}
			if applied.Order.Status == store.OrderExpired {
				return applied.Order, nil // released meanwhile, its payment refunded
			}
			slog.InfoContext(ctx, "a cancelled order's page was paid: placed instead", "order", o.ID)
			return applied.Order, store.ErrOrderPaid
		}
		if err != nil {
			return o, fmt.Errorf("expire the page of order %s: %w", o.ID, err)
		}
	}
	return s.Store.ReleaseHeldOrder(ctx, o.ID, store.ReleaseCancelled, store.ProviderOf(o.Hold.Provider), "")
}
