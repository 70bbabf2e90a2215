package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"shop/store"
	"shop/store/payment"
	"shop/web/paths"
)

// ChargeSwapNow charges a swap now's difference (plan.Quote.Charge) to the
// subscription's kept card and records the swap with its receipt
// (store.SwapNowCharged). The payment's key names the change and the
// amount, so a double submit of one tab is one payment at the provider. A
// decline answers the card's error with nothing written. A bank asking its
// holder to confirm (the kept-card rule: only then is the customer sent
// away) records the swap as waiting (store.WaitSwapNow) and answers
// ConfirmAtBank with the bank's page; the swap is written when the payment
// succeeds (SettleSwapNow, or its event). A subscription
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
	amount, key := plan.Quote.Charge, plan.ChargeKey()
	meta := map[string]string{payment.MetaFor: payment.ForChange, payment.MetaCustomer: plan.Current.AccountID,
		payment.MetaSubscription: plan.Current.ID, payment.MetaKey: key}
	pi, err := prov.CreatePayment(ctx, payment.PaymentRequest{Amount: amount, CustomerRef: card.Customer, MethodRef: card.Token,
		Description: "Change to " + plan.Next.LineName(), Key: key, Metadata: meta,
		ReturnURL: sp.url(paths.WithQuery(paths.Subscriptions, SwapReturnQuery, key))})
	if err != nil {
		return out, err
	}
	pi, err = prov.ConfirmPayment(ctx, pi.ID)
	switch {
	case errors.Is(err, payment.ErrAuthenticationRequired) && pi.RedirectURL != "":
		if _, err := sp.Store.WaitSwapNow(ctx, plan, prov.Name(), pi.ID); err != nil {
			return out, err // moved meanwhile: nothing is taken until the holder answers, and nobody is sent
		}
		return out, &ConfirmAtBank{URL: pi.RedirectURL}
	case err != nil:
		return out, err
	}
	charge := store.GatewayCharge{Key: key, ID: pi.ID, Amount: pi.Amount, At: sp.Store.Now(), Provider: prov.Name()}
	done, err := sp.Store.SwapNowCharged(ctx, plan, charge, sp.mail)
	var stale *store.StaleError
	if errors.As(err, &stale) {
		if rerr := sp.giveBack(ctx, prov.Name(), pi, plan.Current.AccountID, plan.Current.ID, key); rerr != nil {
			// The key makes a later try the same refund; staff see the
			// payment at the provider with its metadata.
			slog.ErrorContext(ctx, "give back a swap now's charge", "subscription", plan.Current.ID, "payment", pi.ID, "err", rerr)
		}
	}
	return done, err
}
