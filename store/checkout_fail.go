package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// When a checkout fails: why, in the customer's words, and the charge voided.

// explainCancel turns the reasons of a cancelled checkout into the error the
// customer sees; for stock it reads how many are left now.
func (s *Store) explainCancel(ctx context.Context, reasons []string, roles []itemRole) error {
	for i, r := range reasons {
		if r != reasonConditionFailed || i >= len(roles) {
			continue
		}
		switch role := roles[i]; role.kind {
		case "stock":
			levels, err := s.ProductStock(ctx, role.productID)
			if err != nil {
				return fmt.Errorf("read stock after a cancelled checkout: %w", err)
			}
			left := 0
			for _, l := range levels {
				left += max(l.Quantity, 0)
			}
			return &StockShortError{ProductID: role.productID, ProductName: role.name, Wanted: role.wanted, Available: left}
		case "ticket":
			return fmt.Errorf("your ticket for %s was used in another order or has expired: %w", role.name, ErrTicketNotRedeemable)
		case "cart":
			return ErrCartChanged
		case "number":
			return errOrderNumberTaken
		case "giftcard":
			return &CodeError{Field: "giftcard", Err: errors.New("the gift card's balance changed; check it and try again")}
		case "discount":
			return &CodeError{Field: "discount", Err: ErrCodeUsedUp}
		}
	}
	return fmt.Errorf("checkout cancelled: %v: %w", reasons, ErrConflict)
}

// failCheckout ends a checkout that did not write its order. Without a
// charge it only looks whether the order exists under the key after all (a
// write whose answer was lost). With one, it first moves the intent from
// charging to voiding: from then on no submission can place an order with
// that charge, so voiding it is safe. If the move fails, the key is read:
// placed with this very charge (a twin submission, or a write whose answer
// was lost) is the answer and the charge stands; anything else means no
// order holds this charge, which is voided (the key's order, if a later try
// placed one, is still the answer). If the key cannot be read or
// moved, the charge is kept and the intent stays charging: the reconcile
// step settles it.
func (s *Store) failCheckout(ctx context.Context, charger Charger, req CheckoutRequest, intent *idempotencyRecord, chargeID string, cause error) (Order, error) {
	ctx = context.WithoutCancel(ctx) // a charge must not be left behind because the request ended
	if chargeID == "" {
		o, err := s.OrderForKey(ctx, req.Key, req.CustomerID)
		switch {
		case err == nil:
			return o, nil
		case errors.Is(err, ErrNotFound):
			return Order{}, cause
		}
		return Order{}, errors.Join(cause, err)
	}
	unknown := func(err error) (Order, error) {
		slog.Error("checkout outcome unknown; charge kept for the reconcile step", "charge", chargeID, "key", req.Key, "err", err, "cause", cause)
		return Order{}, errors.Join(cause, err)
	}
	claimed := true
	if err := s.moveIntent(ctx, req.Key, intent.Attempt, CheckoutVoiding, CheckoutCharging); err != nil {
		if !errors.Is(err, errIntentMoved) {
			return unknown(err)
		}
		cur, found, err := s.checkoutKeyItem(ctx, req.Key)
		if err != nil {
			return unknown(err)
		}
		if found && cur.status() == CheckoutPlaced {
			if cur.ChargeID != chargeID {
				s.voidLogged(ctx, charger, chargeID, req.Key) // not this order's charge
			}
			return s.placedOrder(ctx, cur, true, req.CustomerID)
		}
		claimed = false // someone else's move: a reconcile, or a twin voiding the same charge
	}
	if err := s.voidLogged(ctx, charger, chargeID, req.Key); err != nil {
		return Order{}, errors.Join(cause, err)
	}
	if claimed {
		if err := s.moveIntent(ctx, req.Key, intent.Attempt, CheckoutVoided, CheckoutVoiding); err != nil && !errors.Is(err, errIntentMoved) {
			slog.Warn("checkout intent stays voiding; the reconcile step ends it", "key", req.Key, "err", err)
		}
	}
	return Order{}, cause
}

func (s *Store) voidLogged(ctx context.Context, charger Charger, chargeID, key string) error {
	if err := charger.Void(ctx, chargeID); err != nil {
		slog.Error("void charge after failed checkout", "charge", chargeID, "key", key, "err", err)
		return fmt.Errorf("void charge %s: %w", chargeID, err)
	}
	return nil
}
