package jobs

import (
	"context"
	"errors"
	"fmt"

	"shop/store"
	"shop/store/payment"
	"shop/views/mail"
)

// SwapReturnQuery is the query parameter the bank's page returns to the
// subscriptions page with: the key of the swap now's charge it asked
// about (SettleSwapNow).
const SwapReturnQuery = "swap"

// ConfirmAtBank answers a swap now whose charge the bank wants its card
// holder to confirm: the swap waits (store.WaitSwapNow) and the customer
// goes to URL, the bank's page for that payment.
type ConfirmAtBank struct{ URL string }

func (e *ConfirmAtBank) Error() string {
	return "the bank asks the card holder to confirm the payment on its page"
}

// SwapOutcome is what settling a waiting swap did.
type SwapOutcome int

const (
	// SwapStillWaiting: the payment is still with the bank (or processing).
	SwapStillWaiting SwapOutcome = iota
	// SwapApplied: paid; the swap and its receipt are written (by this
	// call or the one before it).
	SwapApplied
	// SwapNotPaid: the bank or the holder refused; nothing changed.
	SwapNotPaid
	// SwapGivenBack: paid, but the subscription moved since the swap was
	// planned: the payment is refunded and nothing changed.
	SwapGivenBack
	// SwapTooLate: paid after the swap stopped waiting (a week): the
	// payment is refunded, nothing changed, and the customer mailed.
	SwapTooLate
)

// SwapSettled is a waiting swap and what settling it did.
type SwapSettled struct {
	Waiting store.SwapWaiting
	Outcome SwapOutcome
	Done    store.SwappedNow // SwapApplied: what was written; SwapGivenBack: the subscription now
}

// SettleSwapNow settles the swap now waiting on the charge keyed key as its
// payment stands at the provider (the customer back from the bank's page:
// one read of the waiting swap, one of the payment). ErrNotFound when none
// waits (settled by its event before, or never). A swap that stopped
// waiting has its payment, if paid, given back (settleLate).
func (sp *SubscriptionPayments) SettleSwapNow(ctx context.Context, customerID, key string) (SwapSettled, error) {
	w, err := sp.Store.SwapWaitingFor(ctx, customerID, key)
	late := errors.Is(err, store.ErrSwapTooLate)
	if err != nil && !late {
		return SwapSettled{}, err
	}
	prov, err := sp.Providers.For(w.Provider)
	if err != nil {
		return SwapSettled{Waiting: w}, err
	}
	pi, err := prov.RetrievePayment(ctx, w.Payment)
	if err != nil {
		return SwapSettled{Waiting: w}, err
	}
	if late {
		return sp.settleLate(ctx, w, pi)
	}
	return sp.settleSwap(ctx, w, pi)
}

// settleSwapEvent settles the waiting swap a change's payment event is
// about, or gives back its payment if the swap stopped waiting
// (settleLate). Without a wait, a succeeded payment no swap recorded is
// given back too (unrecordedChange); the event of a plain swap now's
// charge (recorded by its request) or of one settled already changes
// nothing.
func (sp *SubscriptionPayments) settleSwapEvent(ctx context.Context, ev payment.Event, md map[string]string) error {
	if ev.Payment == nil {
		return nil
	}
	w, err := sp.Store.SwapWaitingFor(ctx, md[payment.MetaCustomer], md[payment.MetaKey])
	switch {
	case errors.Is(err, store.ErrSwapGivenBack):
		return nil // given back already, mailed
	case errors.Is(err, store.ErrSwapTooLate) && w.Payment == ev.Payment.ID:
		_, err = sp.settleLate(ctx, w, *ev.Payment)
		return err
	case errors.Is(err, store.ErrNotFound):
		return sp.unrecordedChange(ctx, ev, md)
	case err != nil:
		return err
	case w.Payment != ev.Payment.ID:
		return nil
	}
	_, err = sp.settleSwap(ctx, w, *ev.Payment)
	return err
}

// settleSwap applies a waiting swap's payment as it stands: succeeded, the
// swap is written once (store.SwapNowConfirmed), or, the subscription
// having moved, the payment given back (its key makes a second try the
// same refund) and the wait marked so with the customer's mail; failed,
// the wait is dropped.
func (sp *SubscriptionPayments) settleSwap(ctx context.Context, w store.SwapWaiting, pi payment.PaymentIntent) (SwapSettled, error) {
	out := SwapSettled{Waiting: w}
	switch pi.Status {
	case payment.PaymentSucceeded:
	case payment.PaymentRequiresMethod, payment.PaymentCanceled:
		out.Outcome = SwapNotPaid
		return out, sp.Store.DropSwapWaiting(ctx, w)
	default:
		return out, nil
	}
	charge := store.GatewayCharge{Key: w.Key, ID: pi.ID, Amount: pi.Amount, At: sp.Store.Now(), Provider: w.Provider}
	done, err := sp.Store.SwapNowConfirmed(ctx, w, charge, sp.mail)
	out.Done = done
	var stale *store.StaleError
	switch {
	case err == nil:
		out.Outcome = SwapApplied
		return out, nil
	case !errors.As(err, &stale):
		return out, err
	}
	if err := sp.giveBack(ctx, w.Provider, pi, w.Plan.Current.AccountID, w.Plan.Current.ID, w.Key); err != nil {
		return out, fmt.Errorf("give back the charge of a swap that moved: %w", err) // the wait stays: its event or return tries again
	}
	out.Outcome = SwapGivenBack
	m := mail.SwapGivenBack(sp.BaseURL, sp.Store.Now(), w.Plan.Current, pi, w.Plan.Next.LineName(), "mail.swapback.moved")
	return out, sp.Store.SwapWaitGivenBack(ctx, w, m)
}

// giveBack refunds a swap now's payment in full under the key every path
// that gives it back uses (the change's key and "-back"), so that however
// many of them do, the provider makes one refund.
func (sp *SubscriptionPayments) giveBack(ctx context.Context, provider string, pi payment.PaymentIntent, customerID, subscriptionID, key string) error {
	prov, err := sp.Providers.For(provider)
	if err != nil {
		return err
	}
	meta := map[string]string{payment.MetaFor: payment.ForChange, payment.MetaCustomer: customerID, payment.MetaSubscription: subscriptionID, payment.MetaKey: key}
	_, err = prov.Refund(ctx, payment.RefundRequest{PaymentRef: pi.ID, Amount: pi.Amount, Key: key + "-back", Metadata: meta})
	return err
}
