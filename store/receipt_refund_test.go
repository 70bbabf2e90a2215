package store_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
	"shop/store/storetest/paytest"
)

// ledgerRefunder refunds through the test provider that took the
// receipts' payments, able to fail as a bank that does not answer,
// counting the calls.
type ledgerRefunder struct {
	paytest.Flaky
	env storetest.Env
}

func newLedgerRefunder(f billingFixture) *ledgerRefunder {
	return &ledgerRefunder{Flaky: paytest.Flaky{Refunds: f.pay.Refunds()}, env: f.env}
}

// total is what the provider's ledger holds: its refunds and their sum.
func (l *ledgerRefunder) total(t *testing.T) (refunds int, sum int64) {
	t.Helper()
	return paytest.ProviderRefunds(t, l.env)
}

func refundMail(r store.Receipt) *store.Mail {
	return &store.Mail{ID: "refund-" + r.Number, To: r.Email, Kind: store.MailReceiptRefund, Subject: "refund " + r.Refund.Amount.String(),
		CustomerID: r.AccountID, SubscriptionID: r.SubscriptionID, CreatedAt: time.Now(), Status: store.MailPending}
}

func refundMails(t *testing.T, st *store.Store) []store.Mail {
	t.Helper()
	p, err := st.Outbox(ctxT(t), 100, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Mail
	for _, m := range p.Items {
		if m.Kind == store.MailReceiptRefund {
			out = append(out, m)
		}
	}
	return out
}

func firstReceipt(t *testing.T, f billingFixture, customer string) store.Receipt {
	t.Helper()
	p, err := f.env.Store.RecentReceipts(ctxT(t), customer, 10, "")
	if err != nil || len(p.Items) == 0 {
		t.Fatalf("receipts of %s: %v %v", customer, p.Items, err)
	}
	return p.Items[0]
}

func TestRefundReceiptInPartOnceByKey(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 5, 18, 9, 0, 0, 0, time.UTC))
	ctx, st, gw := ctxT(t), f.env.Store, newLedgerRefunder(f)
	f.subscribe(t, "ada", 18, 1)
	rec := firstReceipt(t, f, "ada")
	req := store.RefundRequest{CustomerID: "ada", Number: rec.Number, Amount: eur(500), Reason: "beans arrived stale", By: "staff@x", Key: "k1"}

	for _, bad := range []struct {
		name string
		req  func(r store.RefundRequest) store.RefundRequest
		want error
	}{
		{"nothing", func(r store.RefundRequest) store.RefundRequest { r.Amount = eur(0); return r }, store.ErrRefundAmount},
		{"more than paid", func(r store.RefundRequest) store.RefundRequest { r.Amount = eur(1300); return r }, store.ErrRefundAmount},
		{"another currency", func(r store.RefundRequest) store.RefundRequest {
			r.Amount = store.Money{Amount: 100, Currency: "SEK"}
			return r
		}, store.ErrRefundAmount},
		{"no reason", func(r store.RefundRequest) store.RefundRequest { r.Reason = "  "; return r }, store.ErrReceiptRefundReason},
	} {
		if _, err := st.RefundReceipt(ctx, bad.req(req), gw, refundMail); !errors.Is(err, bad.want) {
			t.Errorf("%s: %v, want %v", bad.name, err, bad.want)
		}
	}
	if got, _ := st.Receipt(ctx, "ada", rec.Number); got.Refund != nil || gw.Calls() != 0 {
		t.Fatalf("bad input wrote %+v or reached the gateway (%d)", got.Refund, gw.Calls())
	}

	done, err := st.RefundReceipt(ctx, req, gw, refundMail)
	if err != nil {
		t.Fatal(err)
	}
	if done.Refund == nil || done.Refund.Status != store.ReceiptRefunded || done.Refunded() != eur(500) || done.Refund.GatewayID == "" {
		t.Fatalf("refund %+v", done.Refund)
	}
	// Done, it is a credit note of the books' series, numbered with the
	// provider's confirmation.
	if done.Refund.CreditNote != "CN2026-000001" || done.Refund.CreditNoteAt.IsZero() {
		t.Fatalf("the refund's credit note %q at %v, want CN2026-000001", done.Refund.CreditNote, done.Refund.CreditNoteAt)
	}
	again, err := st.RefundReceipt(ctx, req, gw, refundMail)
	if err != nil || again.Refund.GatewayID != done.Refund.GatewayID || again.Refund.CreditNote != done.Refund.CreditNote {
		t.Fatalf("the same key again: %+v %v", again.Refund, err)
	}
	other := req
	other.Key, other.Amount = "k2", eur(799)
	if _, err := st.RefundReceipt(ctx, other, gw, refundMail); !errors.Is(err, store.ErrAlreadyRefunded) {
		t.Fatalf("a second refund: %v, want ErrAlreadyRefunded", err)
	}
	shown, err := st.Receipt(ctx, "ada", rec.Number)
	if err != nil || shown.Refunded() != eur(500) || shown.Refund.Reason != "beans arrived stale" || shown.Refund.By != "staff@x" {
		t.Fatalf("the receipt shows %+v %v", shown.Refund, err)
	}
	if n, sum := gw.total(t); n != 1 || sum != 500 {
		t.Errorf("gateway refunded %d times, %d cents", n, sum)
	}
	if m := refundMails(t, st); len(m) != 1 || m[0].To != "ada@example.com" {
		t.Errorf("refund mails %+v", m)
	}
}

// Many staff tabs refund one receipt at once, each with its own key and
// amount: the gateway gives money back once, the receipt records that one,
// one mail goes out, and every other request is told why not.
func TestRefundReceiptRace(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 5, 18, 9, 0, 0, 0, time.UTC))
	ctx, st, gw := ctxT(t), f.env.Store, newLedgerRefunder(f)
	f.subscribe(t, "bo", 18, 1)
	rec := firstReceipt(t, f, "bo")
	const n = 24
	var wg sync.WaitGroup
	results := make([]store.Receipt, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := fmt.Sprintf("key%d", i%12) // pairs share a key: a double submit
			results[i], errs[i] = st.RefundReceipt(ctx, store.RefundRequest{
				CustomerID: "bo", Number: rec.Number, Amount: eur(int64(100 + i%12)), Reason: "race", By: "staff", Key: key,
			}, gw, refundMail)
		}()
	}
	wg.Wait()
	final, err := st.Receipt(ctx, "bo", rec.Number)
	if err != nil || final.Refund == nil || final.Refund.Status != store.ReceiptRefunded {
		t.Fatalf("final refund %+v %v", final.Refund, err)
	}
	ok := 0
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
			if results[i].Refund.Key != final.Refund.Key {
				t.Errorf("request %d succeeded with key %s, the receipt has %s", i, results[i].Refund.Key, final.Refund.Key)
			}
		case errors.Is(err, store.ErrAlreadyRefunded), errors.Is(err, store.ErrRefundUnderWay):
		default:
			t.Errorf("request %d: %v", i, err)
		}
	}
	if ok < 1 || ok > 2 {
		t.Errorf("%d requests succeeded, want the winner and its twin at most", ok)
	}
	if refunds, sum := gw.total(t); refunds != 1 || sum != final.Refund.Amount.Amount {
		t.Errorf("gateway: %d refunds, %d cents; the receipt says %v", refunds, sum, final.Refund.Amount)
	}
	if m := refundMails(t, st); len(m) != 1 {
		t.Errorf("%d refund mails, want 1", len(m))
	}
}

// The gateway does not answer: the refund stays pending on the receipt,
// another request is told it is under way, and staff finish it later with
// the first request's amount: still one refund.
func TestRefundReceiptPendingIsFinishedOnce(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 5, 18, 9, 0, 0, 0, time.UTC))
	ctx, st, gw := ctxT(t), f.env.Store, newLedgerRefunder(f)
	f.subscribe(t, "cy", 18, 1)
	rec := firstReceipt(t, f, "cy")
	req := store.RefundRequest{CustomerID: "cy", Number: rec.Number, Amount: eur(1299), Reason: "never arrived", By: "staff", Key: "first"}
	gw.Fail(errors.New("connection reset"))
	if _, err := st.RefundReceipt(ctx, req, gw, refundMail); err == nil {
		t.Fatal("a refund the gateway did not answer was recorded as done")
	}
	pending, _ := st.Receipt(ctx, "cy", rec.Number)
	if pending.Refund == nil || pending.Refund.Status != store.ReceiptRefundPending || pending.Refund.CreditNote != "" || len(pending.CreditNotes()) != 0 {
		t.Fatalf("after no answer (no credit note before the provider confirms): %+v", pending.Refund)
	}
	gw.Fail(nil)
	other := req
	other.Key, other.Amount = "second", eur(100)
	if _, err := st.RefundReceipt(ctx, other, gw, refundMail); !errors.Is(err, store.ErrRefundUnderWay) {
		t.Fatalf("another key while pending: %v", err)
	}
	other.Finish = true
	done, err := st.RefundReceipt(ctx, other, gw, refundMail)
	if err != nil || done.Refunded() != eur(1299) || done.Refund.CreditNote != "CN2026-000001" {
		t.Fatalf("finished: %+v %v", done.Refund, err)
	}
	if refunds, sum := gw.total(t); refunds != 1 || sum != 1299 {
		t.Errorf("gateway: %d refunds, %d cents", refunds, sum)
	}

	// A final no lets the reservation go, so staff can try another amount.
	f.clock.Set(time.Date(2026, 6, 18, 9, 0, 0, 0, time.UTC))
	f.subscribe(t, "dee", 18, 1)
	rec2 := firstReceipt(t, f, "dee")
	gw.Fail(store.ErrRefundExceedsCharge) // the bank's final no
	if _, err := st.RefundReceipt(ctx, store.RefundRequest{CustomerID: "dee", Number: rec2.Number, Amount: eur(100), Reason: "x", By: "s", Key: "a"}, gw, refundMail); !errors.Is(err, store.ErrRefundExceedsCharge) {
		t.Fatalf("refused: %v", err)
	}
	if r, _ := st.Receipt(ctx, "dee", rec2.Number); r.Refund != nil || len(r.CreditNotes()) != 0 {
		t.Fatalf("a refused refund stayed reserved: %+v", r.Refund)
	}
}

func TestCancelNowRefundsTheUnusedDaysWhenStaffAllowIt(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC))
	ctx, st, gw := ctxT(t), f.env.Store, newLedgerRefunder(f)
	off := f.subscribe(t, "ed", 1, 1) // paid 1 April to 1 May: 30 days of €12.99
	on := f.subscribe(t, "flo", 1, 1)
	f.clock.Set(time.Date(2026, 4, 16, 9, 0, 0, 0, time.UTC)) // the 16th used: 14 days left

	got, err := st.CancelSubscriptionNow(ctx, "ed", off.ID, off.Version, gw, refundMail)
	if err != nil || got.Subscription.Status != store.SubscriptionCancelled || got.Receipt != nil {
		t.Fatalf("settings off: %+v %v", got, err)
	}
	set, err := st.SubscriptionSettings(ctx)
	if err != nil || set.RefundUnusedOnCancel || set.Version != 0 {
		t.Fatalf("default settings %+v %v", set, err)
	}
	set.RefundUnusedOnCancel, set.ChangedBy = true, "staff@x"
	if _, err := st.SaveSubscriptionSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SaveSubscriptionSettings(ctx, set); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("saving over a newer version: %v", err)
	}
	if _, err := st.CancelSubscriptionNow(ctx, "flo", on.ID, on.Version+1, gw, refundMail); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a stale version: %v", err)
	}
	got, err = st.CancelSubscriptionNow(ctx, "flo", on.ID, on.Version, gw, refundMail)
	if err != nil || got.Receipt == nil {
		t.Fatalf("settings on: %+v %v", got, err)
	}
	want := eur(1299 * 14 / 30)
	if got.Receipt.Refunded() != want || got.UnusedDays != 14 || got.PeriodDays != 30 || got.Receipt.Refund.By != "cancellation" {
		t.Errorf("refund %+v (%d/%d days), want %v", got.Receipt.Refund, got.UnusedDays, got.PeriodDays, want)
	}
	if refunds, sum := gw.total(t); refunds != 1 || sum != want.Amount {
		t.Errorf("gateway: %d refunds, %d cents", refunds, sum)
	}
	if _, err := st.CancelSubscriptionNow(ctx, "flo", on.ID, got.Subscription.Version, gw, refundMail); !errors.Is(err, store.ErrSubscriptionCancelled) {
		t.Errorf("cancelling twice: %v", err)
	}
	if m := refundMails(t, st); len(m) != 1 {
		t.Errorf("%d refund mails", len(m))
	}
}

// Receipts refunded at the same moment each take a credit note's number
// of the series orders' refunds take: distinct, consecutive from the
// first, no gap, each referring to its receipt; finished again (the same
// key) a refund keeps its number and takes none.
//
// Not parallel: a race of transactions on one counter beside other tests'
// writes makes DynamoDB Local time out its lock waits.
func TestReceiptCreditNotesAreGaplessUnderARace(t *testing.T) {
	const n = 10
	f := newBillingFixture(t, time.Date(2026, 5, 18, 9, 0, 0, 0, time.UTC))
	ctx, st, gw := ctxT(t), f.env.Store, newLedgerRefunder(f)
	recs := make([]store.Receipt, n)
	for i := range recs {
		customer := fmt.Sprintf("cn%02d", i)
		f.subscribe(t, customer, 18, 1)
		recs[i] = firstReceipt(t, f, customer)
	}
	done := make([]store.Receipt, 2*n) // receipt i's twins answer at 2i and 2i+1
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, rec := range recs {
		wg.Add(2)
		for twin := range 2 { // a double submit: one refund, one note
			go func() {
				defer wg.Done()
				<-start
				r, err := st.RefundReceipt(ctx, store.RefundRequest{CustomerID: rec.AccountID, Number: rec.Number, Amount: eur(int64(100 + i)),
					Reason: "race", By: "staff", Key: "cn-" + rec.Number}, gw, refundMail)
				if err != nil && !errors.Is(err, store.ErrRefundUnderWay) {
					t.Errorf("refund of receipt %d: %v", i, err)
				}
				if err == nil {
					done[2*i+twin] = r
				}
			}()
		}
	}
	close(start)
	wg.Wait()
	if t.Failed() {
		return
	}
	var got []string
	for i, rec := range recs {
		r, err := st.RetryReceiptRefund(ctx, rec.AccountID, rec.Number, gw, refundMail) // finished again, if a twin left it
		if err != nil {
			t.Fatal(err)
		}
		notes := r.CreditNotes()
		if len(notes) != 1 || notes[0].Amount != eur(int64(100+i)) {
			t.Fatalf("receipt %d's credit notes %+v", i, notes)
		}
		for _, d := range done[2*i : 2*i+2] {
			if d.Refund != nil && d.Refund.CreditNote != notes[0].Number {
				t.Errorf("receipt %d answered note %q, holds %q", i, d.Refund.CreditNote, notes[0].Number)
			}
		}
		got = append(got, notes[0].Number)
	}
	slices.Sort(got)
	for i, note := range got {
		if want := fmt.Sprintf("CN2026-%06d", i+1); note != want {
			t.Fatalf("credit notes %v: number %d is %q, want %s", got, i+1, note, want)
		}
	}
	if refunds, _ := gw.total(t); refunds != n {
		t.Errorf("the provider made %d refunds, want %d", refunds, n)
	}
}
