package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"shop/store"
	"shop/store/payment"
	"shop/views/mail"
)

// A swap now's payment that no swap will record: confirmed at the bank
// after the swap stopped waiting for it (a week: store.ErrSwapTooLate),
// with its wait gone altogether, or charged by a request that ended
// before recording it. The money was taken and nothing was swapped, so
// the payment goes back in full, by the refund every give-back of a swap
// now's charge makes (giveBack: one refund however many ask), with one
// mail saying so (its id names the payment).
//
// Giving it back, not making the swap late, is the safe side: the quote
// credited the period's unused days as of the day it was planned, and
// the customer has used days at the old line since, or the period has
// renewed; a customer who still wants the change chooses it again at
// today's figures.

// swapRecordGrace is how long after its payment a plain swap now's
// request may still be recording it: a payment no swap recorded is given
// back only after that (its event comes again until then).
const swapRecordGrace = 10 * time.Minute

// settleLate settles the payment of a swap that stopped waiting, as it
// stands: paid, it is given back and the wait deleted with the mail (once,
// whoever reports it); refused, the wait is dropped; still at the bank,
// nothing yet.
func (sp *SubscriptionPayments) settleLate(ctx context.Context, w store.SwapWaiting, pi payment.PaymentIntent) (SwapSettled, error) {
	out := SwapSettled{Waiting: w}
	switch pi.Status {
	case payment.PaymentSucceeded:
	case payment.PaymentRequiresMethod, payment.PaymentCanceled:
		out.Outcome = SwapNotPaid
		return out, sp.Store.DropSwapWaiting(ctx, w)
	default:
		return out, nil
	}
	cur := w.Plan.Current
	if err := sp.giveBack(ctx, w.Provider, pi, cur.AccountID, cur.ID, w.Key); err != nil {
		return out, fmt.Errorf("give back the charge of a swap confirmed too late: %w", err) // the wait stays: its event or return tries again
	}
	m := mail.SwapGivenBack(sp.BaseURL, sp.Store.Now(), cur, pi, w.Plan.Next.LineName(), "mail.swapback.late")
	out.Outcome = SwapTooLate
	return out, sp.Store.SwapWaitGivenBack(ctx, w, m)
}

// unrecordedChange gives back a succeeded swap now payment that no wait
// names and no "Change to" receipt records, once the request that
// charged it can no longer be recording it (swapRecordGrace after the
// event; before that the event is sent again). The mail goes once.
func (sp *SubscriptionPayments) unrecordedChange(ctx context.Context, ev payment.Event, md map[string]string) error {
	pi := *ev.Payment
	if ev.Type != payment.EventPaymentSucceeded || pi.Status != payment.PaymentSucceeded || pi.Amount.Amount <= 0 {
		return nil
	}
	customerID, subID, key := md[payment.MetaCustomer], md[payment.MetaSubscription], md[payment.MetaKey]
	_, err := sp.Store.ChangeReceiptPaidBy(ctx, customerID, pi.ID, ev.Created.Add(-time.Hour))
	if !errors.Is(err, store.ErrNotFound) {
		return err // recorded (nil), or not known yet
	}
	if sp.Store.Now().Sub(ev.Created) < swapRecordGrace {
		return fmt.Errorf("swap now payment %s is not recorded yet (its request may still be recording it): send it again", pi.ID)
	}
	sub, err := sp.Store.SubscriptionConsistent(ctx, customerID, subID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	provider := sub.Card.Provider // a swap now charges the subscription's kept card
	if provider == "" {
		provider = sp.ActiveProvider()
	}
	if err := sp.giveBack(ctx, provider, pi, customerID, subID, key); err != nil {
		return fmt.Errorf("give back swap now payment %s no swap recorded: %w", pi.ID, err)
	}
	if sub.ID != "" { // else no subscription is left to write to
		err = sp.Store.PutMail(ctx, *mail.SwapGivenBack(sp.BaseURL, sp.Store.Now(), sub, pi, "", ""))
		if errors.Is(err, store.ErrConflict) {
			return nil // given back and mailed by a try before
		}
		if err != nil {
			return err
		}
	}
	slog.WarnContext(ctx, "a swap now's payment no swap recorded was given back", "subscription", subID, "payment", pi.ID, "event", ev.ID)
	return nil
}
