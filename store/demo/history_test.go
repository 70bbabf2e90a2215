package demo_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/crypto/bcrypt"

	"shop/store"
	"shop/store/demo"
	"shop/store/payment"
	"shop/store/rules"
	"shop/store/storetest"
)

// loadDemo loads the demo shop in the shop's zone into a table of the
// test's own and says how long it took.
func loadDemo(t *testing.T) storetest.Env {
	t.Helper()
	env := storetest.New(t, store.WithTimeZone(stockholm(t)))
	fillDemo(t, env)
	return env
}

// sharedDemo is the demo shop for a test that only reads it: loaded once
// per test binary (storetest.Shared says what such a test may not do).
func sharedDemo(t *testing.T) storetest.Env {
	t.Helper()
	return storetest.Shared(t, "demo", fillDemo, store.WithTimeZone(stockholm(t)))
}

func fillDemo(t testing.TB, env storetest.Env) {
	t.Helper()
	start := time.Now()
	if loaded, err := demo.Load(context.Background(), env.Store, bcrypt.MinCost); err != nil || !loaded {
		t.Fatalf("load: %v, %v", loaded, err)
	}
	t.Logf("the demo shop loaded in %s, %d DynamoDB requests", time.Since(start).Round(time.Millisecond), env.Counter.Total())
}

func stockholm(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// Every code in the README's table does at checkout what the table says.
func TestDemoCodesWorkAtCheckout(t *testing.T) {
	env := loadDemo(t)
	ctx := context.Background()
	quote := func(discount, gift string) (store.Quote, error) {
		return env.Store.QuoteCheckout(ctx, store.CheckoutRequest{
			Lines:        []store.CheckoutLine{{ProductID: "kt-kettle", Quantity: 2}}, // €89.80
			DiscountCode: discount, GiftCardCode: gift,
		})
	}
	for _, tc := range []struct {
		discount, gift string
		off, giftPays  int64
		err            error
	}{
		{discount: demo.DiscountTenPercent, off: 898},
		{discount: demo.DiscountFiveEuros, off: 500},
		{discount: demo.DiscountExpired, err: store.ErrCodeExpired},
		{discount: demo.DiscountUsedUp, err: store.ErrCodeUsedUp},
		{gift: demo.GiftCardBalance, giftPays: 5000},
		{gift: demo.GiftCardSpent, err: store.ErrGiftCardUsed},
		{discount: demo.DiscountTenPercent, gift: demo.GiftCardBalance, off: 898, giftPays: 5000},
	} {
		q, err := quote(tc.discount, tc.gift)
		var codeErr *store.CodeError
		switch {
		case tc.err != nil:
			if !errors.As(err, &codeErr) || !errors.Is(err, tc.err) {
				t.Errorf("%s%s: %v, want %v", tc.discount, tc.gift, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s%s: %v", tc.discount, tc.gift, err)
		case q.Tender.Subtotal.Amount != 8980 || q.Tender.Discount.Amount != tc.off || q.Tender.GiftCard.Amount != tc.giftPays ||
			q.Tender.Card.Amount != 8980-tc.off-tc.giftPays:
			t.Errorf("%s%s: %+v, want %d off and %d from the gift card", tc.discount, tc.gift, q.Tender, tc.off, tc.giftPays)
		}
	}
}

// The history: orders on nearly every one of the last 60 days in the
// shop's zone, from many customers (Ada among them), further along the
// older they are, and books that balance: each order's lines, discount,
// invoice and payments agree; the test provider's ledger holds each card
// payment; each code's use and balance is what the invoices say; shipments
// hold what was ordered; no stock below zero.
func TestDemoHistory(t *testing.T) {
	env := sharedDemo(t)
	ctx := context.Background()
	st := env.Store
	now, loc := time.Now(), st.Location()
	today := st.Today()

	days, customers := map[string]int{}, map[string]bool{}
	statuses := map[store.OrderStatus]int{}
	var orders []store.Order
	from := today.AddDate(0, 0, -demo.HistoryDays)
	for cursor := ""; ; {
		page, err := st.OrdersBetween(ctx, from, now.Add(time.Minute), 100, cursor)
		if err != nil {
			t.Fatal(err)
		}
		orders = append(orders, page.Items...)
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	if len(orders) < 80 {
		t.Fatalf("%d orders in the last %d days", len(orders), demo.HistoryDays)
	}
	refundedOrders, refundedSum := 0, int64(0)
	cardPaid := map[string]int64{}        // charge id -> amount
	giftSpent := map[string]int64{}       // last four of the code -> amount
	codeUses := map[string]int{}          // discount code -> invoices
	taken := map[string]map[string]bool{} // product -> warehouses it left from
	for _, o := range orders {
		days[o.PlacedAt.In(loc).Format("2006-01-02")]++
		customers[o.CustomerID] = true
		statuses[o.Status]++
		if o.PlacedAt.After(now) || o.PlacedAt.Before(from) {
			t.Errorf("order %s placed %s", o.Number, o.PlacedAt)
		}
		// Delivered after five days in the shop's zone; the last two days'
		// orders wait to be shipped.
		daysAgo := int(today.Sub(rules.DateOf(o.PlacedAt, loc)).Hours()+12) / 24
		if (o.Status == store.OrderDelivered) != (daysAgo >= 5) || (daysAgo <= 1 && o.Status != store.OrderPlaced) {
			t.Errorf("order %s placed %d days ago is %s", o.Number, daysAgo, o.Status)
		}
		d, err := st.OrderDetails(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		inv, ok := d.Invoice()
		subtotal, quantities := int64(0), map[string]int{}
		for _, it := range d.Items {
			subtotal += it.LineTotal().Amount
			quantities[it.ProductID] += it.Quantity
			for _, a := range it.Allocations {
				if taken[it.ProductID] == nil {
					taken[it.ProductID] = map[string]bool{}
				}
				taken[it.ProductID][a.WarehouseID] = true
			}
		}
		paid, refunded := int64(0), int64(0)
		for _, p := range inv.Payments {
			if p.IsRefund() {
				refunded -= p.Amount.Amount // the demo's refund: its order's sums tell
				continue
			}
			paid += p.Amount.Amount
			if p.Type == "GiftCard" {
				_, end, _ := strings.Cut(p.Reference, "••••")
				giftSpent[end] += p.Amount.Amount
			} else {
				cardPaid[strings.Fields(p.Reference)[0]] += p.Amount.Amount
				if p.Provider != payment.ProviderTest {
					t.Errorf("order %s: card payment %+v not the test provider's", o.Number, p)
				}
			}
		}
		if inv.DiscountCode != "" {
			codeUses[inv.DiscountCode]++
		}
		if refunded > 0 {
			refundedOrders++
			refundedSum += refunded
		}
		if refunded != o.Refunded.Amount {
			t.Errorf("order %s: refunds on the invoice %d, on the order %v", o.Number, refunded, o.Refunded)
		}
		if !ok || len(d.Items) != o.Lines || o.Subtotal.Amount != subtotal || o.Total.Amount != subtotal-o.Discount.Amount ||
			inv.Amount != o.Total || inv.Discount != o.Discount || paid != o.Total.Amount || o.Number == "" {
			t.Errorf("order %s: %+v, invoice %+v, lines %d of %d: the books do not agree", o.Number, o, inv, len(d.Items), subtotal)
		}
		shipped := map[string]int{}
		for _, sh := range d.Shipments {
			if sh.CreatedAt.Before(o.PlacedAt) || (!sh.ShippedAt.IsZero() && sh.ShippedAt.Before(sh.CreatedAt)) ||
				(!sh.DeliveredAt.IsZero() && sh.DeliveredAt.Before(sh.ShippedAt)) || sh.DeliveredAt.After(now) {
				t.Errorf("order %s placed %s: shipment %+v", o.Number, o.PlacedAt, sh)
			}
			for _, si := range sh.Items {
				shipped[si.ProductID] += si.Quantity
			}
		}
		if len(d.Shipments) > 0 && len(shipped) != len(quantities) {
			t.Errorf("order %s ships %v of %v", o.Number, shipped, quantities)
		}
		for p, n := range shipped {
			if quantities[p] != n {
				t.Errorf("order %s ships %v of %v", o.Number, shipped, quantities)
			}
		}
	}
	if len(days) < demo.HistoryDays*3/4 || len(customers) < 10 || statuses[store.OrderPlaced] == 0 ||
		statuses[store.OrderShipped] == 0 || statuses[store.OrderDelivered] < len(orders)/2 {
		t.Errorf("%d orders on %d days by %d customers, by status %v", len(orders), len(days), len(customers), statuses)
	}
	t.Logf("%d orders on %d days by %d customers, by status %v", len(orders), len(days), len(customers), statuses)
	if refundedOrders != 1 {
		t.Errorf("%d demo orders refunded, want Ada's one", refundedOrders)
	}

	// The test provider's ledger holds every card payment, at its amount,
	// paid on its page; the legacy gateway's holds none. Their events were
	// delivered when they were made: none is due.
	if n := len(scanEntities(t, env, "gatewayCharge")); n != 0 {
		t.Errorf("%d charges in the legacy gateway's ledger", n)
	}
	providerRefunded := int64(0)
	for ref, amount := range cardPaid {
		pi, err := st.TestPayIntent(ctx, ref)
		if err != nil || pi.Status != payment.PaymentSucceeded || pi.Amount.Amount != amount || pi.SessionID == "" || pi.Card == nil || pi.Card.Last4 != "4242" {
			t.Errorf("payment %s of %d at the test provider: %+v, %v", ref, amount, pi, err)
		}
		providerRefunded += pi.Refunded.Amount
	}
	if providerRefunded != refundedSum || refundedSum == 0 {
		t.Errorf("the test provider refunded %d of the orders' payments, their invoices %d", providerRefunded, refundedSum)
	}
	if events, _, err := st.TestPayDue(ctx, 10); err != nil || len(events) != 0 {
		t.Errorf("%d of the test provider's events due after the load (%v)", len(events), err)
	}
	// Each code: its uses and balance are the invoices'.
	for _, code := range []string{demo.DiscountTenPercent, demo.DiscountFiveEuros, demo.DiscountExpired, demo.DiscountUsedUp} {
		d, err := st.DiscountCode(ctx, code)
		if err != nil {
			t.Fatal(err)
		}
		if d.Used != codeUses[code] || d.Used == 0 {
			t.Errorf("%s used %d times, on %d invoices", code, d.Used, codeUses[code])
		}
	}
	for _, code := range []string{demo.GiftCardBalance, demo.GiftCardSpent} {
		g, err := st.GiftCard(ctx, code)
		if err != nil {
			t.Fatal(err)
		}
		if spent := giftSpent[code[len(code)-4:]]; g.Initial.Amount-g.Balance.Amount != spent || g.Balance.Amount < 0 {
			t.Errorf("gift card %s: %s of %s left, invoices spent %d", code, g.Balance, g.Initial, spent)
		}
	}
	// Every line left from a warehouse that stocks its product; no stock
	// below zero.
	for product, from := range taken {
		levels, err := st.ProductStock(ctx, product)
		if err != nil {
			t.Fatal(err)
		}
		held := map[string]bool{}
		for _, l := range levels {
			held[l.WarehouseID] = true
			if l.Quantity < 0 {
				t.Errorf("stock of %s in %s: %d", product, l.WarehouseID, l.Quantity)
			}
		}
		for w := range from {
			if !held[w] {
				t.Errorf("%s left from %s, which does not stock it", product, w)
			}
		}
	}
	// Ada, who can sign in, has a few orders at different stages.
	cred, err := st.CredentialsByEmail(ctx, demo.CustomerEmail)
	if err != nil {
		t.Fatal(err)
	}
	ada, err := st.CustomerOrders(ctx, cred.CustomerID, 50, "")
	if err != nil {
		t.Fatal(err)
	}
	adaStatuses := map[store.OrderStatus]bool{}
	for _, o := range ada.Items {
		adaStatuses[o.Status] = true
	}
	if len(ada.Items) < 4 || !adaStatuses[store.OrderPlaced] || !adaStatuses[store.OrderDelivered] {
		t.Errorf("Ada has %d orders, statuses %v", len(ada.Items), adaStatuses)
	}
}

// A second load writes nothing; a load cut short before its history was
// marked done writes none of the orders again and leaves the codes as
// they were.
func TestDemoLoadsOnce(t *testing.T) {
	env := loadDemo(t)
	ctx := context.Background()
	items := len(env.Items(t))
	t.Logf("the demo shop is %d items", items)
	env.Counter.Reset()
	if loaded, err := demo.Load(ctx, env.Store, bcrypt.MinCost); err != nil || loaded {
		t.Fatalf("second load: %v, %v", loaded, err)
	}
	if ops := env.Counter.Ops(); ops["BatchWriteItem"]+ops["PutItem"]+ops["TransactWriteItems"]+ops["UpdateItem"] != 0 {
		t.Errorf("a second load wrote: %v", ops)
	}
	if n := len(env.Items(t)); n != items {
		t.Errorf("%d items after a second load, %d before", n, items)
	}

	code := func() store.GiftCard {
		g, err := env.Store.GiftCard(ctx, demo.GiftCardSpent)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	before := code()
	orders := len(scanEntities(t, env, "order"))
	_, err := env.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(env.Table), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "meta"}, "SK": &types.AttributeValueMemberS{Value: "marker#demo-history-v1"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := demo.Load(ctx, env.Store, bcrypt.MinCost); err != nil {
		t.Fatal(err)
	}
	if n := len(scanEntities(t, env, "order")); n != orders {
		t.Errorf("%d orders after loading the history again, %d before", n, orders)
	}
	if after := code(); after != before {
		t.Errorf("gift card after loading the history again: %+v, before %+v", after, before)
	}
}

// scanEntities reads every item of one EntityType; only tests scan.
func scanEntities(t *testing.T, env storetest.Env, entity string) []map[string]types.AttributeValue {
	t.Helper()
	expr, err := expression.NewBuilder().WithFilter(expression.Name("EntityType").Equal(expression.Value(entity))).Build()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]types.AttributeValue
	p := dynamodb.NewScanPaginator(env.Client, &dynamodb.ScanInput{TableName: aws.String(env.Table), FilterExpression: expr.Filter(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Items...)
	}
	return out
}
