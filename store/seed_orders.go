package store

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// PastOrder is an order placed before the shop's data was loaded (the
// demo's history): who, when, where to, each line with its unit price and
// the warehouses it left from, how it was paid, and how far staff got
// shipping it (zero times: not yet).
type PastOrder struct {
	Number       string // "FF-7K3Q92"
	CustomerID   string
	Buyer        Buyer // the customer's name and email, as the order keeps them
	PlacedAt     time.Time
	ShipTo       Address
	Items        []OrderItem // product, name, unit price, quantity, allocations
	DiscountCode string      // normalized, or ""
	GiftCardCode string      // normalized, or ""
	Card         *Card       // pays what the gift card does not
	ShippingType string
	// ShipmentsAt is when staff made its shipments (one per warehouse),
	// ShippedAt when they all left, DeliveredAt when they all arrived.
	ShipmentsAt, ShippedAt, DeliveredAt time.Time
	// Carrier and Tracking are what it shipped with (Tracking is given a
	// shipment's index, so each parcel has its own number), By the staff
	// member who shipped and delivered it.
	Carrier  string
	Tracking func(parcel int) string
	By       Customer
}

// SeedOrders writes past orders as checkouts and staff's shipping left them,
// in batches of 25 writes (a checkout is a transaction each; a history of
// months loads in seconds this way): per order the items of its checkout's
// transaction as checkoutItems builds them (the order in its month's list
// shard, its number, items and invoice), the card's charge in the gateway's
// ledger, and its shipments and their items as CreateShipments and
// AdvanceShipment leave them. The codes are given as they stood before the
// first order and written as the orders leave them (balance spent, uses
// counted). Stock is not touched: the caller's stock levels are what the
// orders left. The checkout key's item, kept a day, is left out.
//
// An order whose number is taken is there already (a load cut short and
// run again) and is not written again; the codes are written whole, so a
// second run leaves them as the first did. It returns how many orders it
// wrote.
func (s *Store) SeedOrders(ctx context.Context, orders []PastOrder, giftCards []GiftCard, discounts []DiscountCode) (int, error) {
	return s.SeedPaidOrders(ctx, orders, giftCards, discounts, nil)
}

// SeedPaidOrders is SeedOrders whose orders' card parts were paid at a
// card provider: pay takes each one there (the orders not written yet,
// four at once, before anything is written), and the invoice's card
// payment names the provider and its payment, as a payment placing a held
// order does; nothing goes into the legacy gateway's ledger. A nil pay is
// SeedOrders.
func (s *Store) SeedPaidOrders(ctx context.Context, orders []PastOrder, giftCards []GiftCard, discounts []DiscountCode, pay PastCardPayer) (int, error) {
	orders = slices.Clone(orders)
	slices.SortStableFunc(orders, func(a, b PastOrder) int { return a.PlacedAt.Compare(b.PlacedAt) })
	gifts := map[string]*GiftCard{}
	for _, g := range giftCards {
		gifts[g.Code] = &g
	}
	codes := map[string]*DiscountCode{}
	for _, d := range discounts {
		codes[d.Code] = &d
	}
	listShards, err := s.lists.count(ctx, s)
	if err != nil {
		return 0, err
	}
	numbers, err := pastOrderNumbers(orders)
	if err != nil {
		return 0, err
	}
	taken, err := s.takenOrderNumbers(ctx, numbers)
	if err != nil {
		return 0, err
	}
	// The invoices of the orders not there yet take the next numbers of
	// their series in the order they were placed.
	ids := make([]string, len(orders))
	books := make([]bookNumber, len(orders))
	for i, o := range orders {
		ids[i] = NewIDAt(o.PlacedAt.UTC().Truncate(time.Millisecond))
	}
	if err := s.numberPastInvoices(ctx, orders, ids, numbers, taken, books); err != nil {
		return 0, err
	}
	quotes, err := pricePastOrders(orders, numbers, gifts, codes)
	if err != nil {
		return 0, err
	}
	paid, err := payPastOrders(ctx, orders, numbers, quotes, taken, pay)
	if err != nil {
		return 0, err
	}
	var items []map[string]types.AttributeValue
	var counted []Order
	written := 0
	for i, o := range orders {
		o.Number = numbers[i]
		if taken[o.Number] {
			continue // its codes' use is counted all the same (pricePastOrders)
		}
		recs, placed, err := s.pastOrderItems(o, quotes[i], ids[i], books[i], paid[i], listShards)
		if err != nil {
			return 0, err
		}
		items = append(items, recs...)
		counted = append(counted, placed)
		written++
	}
	codeItems, err := pastCodeItems(giftCards, discounts, gifts, codes)
	if err != nil {
		return 0, err
	}
	items = append(items, codeItems...)
	if err := s.writePastItems(ctx, items); err != nil {
		return 0, fmt.Errorf("seed orders: %w", err)
	}
	if err := s.countPastOrders(ctx, counted, listShards); err != nil {
		return 0, fmt.Errorf("seed orders: count them in their days: %w", err)
	}
	return written, nil
}

// pastOrderNumbers are the orders' numbers as the shop keeps them.
func pastOrderNumbers(orders []PastOrder) ([]string, error) {
	numbers := make([]string, len(orders))
	for i, o := range orders {
		n, ok := ParseOrderNumber(o.Number)
		if !ok {
			return nil, fmt.Errorf("seed order %q: not an order number", o.Number)
		}
		numbers[i] = n
	}
	return numbers, nil
}

// writePastItems writes the seeded items in batches, a few batches at
// once: DynamoDB takes them in parallel.
func (s *Store) writePastItems(ctx context.Context, items []map[string]types.AttributeValue) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for batch := range slices.Chunk(items, batchWriteSize) {
		writes := make([]types.WriteRequest, len(batch))
		for i, it := range batch {
			writes[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
		}
		g.Go(func() error { return s.batchWrite(gctx, writes) })
	}
	return g.Wait()
}

// countPastOrders puts each order into its day's totals: one transaction
// an order, on condition it is not counted yet, so a second run counts
// none twice.
func (s *Store) countPastOrders(ctx context.Context, orders []Order, listShards int) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for _, o := range orders {
		g.Go(func() error { return s.countOlderOrder(gctx, o, listShards) })
	}
	return g.Wait()
}

// pastCodeItems are the codes' items as the past orders left them (gifts
// and codes, by code, spent by pricePastOrders).
func pastCodeItems(giftCards []GiftCard, discounts []DiscountCode, gifts map[string]*GiftCard, codes map[string]*DiscountCode) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	for _, g := range giftCards {
		item, err := attributevalue.MarshalMap(newGiftCardRecord(*gifts[g.Code]))
		if err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	for _, d := range discounts {
		item, err := attributevalue.MarshalMap(newDiscountRecord(*codes[d.Code]))
		if err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	return items, nil
}

// numberPastInvoices gives the invoices of the past orders not yet written
// (not taken) the next numbers of their series and years, in the order
// they were placed, and takes those numbers from the counters: one
// consistent GetItem per counter, then one transaction moving each from
// the number read, so a checkout meanwhile fails it rather than share a
// number. A load cut short after it leaves those numbers unused (the
// demo's history is loaded once per table).
func (s *Store) numberPastInvoices(ctx context.Context, orders []PastOrder, ids, numbers []string, taken map[string]bool, books []bookNumber) error {
	type series struct {
		name string
		year int
	}
	next := map[series]*bookNumber{}
	var order []series
	for i, o := range orders {
		if taken[numbers[i]] {
			continue
		}
		k := series{s.seriesOf(ids[i]), o.PlacedAt.In(s.loc).Year()}
		n, ok := next[k]
		if !ok {
			first, err := s.nextBookNumbers(ctx, bookInvoices, ids[i], o.PlacedAt, 0)
			if err != nil {
				return err
			}
			n = &first
			next[k] = n
			order = append(order, k)
		}
		books[i] = *n
		books[i].seq, books[i].count = n.seq+n.count, 1
		n.count++
	}
	if len(order) == 0 {
		return nil
	}
	var tx []types.TransactWriteItem
	for _, k := range order {
		w, err := s.bookCounterWrite(*next[k])
		if err != nil {
			return err
		}
		tx = append(tx, w)
	}
	err := s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx})
	s.forgetBookNumbers()
	if err != nil {
		return fmt.Errorf("seed orders: number their invoices: %w", err)
	}
	return nil
}

// takenOrderNumbers reads which of the numbers name an order: BatchGetItem,
// 100 keys a request.
func (s *Store) takenOrderNumbers(ctx context.Context, numbers []string) (map[string]bool, error) {
	var keys []map[string]types.AttributeValue
	seen := map[string]bool{}
	for _, n := range numbers {
		if !seen[n] {
			seen[n] = true
			keys = append(keys, itemKey(orderNumberKey(n), orderNumberKey(n)))
		}
	}
	taken := map[string]bool{}
	err := s.batchGet(ctx, keys, true, func(it map[string]types.AttributeValue) error {
		var r orderNumberRecord
		if err := attributevalue.UnmarshalMap(it, &r); err != nil {
			return err
		}
		taken[trimPrefix(r.PK, prefixOrderNo)] = true
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read order numbers: %w", err)
	}
	return taken, nil
}

// pastOrderItems returns the items a past order's checkout's
// transaction (as priced: pricePastOrder), its card payment and its
// shipping would have written: the card's payment as paid at its provider
// (paid), or, without one, a charge in the legacy test gateway's ledger.
func (s *Store) pastOrderItems(p PastOrder, pq pastQuote, orderID string, book bookNumber, paid PastCardPayment, listShards int) ([]map[string]types.AttributeValue, Order, error) {
	req, q, placed := pq.req, pq.q, pq.placed
	order, invoice := newOrder(req, q, orderID, book.String(), p.Number, placed)
	recs, err := pastCardPayment(p, pq, &invoice, paid)
	if err != nil {
		return nil, Order{}, err
	}
	shipments := pastShipments(p, order.ID, q.Items)
	switch {
	case !p.DeliveredAt.IsZero():
		order.Status = OrderDelivered
	case !p.ShippedAt.IsZero():
		order.Status = OrderShipped
	case len(shipments) > 0:
		order.Status = OrderShipping
	}
	tx, roles, err := s.checkoutItems(req, q, order, invoice, book, placed, listShards)
	if err != nil {
		return nil, Order{}, err
	}
	items, err := pastCheckoutItems(p, tx, roles)
	if err != nil {
		return nil, Order{}, err
	}
	recs = append(recs, s.pastShipmentRecords(p, order, shipments, listShards)...)
	for _, r := range recs {
		item, err := attributevalue.MarshalMap(r)
		if err != nil {
			return nil, Order{}, err
		}
		items = append(items, item)
	}
	return items, order, nil
}

// pastCardPayment adds a past order's card part to its invoice: as the
// provider that took it (paid) names it, or else as the test gateway
// charged it, whose ledger then gets the charge's record (returned).
func pastCardPayment(p PastOrder, pq pastQuote, invoice *Invoice, paid PastCardPayment) (ledger []any, err error) {
	req, q, placed := pq.req, pq.q, pq.placed
	switch {
	case q.Tender.Card.Amount > 0 && paid.Ref != "":
		card := cardPayment(*p.Card, q.Tender.Card, paid.Ref)
		card.Provider = paid.Provider
		invoice.Payments = append(invoice.Payments, card)
	case q.Tender.Card.Amount > 0:
		// The test gateway's charge id, from the charge's time.
		var b [12]byte
		binary.BigEndian.PutUint64(b[:8], uint64(placed.UnixMilli())<<16)
		if _, err := rand.Read(b[6:]); err != nil {
			return nil, err
		}
		chargeID := "ch_" + hex.EncodeToString(b[:])
		invoice.Payments = append(invoice.Payments, cardPayment(*p.Card, q.Tender.Card, chargeID))
		ledger = append(ledger, gatewayChargeRecord{
			PK: gatewayChargeKey("checkout-" + req.Key), SK: sortKeyCharge, EntityType: entityGatewayCharge,
			ChargeID: chargeID, Token: p.Card.Token, Last4: p.Card.Last4, Amount: q.Tender.Card.Amount, Currency: q.Tender.Card.Currency,
			At: timestamp(placed), Outcome: "ok", GSI1PK: gatewayIDKey(chargeID), GSI1SK: gatewayIDKey(chargeID),
		})
	}
	return ledger, nil
}

// pastCheckoutItems are the items of a past order's checkout transaction
// (tx, with each item's role) that SeedOrders writes as they are; a write
// it does not know of is an error, so a new one is not left out unseen.
func pastCheckoutItems(p PastOrder, tx []types.TransactWriteItem, roles []itemRole) ([]map[string]types.AttributeValue, error) {
	var items []map[string]types.AttributeValue
	for i, w := range tx {
		switch {
		case i == 0:
			// The checkout key's item: kept a day, long gone.
		case w.Put != nil:
			delete(w.Put.Item, "DayCounted") // not yet: SeedOrders counts it after
			items = append(items, w.Put.Item)
		case w.Update != nil && (roles[i].kind == "stock" || roles[i].kind == "giftcard" || roles[i].kind == "discount"):
			// Stock is what the caller loaded; codes are written at the end.
		case w.Update != nil && roles[i].kind == "day-totals":
			// A day's totals are added to once the orders are in (countOlderOrder).
		case w.Update != nil && roles[i].kind == "books":
			// The numbers were taken from the counters before (numberPastInvoices).
		default:
			return nil, fmt.Errorf("seed order %s: the checkout writes an item SeedOrders does not (role %q): teach it", p.Number, roles[i].kind)
		}
	}
	return items, nil
}
