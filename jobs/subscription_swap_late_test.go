package jobs_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"shop/jobs"
	"shop/store"
	"shop/store/payment"
)

// refundMailsOf are the outbox's mails of subscription id that give money
// back (an order's or a payment's refund, a receipt's refund).
func (b *subBench) refundMailsOf(t *testing.T, id string) []store.Mail {
	t.Helper()
	var out []store.Mail
	for _, m := range b.outbox(t) {
		if m.SubscriptionID == id && (m.Kind == store.MailRefund || m.Kind == store.MailReceiptRefund) {
			out = append(out, m)
		}
	}
	return out
}

// A swap now whose bank confirmation comes after the swap stopped waiting
// for it (a week): the customer paid for a change quoted for days long
// used, so nothing is swapped and the payment goes back in full, with one
// mail saying why, however often its event and the return page report it.
// A wait gone altogether (past the time it is kept) is given back the
// same way once its payment's request can no longer be recording it; a
// plain swap now's payment, recorded by its request, is left alone.
func TestSwapNowConfirmedAtTheBankTooLateIsGivenBack(t *testing.T) {
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
	nothingSwapped := func(plan store.SwapNowPlan) {
		t.Helper()
		if got := read(plan.Current.ID); got.ProductID != "beans" || got.Version != plan.Current.Version {
			t.Fatalf("a payment confirmed too late swapped: %s v%d", got.ProductID, got.Version)
		}
		if rs := b.changeReceipts(t, c.ID, plan.Current.ID); len(rs) != 0 {
			t.Fatalf("a payment confirmed too late wrote receipts: %+v", rs)
		}
		if at := b.ledger(t)[plan.Current.ID]; at == nil || at.changes != 0 || at.givenBack != 1 {
			t.Fatalf("the provider's ledger %+v, want the payment given back in full, once", at)
		}
		if ms := b.refundMailsOf(t, plan.Current.ID); len(ms) != 1 || !strings.Contains(ms[0].Text, "Fika beans was not changed") ||
			!strings.Contains(ms[0].Text, plan.Quote.Charge.String()) || ms[0].To != c.Email {
			t.Fatalf("the refund mails %+v, want one naming the subscription and the amount", ms)
		}
	}

	// A plain swap now's payment, recorded by its request: its event
	// changes nothing, at once or later.
	sub := read(subs[2].ID)
	plain, err := b.env.Store.PlanSwapNow(ctx, c.ID, sub.ID, sub.Version, greenTea, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Quote.Charge.Amount <= 0 {
		t.Fatalf("quote %+v: want a charge", plain.Quote)
	}
	if _, err := b.sp.ChargeSwapNow(ctx, plain); err != nil {
		t.Fatal(err)
	}
	rs := b.changeReceipts(t, c.ID, sub.ID)
	if len(rs) != 1 {
		t.Fatalf("change receipts %+v", rs)
	}
	plainEvent := b.paymentEvent(t, payment.EventPaymentSucceeded, rs[0].ChargeID)
	recorded := func() {
		t.Helper()
		if err := b.sp.ApplySubscriptionEvent(ctx, plainEvent); err != nil {
			t.Fatal(err)
		}
		if at := b.ledger(t)[sub.ID]; at == nil || at.changes != plain.Quote.Charge.Amount || at.givenBack != 0 {
			t.Fatalf("a recorded swap's payment: ledger %+v", at)
		}
		if ms := b.refundMailsOf(t, sub.ID); len(ms) != 0 {
			t.Fatalf("a recorded swap's payment mailed %+v", ms)
		}
	}
	recorded()

	// Confirmed eight days on: two events and two return pages at once.
	plan, pi := b.askedSwap(t, c, read(subs[0].ID))
	b.clock.Set(b.clock.Now().AddDate(0, 0, 8))
	if _, err := b.provider.AnswerPayment(ctx, pi, true); err != nil {
		t.Fatal(err)
	}
	ev := b.paymentEvent(t, payment.EventPaymentSucceeded, pi)
	var wg sync.WaitGroup
	var mu sync.Mutex
	late := 0
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				if err := b.sp.ApplySubscriptionEvent(ctx, ev); err != nil {
					t.Errorf("the event: %v", err)
				}
				return
			}
			st, err := b.sp.SettleSwapNow(ctx, c.ID, plan.ChargeKey())
			switch {
			case errors.Is(err, store.ErrNotFound): // given back by another meanwhile
			case err != nil:
				t.Errorf("the return: %v", err)
			case st.Outcome != jobs.SwapTooLate:
				t.Errorf("the return: outcome %v, want too late", st.Outcome)
			default:
				mu.Lock()
				late++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	nothingSwapped(plan)
	if _, err := b.env.Store.SwapWaitingFor(ctx, c.ID, plan.ChargeKey()); !errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrSwapTooLate) {
		t.Fatalf("the wait after its payment was given back: %v", err)
	}
	if err := b.sp.ApplySubscriptionEvent(ctx, ev); err != nil { // once more, late
		t.Fatal(err)
	}
	nothingSwapped(plan)
	if ms := b.refundMailsOf(t, plan.Current.ID); !strings.Contains(ms[0].Subject, "Green tea was not made") || !strings.Contains(ms[0].Text, "too late") {
		t.Fatalf("the mail does not say the change to green tea was confirmed too late:\n%s\n%s", ms[0].Subject, ms[0].Text)
	}

	// A wait gone altogether: its payment's event is sent again until no
	// request can be recording the payment, then given back.
	plan, pi = b.askedSwap(t, c, read(subs[1].ID))
	b.clock.Set(b.clock.Now().AddDate(0, 2, 0))
	if _, err := b.provider.AnswerPayment(ctx, pi, true); err != nil {
		t.Fatal(err)
	}
	ev = b.paymentEvent(t, payment.EventPaymentSucceeded, pi)
	if err := b.sp.ApplySubscriptionEvent(ctx, ev); err == nil {
		t.Fatal("a change's payment nobody recorded, at once: applied, want sent again")
	}
	if at := b.ledger(t)[plan.Current.ID]; at == nil || at.givenBack != 0 {
		t.Fatalf("given back while its request may still record it: %+v", at)
	}
	b.clock.Set(b.clock.Now().Add(time.Hour))
	for range 2 {
		if err := b.sp.ApplySubscriptionEvent(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	nothingSwapped(plan)
	recorded() // its event again, months on
}
