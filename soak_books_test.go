package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
)

// The soak's books: what the soak left in the table, over everything
// since its start, read once the cluster is quiet (no order awaits its
// payment, every event the test provider made was delivered).

// soakOrders is every order since the start, as the books read it.
type soakOrders struct {
	details  map[string]store.OrderDetails
	byStatus map[store.OrderStatus]int
	released map[store.HoldReleaseReason]int // expired orders, by why their hold was released
	// taken: product|warehouse: the units the sold and held orders took.
	taken map[string]int
	// giftNet is what the gift card paid less its refunds; codeUses the
	// orders that used the code, codeBack the uses cancellations gave back.
	giftNet, codeUses, codeBack                         int64
	sold, fromSubscriptions, held, refunds, pendingCard int
}

// waitQuiet waits until no order awaits its payment (a hold lasts
// soakPaymentHold; one whose page never opened is released by the
// reconcile step) and every event the test provider made since start was
// delivered, and says how long that took.
func (r *soakRun) waitQuiet(t *testing.T, start time.Time, within time.Duration) time.Duration {
	t.Helper()
	began := time.Now()
	undelivered := expression.AttributeNotExists(expression.Name("DeliveredAt")).
		And(expression.Or(expression.AttributeNotExists(expression.Name("GaveUp")), expression.Name("GaveUp").Equal(expression.Value(false))))
	for {
		held, err := r.cl.st.HeldOrders(context.Background(), 10, "")
		if err != nil {
			t.Fatal(err)
		}
		events := soakScan(t, r.cl, "testPayEvent", "Created", start, undelivered)
		if len(held.Items) == 0 && len(events) == 0 {
			return time.Since(began)
		}
		if time.Since(began) > within {
			t.Fatalf("after %s, %d orders still await their payment and %d of the test provider's events are not delivered", within, len(held.Items), len(events))
		}
		time.Sleep(2 * time.Second)
	}
}

// checkBooks checks the books and gives a line for each.
func (r *soakRun) checkBooks(t *testing.T, start time.Time, stockBefore map[string]int, giftInitial store.Money, dropID string, seeded []store.Subscriber) []string {
	t.Helper()
	o := r.readOrders(t, start)
	lines := []string{fmt.Sprintf("orders: %d since the start: %d sold (%d of subscriptions, %d cancelled), %d still held, %d expired (released: %s); %d refunds (%d card parts pending)",
		len(o.details), o.sold, o.fromSubscriptions, o.byStatus[store.OrderCancelled], o.held, o.byStatus[store.OrderExpired],
		countsText(soakReasons(o.released)), o.refunds, o.pendingCard)}
	lines = append(lines, r.checkStock(t, start, stockBefore, o))
	lines = append(lines, r.checkCodeAndGift(t, o, giftInitial)...)
	receipts, line := r.checkReceipts(t, start, seeded)
	lines = append(lines, line)
	lines = append(lines, r.checkProvider(t, start, o, receipts)...)
	return append(lines, r.checkTickets(t, dropID))
}

func soakReasons(m map[store.HoldReleaseReason]int) map[string]int {
	out := map[string]int{}
	for k, n := range m {
		out[string(k)] = n
	}
	return out
}

// readOrders reads every order since the start: sold, held or expired.
// The sold ones took stock and paid with the gift card and the code as
// their invoices say; a held one took its stock, its code's use and its
// gift card's part (what the card is not to pay) already; an expired one
// gave all back.
func (r *soakRun) readOrders(t *testing.T, start time.Time) soakOrders {
	t.Helper()
	ctx := context.Background()
	o := soakOrders{details: map[string]store.OrderDetails{}, byStatus: map[store.OrderStatus]int{},
		released: map[store.HoldReleaseReason]int{}, taken: map[string]int{}}
	for _, pk := range soakScan(t, r.cl, "order", "Date", start) {
		d, err := r.cl.st.OrderDetails(ctx, strings.TrimPrefix(pk, "o#"))
		if err != nil {
			t.Fatal(err)
		}
		id := d.Order.ID
		o.details[id] = d
		o.byStatus[d.Order.Status]++
		o.refunds += len(d.Refunds)
		for _, rf := range d.Refunds {
			if rf.Card.Amount > 0 && rf.Status != store.RefundDone {
				o.pendingCard++
			}
		}
		switch d.Order.Status {
		case store.OrderExpired:
			if d.Order.Hold != nil {
				o.released[d.Order.Hold.Reason]++
			}
			continue
		case store.OrderAwaitingPayment:
			o.held++
			if d.Order.Discount.Amount > 0 {
				o.codeUses++
			}
			o.giftNet += d.Order.Total.Amount - d.Order.Hold.Card.Amount
		default:
			o.sold++
			o.readSold(t, d)
		}
		for _, it := range d.Items {
			for _, a := range it.Allocations {
				o.taken[it.ProductID+"|"+a.WarehouseID] += a.Quantity
			}
		}
	}
	return o
}

// readSold adds a sold order's invoice and refunds to the books.
func (o *soakOrders) readSold(t *testing.T, d store.OrderDetails) {
	if d.Order.FromSubscription() {
		o.fromSubscriptions++
	} else if len(d.Invoices) == 0 {
		t.Errorf("order %s has no invoice", d.Order.ID)
	}
	withCode := false
	for _, inv := range d.Invoices {
		withCode = withCode || inv.DiscountCode == soakCode
		for _, p := range inv.Payments {
			if p.Type == "GiftCard" {
				o.giftNet += p.Amount.Amount // its refunds are payments below zero
			}
		}
	}
	if withCode {
		o.codeUses++
		for _, rf := range d.Refunds {
			if rf.Cancel {
				o.codeBack++
			}
		}
	}
}

// checkStock: what was there, less what the sold and held orders took,
// plus what refunds and returns put back (the warehouses' adjustment logs
// since the start), is what is there, per level. An expired order's units
// went back where they came from, with no log.
func (r *soakRun) checkStock(t *testing.T, start time.Time, stockBefore map[string]int, o soakOrders) string {
	t.Helper()
	ctx := context.Background()
	st := r.cl.st
	adjusted := map[string]int{}
	warehouses := map[string]bool{}
	for key := range stockBefore {
		_, w, _ := strings.Cut(key, "|")
		warehouses[w] = true
	}
	for w := range warehouses {
		for cursor := ""; ; {
			page, err := st.StockAdjustments(ctx, w, 100, cursor)
			if err != nil {
				t.Fatal(err)
			}
			old := false
			for _, a := range page.Items {
				if a.At.Before(start) {
					old = true
					break
				}
				adjusted[a.ProductID+"|"+w] += a.Delta
			}
			if cursor = page.Next; cursor == "" || old {
				break
			}
		}
	}
	var sold, back int
	for _, key := range sortedKeys(stockBefore) {
		product, warehouse, _ := strings.Cut(key, "|")
		levels, err := st.ProductStock(ctx, product)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range levels {
			if l.WarehouseID != warehouse {
				continue
			}
			sold += o.taken[key]
			back += adjusted[key]
			if l.Quantity < 0 || stockBefore[key] != l.Quantity+o.taken[key]-adjusted[key] {
				t.Errorf("stock of %s in %s: %d before, %d left, %d taken by orders, %d put back", product, warehouse, stockBefore[key], l.Quantity, o.taken[key], adjusted[key])
			}
		}
	}
	return fmt.Sprintf("stock of %d levels: before = left + %d taken by sold and held orders − %d put back by refunds and returns, each (expired orders' units back where they were)",
		len(stockBefore), sold, back)
}

// checkCodeAndGift: the code's uses are the orders that used it, less the
// uses cancellations gave back, within its limit; what the gift card lost
// is its payments less their refunds, and the parts held orders took; an
// expired order gave its use and its part back.
func (r *soakRun) checkCodeAndGift(t *testing.T, o soakOrders, giftInitial store.Money) []string {
	t.Helper()
	ctx := context.Background()
	code, err := r.cl.st.DiscountCode(ctx, soakCode)
	if err != nil {
		t.Fatal(err)
	}
	if int64(code.Used) != o.codeUses-o.codeBack || code.Used > code.UsageLimit {
		t.Errorf("code %s: used %d of %d, orders used it %d times, cancellations gave back %d", soakCode, code.Used, code.UsageLimit, o.codeUses, o.codeBack)
	}
	gift, err := r.cl.st.GiftCard(ctx, soakGiftCard)
	if err != nil {
		t.Fatal(err)
	}
	if gift.Balance.Amount < 0 || giftInitial.Amount-gift.Balance.Amount != o.giftNet {
		t.Errorf("gift card: %s of %s left, the orders' payments less refunds %d", gift.Balance, giftInitial, o.giftNet)
	}
	return []string{
		fmt.Sprintf("code %s: used %d of %d = %d sold or held orders − %d given back by cancellations (expired orders gave theirs back)",
			soakCode, code.Used, code.UsageLimit, o.codeUses, o.codeBack),
		fmt.Sprintf("gift card: %s of %s left = the invoices' gift card payments less their refunds, and held orders' parts (%s)",
			gift.Balance, giftInitial, store.Money{Amount: o.giftNet, Currency: giftInitial.Currency}),
	}
}

// checkReceipts: receipts since the start, each period paid once, and each
// subscription seeded due charged exactly once. It gives the receipts by
// their payment.
func (r *soakRun) checkReceipts(t *testing.T, start time.Time, seeded []store.Subscriber) (map[string]store.Receipt, string) {
	t.Helper()
	st := r.cl.st
	receiptOf := map[string]store.Receipt{}
	periods := map[string]int{}
	months := map[string]bool{}
	for _, m := range []store.Month{st.MonthOfBooks(start), st.MonthOfBooks(time.Now())} {
		if months[m.String()] {
			continue
		}
		months[m.String()] = true
		rs, err := st.ReceiptsOfMonth(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		for _, rc := range rs {
			if rc.ProcessedAt.Before(start) {
				continue
			}
			receiptOf[rc.ChargeID] = rc
			periods[rc.SubscriptionID+" "+store.FormatDate(rc.PeriodStart)]++
		}
	}
	twice := 0
	for k, n := range periods {
		if n > 1 {
			twice++
			t.Errorf("subscription period %s: %d receipts", k, n)
		}
	}
	if wrong := r.cl.chargedOnce(t, seeded); wrong > 0 {
		t.Errorf("%d of the %d subscriptions seeded due were not charged exactly once", wrong, len(seeded))
	}
	return receiptOf, fmt.Sprintf("subscriptions: %d receipts since the start, %d periods paid twice; %d seeded due, each charged exactly once",
		len(receiptOf), twice, len(seeded))
}

// checkTickets: the drop's count is its tickets, never above its
// quantity, and every client answered with a ticket holds one.
func (r *soakRun) checkTickets(t *testing.T, dropID string) string {
	t.Helper()
	ctx := context.Background()
	d, err := r.cl.st.DropConsistent(ctx, dropID)
	if err != nil {
		t.Fatal(err)
	}
	var tickets []store.Ticket
	for cursor := ""; ; {
		page, err := r.cl.st.DropTickets(ctx, dropID, 1000, cursor)
		if err != nil {
			t.Fatal(err)
		}
		tickets = append(tickets, page.Items...)
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	if d.Claimed != len(tickets) || d.Claimed > d.Quantity || len(r.tickets) != len(tickets) {
		t.Errorf("drop of %d: %d claimed, %d tickets in the table, %d clients answered with one", d.Quantity, d.Claimed, len(tickets), len(r.tickets))
	}
	return fmt.Sprintf("tickets: drop of %d, %d claimed = %d tickets in the table = %d clients answered with one", d.Quantity, d.Claimed, len(tickets), len(r.tickets))
}

// soakScan gives the keys (PK) of the items of an entity whose time
// attribute at is since or later, and that meet more. Only tests scan.
func soakScan(t *testing.T, cl *clusterRun, entity, at string, since time.Time, more ...expression.ConditionBuilder) []string {
	t.Helper()
	filter := expression.Name("EntityType").Equal(expression.Value(entity)).
		And(expression.Name(at).GreaterThanEqual(expression.Value(since.UTC().Format("2006-01-02T15:04:05.000Z07:00"))))
	for _, c := range more {
		filter = filter.And(c)
	}
	expr, err := expression.NewBuilder().WithFilter(filter).WithProjection(expression.NamesList(expression.Name("PK"))).Build()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	p := dynamodb.NewScanPaginator(cl.db, &dynamodb.ScanInput{TableName: aws.String(cl.st.Table()), FilterExpression: expr.Filter(),
		ProjectionExpression: expr.Projection(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			if pk, ok := it["PK"].(*types.AttributeValueMemberS); ok {
				out = append(out, pk.Value)
			}
		}
	}
	return out
}
