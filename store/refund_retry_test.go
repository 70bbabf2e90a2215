package store_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/storetest"
	"shop/store/storetest/paytest"
)

// gatewayRefunds is what the gateway's ledger holds: its refunds and their sum.
func gatewayRefunds(t *testing.T, env storetest.Env) (n int, sum int64) {
	t.Helper()
	for _, item := range env.Items(t) {
		if e, ok := item["EntityType"].(*types.AttributeValueMemberS); !ok || e.Value != "gatewayRefund" {
			continue
		}
		n++
		var a int64
		for _, c := range item["Amount"].(*types.AttributeValueMemberN).Value {
			a = a*10 + int64(c-'0')
		}
		sum += a
	}
	return n, sum
}

var errBankDown = errors.New("bank: connection reset")

// pendingCardRefund places the gift-card-and-card order and refunds €20.00
// of it while the bank is down: €5.00 to the gift card, €15.00 pending on
// the card.
func pendingCardRefund(t *testing.T, clock *storetest.Clock) (shopFixture, *paytest.Flaky, store.Order) {
	t.Helper()
	f := newFixture(t, map[string][2]int{"p": {10, 0}, "q": {10, 0}}, 1000, store.WithClock(clock.Now))
	d := orderWithGiftCard(t, f)
	gw := &paytest.Flaky{Refunds: f.pay.Refunds()}
	gw.Fail(errBankDown)
	_, err := f.env.Store.RefundOrder(ctxT(t), store.OrderRefundRequest{OrderID: d.Order.ID, Key: "rf-down", Reason: "Arrived broken", By: refunder, Amount: eur(2000)}, gw)
	if !errors.Is(err, store.ErrRefundCard) {
		t.Fatalf("refund while the bank is down: %v, want ErrRefundCard", err)
	}
	return f, gw, d.Order
}

// A card refund the bank did not take is listed with its try, waits its
// backoff, counts each failed retry, and a retry once the bank is back
// finishes it (one refund at the gateway) and takes it off the list.
func TestRefundCardPendingListedRetriedAndFinished(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)
	clock := storetest.NewClock(now, 0)
	f, gw, o := pendingCardRefund(t, clock)
	ctx, st := ctxT(t), f.env.Store

	list, err := st.PendingCardRefunds(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("pending card refunds: %+v", list)
	}
	p := list[0]
	if p.OrderID != o.ID || p.RefundID != "rf-down" || p.Amount != eur(1500) || p.IsReceipt() || p.Tries.Count != 1 || p.Tries.Problem != store.CardRefundNoAnswer {
		t.Fatalf("listed %+v", p)
	}
	if p.DueForRetry(now) || p.DueForRetry(now.Add(14*time.Minute)) || !p.DueForRetry(now.Add(15*time.Minute)) {
		t.Fatalf("a refund tried once is due 15 minutes after: next %v", p.Tries.NextAt)
	}
	// Its sums are in the books already: the order says €20.00 refunded.
	d, err := st.OrderDetails(ctx, o.ID)
	if err != nil || d.Order.Refunded != eur(2000) || d.Order.RefundedCard != eur(1500) {
		t.Fatalf("order after the refund: %+v %v", d.Order, err)
	}

	now = now.Add(15 * time.Minute)
	clock.Set(now)
	rf, err := st.RetryCardRefund(ctx, o.ID, "rf-down", gw)
	if !errors.Is(err, store.ErrRefundCard) || rf.CardTries.Count != 2 || rf.Status != store.RefundCardPending {
		t.Fatalf("retry while down: %+v %v", rf, err)
	}
	list, err = st.PendingCardRefunds(ctx)
	if err != nil || len(list) != 1 || list[0].Tries.Count != 2 || !list[0].Tries.NextAt.Equal(now.Add(30*time.Minute)) {
		t.Fatalf("after a second try: %+v %v", list, err)
	}

	gw.Fail(nil)
	// What docs/access-patterns.md says it costs: the refund, the test provider's
	// refund (a GetItem, a transaction), the refund marked done, and its
	// credit note's number (the series' counter, a transaction).
	f.env.Counter.Reset()
	rf, err = st.RetryCardRefund(ctx, o.ID, "rf-down", gw)
	if err != nil || rf.Status != store.RefundDone || rf.GatewayRefundID == "" {
		t.Fatalf("retry with the bank back: %+v %v", rf, err)
	}
	if ops := f.env.Counter.Ops(); ops["GetItem"] != 3 || ops["TransactWriteItems"] != 2 || ops["UpdateItem"] != 1 || f.env.Counter.Total() != 6 {
		t.Fatalf("a retry that finished made %v", ops)
	}
	again, err := st.RetryCardRefund(ctx, o.ID, "rf-down", gw)
	if err != nil || again.GatewayRefundID != rf.GatewayRefundID {
		t.Fatalf("a retry of a done refund: %+v %v", again, err)
	}
	if list, err := st.PendingCardRefunds(ctx); err != nil || len(list) != 0 {
		t.Fatalf("still listed once done: %+v %v", list, err)
	}
	if n, sum := paytest.ProviderRefunds(t, f.env); n != 1 || sum != 1500 {
		t.Fatalf("the gateway refunded %d times, %d cents", n, sum)
	}
	if _, err := st.RetryCardRefund(ctx, o.ID, "no-such", gw); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("retry of an unknown refund: %v", err)
	}
}

// After MaxCardRefundTries the job leaves a refund to staff.
func TestRefundCardPendingNeedsStaffAfterMaxTries(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)
	clock := storetest.NewClock(now, 0)
	f, gw, o := pendingCardRefund(t, clock)
	ctx, st := ctxT(t), f.env.Store
	gw.Fail(store.ErrRefundRefused)
	for range store.MaxCardRefundTries - 1 {
		now = now.Add(24 * time.Hour)
		clock.Set(now)
		if _, err := st.RetryCardRefund(ctx, o.ID, "rf-down", gw); !errors.Is(err, store.ErrRefundCard) {
			t.Fatal(err)
		}
	}
	list, err := st.PendingCardRefunds(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("%+v %v", list, err)
	}
	p := list[0]
	if p.Tries.Count != store.MaxCardRefundTries || !p.Tries.NeedsStaff() || p.DueForRetry(now.Add(1000*time.Hour)) || p.Tries.Problem != store.CardRefundRefused {
		t.Fatalf("after %d tries: %+v", store.MaxCardRefundTries, p)
	}
}

// Many retries of one pending refund at once (job runs on two replicas,
// staff pressing "Retry now"): the gateway refunds once, the order's sums
// stay what the refund wrote, and the refund is done with that one id.
func TestRefundCardRetriesRaceRefundOnce(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)
	clock := storetest.NewClock(now, 0)
	f, gw, o := pendingCardRefund(t, clock)
	ctx, st := ctxT(t), f.env.Store
	gw.Fail(nil)
	const n = 12
	ids := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rf, err := st.RetryCardRefund(ctx, o.ID, "rf-down", gw)
			ids[i], errs[i] = rf.GatewayRefundID, err
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || ids[i] == "" || ids[i] != ids[0] {
			t.Fatalf("retry %d: %q %v (first %q)", i, ids[i], errs[i], ids[0])
		}
	}
	if n, sum := paytest.ProviderRefunds(t, f.env); n != 1 || sum != 1500 {
		t.Fatalf("the gateway refunded %d times, %d cents", n, sum)
	}
	d, err := st.OrderDetails(ctx, o.ID)
	if err != nil || d.Order.Refunded != eur(2000) || d.Order.RefundedCard != eur(1500) || d.Order.RefundedGiftCard != eur(500) {
		t.Fatalf("order after the retries: %+v %v", d.Order, err)
	}
	rf, err := st.OrderRefund(ctx, o.ID, "rf-down")
	if err != nil || rf.Status != store.RefundDone || rf.GatewayRefundID != ids[0] {
		t.Fatalf("refund after the retries: %+v %v", rf, err)
	}
	if list, err := st.PendingCardRefunds(ctx); err != nil || len(list) != 0 {
		t.Fatalf("still listed: %+v %v", list, err)
	}
}

// A receipt's refund the gateway did not answer is listed too; the retry
// finishes it with its mail, once, and takes it off the list.
func TestRefundReceiptPendingListedAndRetried(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 5, 18, 9, 0, 0, 0, time.UTC))
	ctx, st, gw := ctxT(t), f.env.Store, newLedgerRefunder(f)
	f.subscribe(t, "ada", 18, 1)
	rec := firstReceipt(t, f, "ada")
	gw.Fail(errBankDown)
	_, err := st.RefundReceipt(ctx, store.RefundRequest{CustomerID: "ada", Number: rec.Number, Amount: eur(500), Reason: "stale", By: "staff@x", Key: "k1"}, gw, refundMail)
	if err == nil {
		t.Fatal("a refund the gateway did not answer went through")
	}
	list, err := st.PendingCardRefunds(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("%+v %v", list, err)
	}
	if p := list[0]; !p.IsReceipt() || p.CustomerID != "ada" || p.Number != rec.Number || p.Amount != eur(500) || p.Tries.Count != 1 {
		t.Fatalf("listed %+v", p)
	}
	if r, err := st.RetryReceiptRefund(ctx, "ada", rec.Number, gw, refundMail); err == nil || r.Refund.CardTries.Count != 2 {
		t.Fatalf("retry while down: %+v %v", r.Refund, err)
	}
	gw.Fail(nil)
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := st.RetryReceiptRefund(ctx, "ada", rec.Number, gw, refundMail); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	r, err := st.Receipt(ctx, "ada", rec.Number)
	if err != nil || r.Refunded() != eur(500) {
		t.Fatalf("receipt after the retries: %+v %v", r.Refund, err)
	}
	if n, sum := gw.total(t); n != 1 || sum != 500 {
		t.Fatalf("the gateway refunded %d times, %d cents", n, sum)
	}
	if m := refundMails(t, st); len(m) != 1 {
		t.Fatalf("%d refund mails", len(m))
	}
	if list, err := st.PendingCardRefunds(ctx); err != nil || len(list) != 0 {
		t.Fatalf("still listed: %+v %v", list, err)
	}
}
