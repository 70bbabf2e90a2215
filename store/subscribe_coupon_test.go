package store_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/rules"
)

func (f billingFixture) code(t *testing.T, d store.DiscountCode) store.DiscountCode {
	t.Helper()
	if d.Kind == "" {
		d.Kind, d.Percent = store.DiscountPercent, 10
	}
	if d.ExpiresAt.IsZero() {
		d.ExpiresAt = f.clock.Now().AddDate(1, 0, 0)
	}
	if d.UsageLimit == 0 {
		d.UsageLimit = 5
	}
	d, err := f.env.Store.CreateDiscountCode(ctxT(t), d)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (f billingFixture) used(t *testing.T, code string) int {
	t.Helper()
	d, err := f.env.Store.DiscountCode(ctxT(t), code)
	if err != nil {
		t.Fatal(err)
	}
	return d.Used
}

// renew runs the payments job's steps for sub's due period on day.
func (f billingFixture) renew(t *testing.T, sub store.Subscription, day time.Time) (store.Subscription, store.Receipt) {
	t.Helper()
	ctx := ctxT(t)
	f.clock.Set(day.Add(7 * time.Hour))
	due, err := f.env.Store.RecordPaymentIntent(ctx, sub)
	if err != nil {
		t.Fatal(err)
	}
	charge, err := f.pay.Renew(ctx, due)
	if err != nil {
		t.Fatal(err)
	}
	next, r, err := f.env.Store.CompletePayment(ctx, due, charge, rules.DateOf(f.clock.Now(), time.UTC), nil)
	if err != nil {
		t.Fatal(err)
	}
	return next, r
}

// A code for the first two payments, attached on 28 November: its use is
// counted once, when attached; the first days (€1.29) and the payment of
// 1 December take 10 % off, each receipt saying so; the code expires
// meanwhile and still discounts the payment it covers; January pays the
// whole price and the code's use count never moved after attaching.
func TestSubscriptionCodeCoversItsFirstPaymentsAndCountsOneUse(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC))
	ctx := ctxT(t)
	tea := f.tea(t)
	f.code(t, store.DiscountCode{Code: "TEA10", Payments: 2, ExpiresAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)})
	d, err := f.env.Store.SubscribeCode(ctx, " tea10 ", "EUR")
	if err != nil {
		t.Fatal(err)
	}
	sub, first, err := f.pay.Subscribe(ctx, store.SubscribeRequest{Key: store.NewID(), CustomerID: "ada", Email: "ada@example.com",
		Product: tea, PaymentDay: 1, PeriodMonths: 1, Discount: &d})
	if err != nil {
		t.Fatal(err)
	}
	if first.Amount != eur(117) || first.DiscountCode != "TEA10" || first.Discount != eur(12) {
		t.Fatalf("first receipt %s, code %q off %s; want €1.17, TEA10 off €0.12", first.Amount, first.DiscountCode, first.Discount)
	}
	if sub.Coupon == nil || sub.Coupon.Code != "TEA10" || sub.Coupon.Left != 1 || sub.Coupon.Every {
		t.Fatalf("subscription's coupon %+v, want TEA10 with 1 payment left", sub.Coupon)
	}
	if n := f.used(t, "TEA10"); n != 1 {
		t.Fatalf("code used %d times, want 1", n)
	}
	back, err := f.env.Store.Receipt(ctx, "ada", first.Number)
	if err != nil || back.DiscountCode != "TEA10" || back.Discount != eur(12) {
		t.Fatalf("the receipt read back: %+v, %v", back, err)
	}

	dec, decReceipt := f.renew(t, sub, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	if _, err := f.env.Store.SubscribeCode(ctx, "TEA10", "EUR"); !errors.Is(err, store.ErrCodeExpired) {
		t.Fatalf("attaching the expired code: %v, want ErrCodeExpired", err)
	}
	if decReceipt.Amount != eur(1161) || decReceipt.DiscountCode != "TEA10" || decReceipt.Discount != eur(129) {
		t.Fatalf("December's receipt %s, code %q off %s; want €11.61, TEA10 off €1.29", decReceipt.Amount, decReceipt.DiscountCode, decReceipt.Discount)
	}
	if dec.Coupon != nil {
		t.Fatalf("after its last covered payment the coupon is %+v, want none", dec.Coupon)
	}
	stored, err := f.env.Store.SubscriptionConsistent(ctx, "ada", sub.ID)
	if err != nil || stored.Coupon != nil || stored.AmountFor(stored.NextPaymentDate) != eur(1290) {
		t.Fatalf("stored after December: %+v, %v", stored.Coupon, err)
	}
	_, jan := f.renew(t, dec, time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC))
	if jan.Amount != eur(1290) || jan.DiscountCode != "" || jan.Discount.Amount != 0 {
		t.Fatalf("January's receipt %s, code %q off %s; want €12.90 and no code", jan.Amount, jan.DiscountCode, jan.Discount)
	}
	if n := f.used(t, "TEA10"); n != 1 {
		t.Fatalf("code used %d times after the renewals, want 1", n)
	}
}

// A code for every payment keeps discounting after it expires.
func TestSubscriptionCodeForEveryPaymentOutlivesItsExpiry(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	ctx := ctxT(t)
	tea := f.tea(t)
	f.code(t, store.DiscountCode{Code: "FIVER", Kind: store.DiscountFixed, Amount: eur(500), ExpiresAt: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)})
	d, err := f.env.Store.SubscribeCode(ctx, "FIVER", "EUR")
	if err != nil {
		t.Fatal(err)
	}
	sub, first, err := f.pay.Subscribe(ctx, store.SubscribeRequest{Key: store.NewID(), CustomerID: "bo", Email: "bo@example.com",
		Product: tea, PaymentDay: 1, PeriodMonths: 1, Discount: &d})
	if err != nil {
		t.Fatal(err)
	}
	if first.Amount != eur(790) || first.Discount != eur(500) || sub.Coupon == nil || !sub.Coupon.Every {
		t.Fatalf("first %s off %s, coupon %+v", first.Amount, first.Discount, sub.Coupon)
	}
	for i, day := range []time.Time{time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC)} {
		var r store.Receipt
		sub, r = f.renew(t, sub, day)
		if r.Amount != eur(790) || r.DiscountCode != "FIVER" || sub.Coupon == nil {
			t.Fatalf("renewal %d: %s, code %q, coupon %+v", i+1, r.Amount, r.DiscountCode, sub.Coupon)
		}
	}
	if n := f.used(t, "FIVER"); n != 1 {
		t.Fatalf("code used %d times, want 1", n)
	}
}

// A code that cannot be attached is refused by field, nothing written.
func TestSubscribeCodeRefusals(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC))
	ctx := ctxT(t)
	f.code(t, store.DiscountCode{Code: "GONE", ExpiresAt: f.clock.Now().Add(-time.Hour)})
	spent := f.code(t, store.DiscountCode{Code: "SPENT", UsageLimit: 1})
	f.code(t, store.DiscountCode{Code: "DOLLARS", Kind: store.DiscountFixed, Amount: store.Money{Amount: 500, Currency: "USD"}})
	f.pay.Subscribe(ctx, store.SubscribeRequest{Key: store.NewID(), CustomerID: "cy", Email: "cy@example.com", Product: f.product,
		PaymentDay: 1, PeriodMonths: 1, Discount: &spent})
	for _, tc := range []struct {
		typed string
		want  error
	}{
		{"NOPE", store.ErrNotFound}, {"x", store.ErrBadCode}, {"gone", store.ErrCodeExpired}, {"SPENT", store.ErrCodeUsedUp},
		{"DOLLARS", store.ErrCodeCurrency},
	} {
		_, err := f.env.Store.SubscribeCode(ctx, tc.typed, "EUR")
		var ce *store.CodeError
		if !errors.Is(err, tc.want) || !errors.As(err, &ce) || ce.Field != "code" {
			t.Errorf("%s: %v, want %v on the code field", tc.typed, err, tc.want)
		}
	}
	if n := f.used(t, "GONE") + f.used(t, "DOLLARS"); n != 0 {
		t.Fatalf("refused codes counted %d uses", n)
	}
}

// The last use of a code, taken by eight subscribes at once: exactly one
// is pended with it, the others are refused (used up) with nothing
// written. The one that gets it then fails, reported twice at once: the
// use comes back exactly once.
func TestCodesLastUseGoesToOneOfManySubscribesAndComesBackOnce(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC))
	ctx := ctxT(t)
	d := f.code(t, store.DiscountCode{Code: "LAST1", UsageLimit: 1, Payments: 1})
	const n = 8
	var wg sync.WaitGroup
	pended := make([]store.PendingSubscribe, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			plan, err := f.env.Store.PlanSubscribe(store.SubscribeRequest{Key: store.NewID(), CustomerID: fmt.Sprintf("c%d", i),
				Email: "c@example.com", Product: f.product, PaymentDay: 1, PeriodMonths: 1, Discount: &d})
			if err != nil {
				errs[i] = err
				return
			}
			plan.Provider, plan.Session = "test", fmt.Sprintf("cs_%d", i)
			pended[i], errs[i] = f.env.Store.PendSubscribe(ctx, plan)
		}()
	}
	wg.Wait()
	var won []store.PendingSubscribe
	for i, err := range errs {
		var ce *store.CodeError
		switch {
		case err == nil:
			won = append(won, pended[i])
		case !errors.Is(err, store.ErrCodeUsedUp) || !errors.As(err, &ce) || ce.Field != "code":
			t.Errorf("subscribe %d: %v, want the code used up", i, err)
		}
	}
	if len(won) != 1 {
		t.Fatalf("%d subscribes got the last use, want 1", len(won))
	}
	if u := f.used(t, "LAST1"); u != 1 {
		t.Fatalf("code used %d times, want 1", u)
	}
	pending, err := f.env.Store.PendingSubscribes(ctx, f.clock.Now().Add(time.Hour), 100)
	if err != nil || len(pending) != 1 || pending[0].Coupon == nil || pending[0].Coupon.Code != "LAST1" {
		t.Fatalf("pending subscribes %+v, %v; want the one with the code", pending, err)
	}

	fails := make([]error, 2)
	for i := range fails {
		wg.Add(1)
		go func() { defer wg.Done(); fails[i] = f.env.Store.FailSubscribe(ctx, pending[0], "") }()
	}
	wg.Wait()
	ok := 0
	for _, err := range fails {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, store.ErrSubscribeSettled):
			t.Errorf("failing it: %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d fails applied, want 1", ok)
	}
	if u := f.used(t, "LAST1"); u != 0 {
		t.Fatalf("after the failed subscribe the code is used %d times, want 0", u)
	}
}
