package jobs_test

import (
	"context"
	"errors"
	"path"
	"strings"
	"sync"
	"testing"

	"shop/jobs"
	"shop/store"
	"shop/store/payment"
)

// changeReceipts are the customer's "Change to" receipts of subscription id.
func (b *subBench) changeReceipts(t *testing.T, customerID, id string) []store.Receipt {
	t.Helper()
	p, err := b.env.Store.Receipts(ctxT(t), customerID, "", "", 100, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Receipt
	for _, r := range p.Items {
		if r.Kind == store.ReceiptChange && r.SubscriptionID == id {
			out = append(out, r)
		}
	}
	return out
}

// paymentEvent is the provider's event of payment id of type typ.
func (b *subBench) paymentEvent(t *testing.T, typ, id string) payment.Event {
	t.Helper()
	for _, ev := range b.events(t, typ) {
		if ev.Payment != nil && ev.Payment.ID == id {
			return ev
		}
	}
	t.Fatalf("no %s event of payment %s", typ, id)
	return payment.Event{}
}

// askedSwap plans a swap now of sub to green tea on a card whose bank asks
// on every payment and sends it: the bank's page's payment id.
func (b *subBench) askedSwap(t *testing.T, c store.Customer, sub store.Subscription) (store.SwapNowPlan, string) {
	t.Helper()
	ctx := ctxT(t)
	sub, err := b.env.Store.ChangeSubscription(ctx, c.ID, sub.ID, sub.Version, store.ChangeCard(b.savedCard(t, c, payment.CardAuthenticationRequired)))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := b.env.Store.PlanSwapNow(ctx, c.ID, sub.ID, sub.Version, greenTea, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var bank *jobs.ConfirmAtBank
	if _, err := b.sp.ChargeSwapNow(ctx, plan); !errors.As(err, &bank) {
		t.Fatalf("a swap now the bank asks about: %v", err)
	}
	return plan, path.Base(path.Dir(bank.URL))
}

// A swap now whose bank asks the holder to confirm: two tabs sending it
// at once make one payment waiting at the bank; approved, the return page
// (several tabs) and the provider's event (twice) racing write the swap
// and its receipt once, nothing given back. Refused, nothing changes and
// the next swap now goes through. Paid after the subscription moved, the
// payment is given back, mailed once, and nothing is written.
func TestSwapNowTheBankAsksAbout(t *testing.T) {
	t.Parallel()
	b := newSubBench(t, "2026-03-15")
	ctx := ctxT(t)
	c := b.customer(t)
	subs := b.seedSaved(t, c, 3, "2026-03-15", b.savedCard(t, c, payment.CardSucceeds))
	if _, err := b.runner("r").Run(ctx, jobs.JobPayments, day("2026-03-15"), jobs.TriggerCommandLine); err != nil {
		t.Fatal(err)
	}
	read := func(id string) store.Subscription {
		t.Helper()
		s, err := b.env.Store.SubscriptionConsistent(ctx, c.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	// Two tabs at once: one payment, both sent to its page.
	plan, pi := b.askedSwap(t, c, read(subs[0].ID))
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var bank *jobs.ConfirmAtBank
			if _, err := b.sp.ChargeSwapNow(ctx, plan); !errors.As(err, &bank) || path.Base(path.Dir(bank.URL)) != pi {
				t.Errorf("another tab: %v", err)
			}
		}()
	}
	wg.Wait()
	if _, err := b.provider.AnswerPayment(ctx, pi, true); err != nil {
		t.Fatal(err)
	}
	ev := b.paymentEvent(t, payment.EventPaymentSucceeded, pi)
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if i%3 == 0 {
				err = b.sp.ApplySubscriptionEvent(ctx, ev)
			} else if _, err = b.sp.SettleSwapNow(ctx, c.ID, plan.ChargeKey()); errors.Is(err, store.ErrNotFound) {
				err = nil // settled by another meanwhile
			}
			if err != nil {
				t.Errorf("settle: %v", err)
			}
		}()
	}
	wg.Wait()
	if got := read(plan.Current.ID); got.ProductID != greenTea.ID || got.Version != plan.Current.Version+1 {
		t.Fatalf("after the bank's yes: %s v%d, want %s v%d", got.ProductID, got.Version, greenTea.ID, plan.Current.Version+1)
	}
	if rs := b.changeReceipts(t, c.ID, plan.Current.ID); len(rs) != 1 || rs[0].Amount != plan.Quote.Charge || rs[0].ChargeID != pi {
		t.Fatalf("change receipts %+v, want one of %v paid by %s", rs, plan.Quote.Charge, pi)
	}
	if at := b.ledger(t)[plan.Current.ID]; at == nil || at.changes != plan.Quote.Charge.Amount || at.givenBack != 0 {
		t.Fatalf("the provider's ledger %+v, want %v once, nothing given back", at, plan.Quote.Charge)
	}
	if _, err := b.env.Store.SwapWaitingFor(ctx, c.ID, plan.ChargeKey()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the wait after its swap: %v", err)
	}

	// Refused at the bank: nothing changes, and it blocks nothing.
	plan, pi = b.askedSwap(t, c, read(subs[1].ID))
	if _, err := b.provider.AnswerPayment(ctx, pi, false); !errors.Is(err, payment.ErrAuthenticationFailed) {
		t.Fatal(err)
	}
	if st, err := b.sp.SettleSwapNow(ctx, c.ID, plan.ChargeKey()); err != nil || st.Outcome != jobs.SwapNotPaid {
		t.Fatalf("settle a refused payment: %+v, %v", st.Outcome, err)
	}
	if got := read(plan.Current.ID); got.Version != plan.Current.Version || got.ProductID != "beans" {
		t.Fatalf("a refused payment wrote: %s v%d", got.ProductID, got.Version)
	}
	sub, err := b.env.Store.ChangeSubscription(ctx, c.ID, plan.Current.ID, plan.Current.Version, store.ChangeCard(b.savedCard(t, c, payment.CardSucceeds)))
	if err != nil {
		t.Fatal(err)
	}
	again, err := b.env.Store.PlanSwapNow(ctx, c.ID, sub.ID, sub.Version, greenTea, 1, nil)
	if err == nil {
		_, err = b.sp.ChargeSwapNow(ctx, again)
	}
	if err != nil {
		t.Fatalf("a swap now after a refused one: %v", err)
	}

	// Paid after the subscription moved (the customer changed its day in
	// another tab): given back, once, whichever reports it.
	plan, pi = b.askedSwap(t, c, read(subs[2].ID))
	if _, err := b.env.Store.ChangeSubscription(ctx, c.ID, plan.Current.ID, plan.Current.Version, store.ChangeDay(20)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.provider.AnswerPayment(ctx, pi, true); err != nil {
		t.Fatal(err)
	}
	if err := b.sp.ApplySubscriptionEvent(ctx, b.paymentEvent(t, payment.EventPaymentSucceeded, pi)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.sp.SettleSwapNow(context.WithoutCancel(ctx), c.ID, plan.ChargeKey()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the return after the event gave it back: %v", err)
	}
	if got := read(plan.Current.ID); got.ProductID != "beans" || got.PaymentDay != 20 {
		t.Fatalf("a payment for a moved subscription wrote: %+v", got)
	}
	if at := b.ledger(t)[plan.Current.ID]; at == nil || at.changes != 0 || at.givenBack != 1 {
		t.Fatalf("the provider's ledger %+v, want the payment given back", at)
	}
	if err := b.sp.ApplySubscriptionEvent(ctx, b.paymentEvent(t, payment.EventPaymentSucceeded, pi)); err != nil {
		t.Fatalf("the event again: %v", err)
	}
	if ms := b.refundMailsOf(t, plan.Current.ID); len(ms) != 1 || !strings.Contains(ms[0].Text, "changed meanwhile") {
		t.Fatalf("mails %+v, want one saying the subscription changed meanwhile", ms)
	}
}
