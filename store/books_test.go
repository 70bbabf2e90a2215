package store_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/payment"
	"shop/store/rules"
	"shop/store/storetest"
	"shop/store/storetest/paytest"
)

// gapless fails unless numbers are exactly prefix0001..prefixN of each
// series, once each.
func gapless(t *testing.T, what string, numbers []string, series map[string]int) {
	t.Helper()
	var want []string
	for prefix, n := range series {
		for i := 1; i <= n; i++ {
			want = append(want, fmt.Sprintf("%s%06d", prefix, i))
		}
	}
	slices.Sort(want)
	got := slices.Sorted(slices.Values(numbers))
	if !slices.Equal(got, want) {
		t.Fatalf("%s numbered\n%v\nwant\n%v", what, got, want)
	}
}

// bookCounter is the last number a series' counter gave.
func bookCounter(t *testing.T, env storetest.Env, pk string) string {
	t.Helper()
	out, err := env.Client.GetItem(ctxT(t), &dynamodb.GetItemInput{TableName: aws.String(env.Table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: "counter"}}})
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := out.Item["Last"].(*types.AttributeValueMemberN); ok {
		return n.Value
	}
	return ""
}

// Twenty customers race for eight units, with two processes' stores on one
// table (each with its own turns: the counter's condition settles between
// them), some with a card the provider's page declines: the orders'
// invoices are numbered 1 to N of the year, N the orders placed, none
// twice, none skipped, though twelve checkouts failed or were declined (a
// declined card's order stays held, with no number).
//
// Not parallel: see TestCheckoutLastTenUnitsRace.
func TestInvoiceNumbersHaveNoGapsUnderRacingCheckouts(t *testing.T) {
	f := newFixture(t, map[string][2]int{"few": {5, 3}}, 1500)
	ctx := ctxT(t)
	other := f.env.Patient() // another replica: its own turns, the same table
	payers := [2]*paytest.Payer{f.pay, paytest.New(t, other)}
	var declined [2]*paytest.Payer
	for i, p := range payers {
		d := *p
		d.Card = payment.CardForm{Number: payment.CardDeclined, Expiry: "12/99", CVC: "123"}
		declined[i] = &d
	}
	const buyers = 20
	var wg sync.WaitGroup
	orders := make([]store.Order, buyers)
	errs := make([]error, buyers)
	start := make(chan struct{})
	for i := range buyers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			req := request(fmt.Sprintf("key-%02d", i), fmt.Sprintf("cust-%02d", i), store.CheckoutLine{ProductID: "few", Quantity: 1})
			pay := payers[i%2]
			if i%10 == 9 {
				pay = declined[i%2]
			}
			orders[i], errs[i] = pay.Checkout(ctx, req)
		}()
	}
	close(start)
	wg.Wait()
	held := 0 // the declined cards' orders that got their units
	for i, err := range errs {
		if errors.Is(err, payment.ErrDeclined) {
			held++
			if invs := must(f.env.Store.OrderInvoices(ctx, must(f.env.Store.CustomerOrders(ctx, fmt.Sprintf("cust-%02d", i), 1, "")).Items[0].ID)); len(invs) != 0 {
				t.Fatalf("a declined card's order has invoices %v", invs)
			}
		}
	}
	var numbers []string
	for i, err := range errs {
		if err != nil {
			continue
		}
		d, err := f.env.Store.OrderDetails(ctx, orders[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		inv, ok := d.Invoice()
		if !ok {
			t.Fatalf("order %s has no invoice", orders[i].ID)
		}
		numbers = append(numbers, inv.ID)
		// Found by its number, as staff type it.
		if byID, err := f.env.Store.Invoice(ctx, inv.ID); err != nil || byID.OrderID != orders[i].ID {
			t.Fatalf("invoice %s: %+v, %v", inv.ID, byID, err)
		}
	}
	if len(numbers) != 8-held {
		t.Fatalf("%d orders placed, want %d (errors %v)", len(numbers), 8-held, errs)
	}
	year := time.Now().Year()
	gapless(t, "invoices", numbers, map[string]int{fmt.Sprintf("%d-", year): 8 - held})
	if got := bookCounter(t, f.env, fmt.Sprintf("books#invoice#%d", year)); got != fmt.Sprint(8-held) {
		t.Fatalf("the counter says %s, want %d", got, 8-held)
	}
}

// With two series, each numbers its own documents without a gap.
func TestInvoiceSeriesEachHaveNoGaps(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"p": {50, 50}}, 900, store.WithBookSeries([]string{"A", "B"}))
	ctx := ctxT(t)
	const buyers = 16
	var wg sync.WaitGroup
	numbers := make([]string, buyers)
	for i := range buyers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := request(fmt.Sprintf("k-%02d", i), fmt.Sprintf("c-%02d", i), store.CheckoutLine{ProductID: "p", Quantity: 1})
			o, err := f.pay.Checkout(ctx, req)
			if err != nil {
				t.Error(err)
				return
			}
			invs, err := f.env.Store.OrderInvoices(ctx, o.ID)
			if err != nil || len(invs) != 1 {
				t.Errorf("invoices of %s: %v, %v", o.ID, invs, err)
				return
			}
			numbers[i] = invs[0].ID
		}()
	}
	wg.Wait()
	year := time.Now().Year()
	perSeries := map[string]int{}
	for _, n := range numbers {
		perSeries[n[:len("A-2026-")]]++
	}
	if len(perSeries) != 2 || perSeries[fmt.Sprintf("A-%d-", year)]+perSeries[fmt.Sprintf("B-%d-", year)] != buyers {
		t.Fatalf("series used: %v", perSeries)
	}
	gapless(t, "invoices", numbers, perSeries)
}

// Twenty subscriptions at once, with twin submissions of one form and
// cards the provider's page declines among them: their first receipts are numbered 1 to N of
// the year, and so are the receipts the payment job then writes, at once.
func TestReceiptNumbersHaveNoGapsUnderRacingSubscribes(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 10, 8, 0, 0, 0, time.UTC)
	f := newBillingFixture(t, now)
	ctx := ctxT(t)
	pay := paytest.New(t, f.env.Store)
	declined := *pay
	declined.Card = payment.CardForm{Number: payment.CardDeclined, Expiry: "12/99", CVC: "123"}
	const customers = 20
	var wg sync.WaitGroup
	var mu sync.Mutex
	var numbers []string
	var subs []store.Subscription
	for i := range customers {
		for twin := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				payer := pay
				if i%5 == 4 {
					payer = &declined
				}
				sub, rec, err := payer.Subscribe(ctx, store.SubscribeRequest{
					Key: fmt.Sprintf("form-%02d", i), CustomerID: fmt.Sprintf("acc-%02d", i), Email: "a@example.com",
					Product: f.product, PaymentDay: 10, PeriodMonths: 1,
				})
				if i%5 == 4 {
					if err == nil {
						t.Errorf("customer %d: a declined card subscribed", i)
					}
					return
				}
				if err != nil {
					t.Errorf("customer %d twin %d: %v", i, twin, err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if rec.BookNumber != "" { // the twin that lost gets the subscription, not a receipt
					numbers = append(numbers, rec.BookNumber)
					subs = append(subs, sub)
				}
				if len(rec.VAT) > 0 && (rec.VAT[0].Rate != 1200 || rec.VAT[0].Gross != rec.Amount) {
					t.Errorf("receipt VAT %+v of %s", rec.VAT, rec.Amount)
				}
			}()
		}
	}
	wg.Wait()
	const paying = customers - customers/5
	if len(numbers) != paying {
		t.Fatalf("%d first receipts, want %d", len(numbers), paying)
	}
	gapless(t, "first receipts", numbers, map[string]int{"R2026-": paying})

	// The next period's payments, all at once, as the job's workers make them.
	f.clock.Set(time.Date(2026, 4, 10, 7, 0, 0, 0, time.UTC))
	today := rules.DateOf(f.clock.Now(), time.UTC)
	for _, sub := range subs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sub, err := f.env.Store.RecordPaymentIntent(ctx, sub)
			if err != nil {
				t.Error(err)
				return
			}
			charge := store.GatewayCharge{ID: "ch_" + sub.ID, Amount: sub.Amount(), At: f.clock.Now()}
			_, rec, err := f.env.Store.CompletePayment(ctx, sub, charge, today, nil)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			numbers = append(numbers, rec.BookNumber)
			mu.Unlock()
		}()
	}
	wg.Wait()
	gapless(t, "receipts", numbers, map[string]int{"R2026-": 2 * paying})
	// Read back as written.
	page, err := f.env.Store.RecentReceipts(ctx, subs[0].AccountID, 10, "")
	if err != nil || len(page.Items) != 2 || page.Items[0].BookNumber == "" || len(page.Items[0].VAT) != 1 {
		t.Fatalf("receipts read back: %+v, %v", page.Items, err)
	}
}

// What the invoice's number adds to placing a paid order: one item in its
// transaction (the counter), and one GetItem of the counter only when this
// process does not know the series' last number (its first invoice of the
// year, or after another process took one).
func TestInvoiceNumberCostsOneItemAndNoRequestOnceKnown(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string][2]int{"p": {10, -1}}, 900)
	ctx := ctxT(t)
	// checkout holds an order and pays its page, then counts what placing
	// it with that payment costs.
	checkout := func(key string) map[string]int {
		req := request(key, "c-"+key, store.CheckoutLine{ProductID: "p", Quantity: 1})
		req.HoldFor = 30 * time.Minute
		held := must(f.env.Store.HoldCheckout(ctx, req))
		res := must(f.pay.PayOnPage(ctx, held))
		f.env.Counter.Reset()
		if _, err := f.env.Store.PlaceHeldOrder(ctx, held.ID, res); err != nil {
			t.Fatal(err)
		}
		return f.env.Counter.Ops()
	}
	first, second := checkout("k1"), checkout("k2")
	t.Logf("first placing of the year: %v; the next: %v", first, second)
	if first["GetItem"] != second["GetItem"]+1 || first["TransactWriteItems"] != 1 || second["TransactWriteItems"] != 1 {
		t.Fatalf("first placing %v, second %v: want one GetItem more on the first, one transaction each", first, second)
	}
	// Another process takes a number: this one's next placing fails its
	// transaction once, reads the counter and takes the one after.
	elsewhere := store.New(f.env.Client, f.env.Table)
	req := request("k3", "c-k3", store.CheckoutLine{ProductID: "p", Quantity: 1})
	if _, err := paytest.New(t, elsewhere).Checkout(ctx, req); err != nil {
		t.Fatal(err)
	}
	after := checkout("k4")
	t.Logf("after another process's placing: %v", after)
	if after["TransactWriteItems"] != 2 || after["GetItem"] != second["GetItem"]+1 {
		t.Fatalf("after another process took a number: %v", after)
	}
	year := time.Now().Year()
	if got := bookCounter(t, f.env, fmt.Sprintf("books#invoice#%d", year)); got != "4" {
		t.Fatalf("counter %s, want 4", got)
	}
}
