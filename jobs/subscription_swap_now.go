package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"shop/store"
	"shop/store/payment"
)

// ChargeSwapNow charges a swap now's difference (plan.Quote.Charge) to the
// subscription's kept card off-session and records the swap with its
// receipt (store.SwapNowCharged). The payment's key names the change and
// the amount, so a double submit of one tab is one payment at the
// provider. A decline, or a bank asking its holder to confirm (no page to
// send them to from here: the customer is told to choose "from the next
// payment"), answers the card's error with nothing written. A subscription
// that moved between the plan and the record (the payments job, another
// tab) gets its charge given back at once and answers the StaleError. The
// receipt's mail goes in the record's transaction.
func (sp *SubscriptionPayments) ChargeSwapNow(ctx context.Context, plan store.SwapNowPlan) (store.SwappedNow, error) {
	out := store.SwappedNow{Subscription: plan.Current}
	prov, err := sp.active()
	if err != nil {
		return out, err
	}
	card := plan.Current.Card
	if !card.Saved() || card.Provider != prov.Name() {
		return out, fmt.Errorf("card %s is not %s's: %w", card.Label(), prov.Name(), ErrCardElsewhere)
	}
	amount := plan.Quote.Charge
	key := fmt.Sprintf("%s-%d", plan.Key(), amount.Amount)
	meta := map[string]string{payment.MetaFor: payment.ForChange, payment.MetaCustomer: plan.Current.AccountID,
		payment.MetaSubscription: plan.Current.ID, payment.MetaKey: key}
	pi, err := prov.CreatePayment(ctx, payment.PaymentRequest{Amount: amount, CustomerRef: card.Customer, MethodRef: card.Token,
		Description: "Change to " + plan.Next.LineName(), Key: key, Metadata: meta})
	if err != nil {
		return out, err
	}
	if pi, err = prov.ConfirmPayment(ctx, pi.ID); err != nil {
		return out, err
	}
	charge := store.GatewayCharge{Key: key, ID: pi.ID, Amount: pi.Amount, At: sp.Store.Now(), Provider: prov.Name()}
	done, err := sp.Store.SwapNowCharged(ctx, plan, charge, sp.mail)
	var stale *store.StaleError
	if errors.As(err, &stale) {
		if _, rerr := prov.Refund(ctx, payment.RefundRequest{PaymentRef: pi.ID, Amount: pi.Amount, Key: key + "-back", Metadata: meta}); rerr != nil {
			// The key makes a later try the same refund; staff see the
			// payment at the provider with its metadata.
			slog.ErrorContext(ctx, "give back a swap now's charge", "subscription", plan.Current.ID, "payment", pi.ID, "err", rerr)
		}
	}
	return done, err
}
