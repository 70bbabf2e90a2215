package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// maxTransactItems is DynamoDB's limit on the items of one transaction.
const maxTransactItems = 100

// Checkout places an order. If a card pays, the intent to charge it is
// written first (the checkout key's item, status charging, see
// recordIntent), then the card is charged (once per charge key), then one
// TransactWriteItems writes everything: the key's item as placed (on
// condition it still holds this attempt's intent; without a card, on
// condition the key is new), stock taken from each allocated warehouse on
// condition of enough stock, the gift card on condition of enough balance,
// the discount code's use counted on condition of its limit and expiry, the
// order, its items, its invoice, and the cart emptied of what was ordered
// (on condition it still holds it). If the write fails the charge is voided
// (see failCheckout), unless a twin submission with the same key placed the
// order with that same charge. The same key submitted again (or at once)
// returns the one order; a process that dies after the charge leaves the
// intent charging for SettleCheckoutIntent.
func (s *Store) Checkout(ctx context.Context, req CheckoutRequest, charger Charger) (Order, error) {
	if !ValidID(req.Key) || len(req.Key) > 36 {
		return Order{}, ErrBadCheckoutKey
	}
	// Whatever the outcome, this replica's window shows the stock anew.
	touched := make([]string, 0, len(req.Lines))
	for _, l := range req.Lines {
		touched = append(touched, l.ProductID)
	}
	defer s.forgetStock(touched...)
	cur, found, err := s.checkoutKeyItem(ctx, req.Key)
	if err != nil {
		return Order{}, err
	}
	return s.checkout(ctx, req, charger, cur, found)
}

// checkout is Checkout once the key's item is read (cur, if found).
func (s *Store) checkout(ctx context.Context, req CheckoutRequest, charger Charger, cur idempotencyRecord, found bool) (Order, error) {
	if found && (cur.CustomerID != req.CustomerID || cur.status() == CheckoutPlaced) {
		return s.placedOrder(ctx, cur, true, req.CustomerID) // a double submit, or someone else's key
	}
	var q Quote
	var err error
	if req.Quote != nil {
		q = *req.Quote
	} else if q, err = s.QuoteCheckout(ctx, req); err != nil {
		return Order{}, err
	}
	if req.ExpectTotal != nil && q.Tender.Total != *req.ExpectTotal {
		return Order{}, ErrTotalChanged
	}
	if q.Tender.Card.Amount > 0 && req.Card == nil {
		return Order{}, ErrCardRequired
	}
	if checkoutWrites(req, q) > maxTransactItems {
		return Order{}, ErrOrderTooLarge // found before any charge
	}
	listShards, err := s.lists.count(ctx, s)
	if err != nil {
		return Order{}, err
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	order, invoice := newOrder(req, q, NewID(), "", s.orderNumbers(), now)
	var intent *idempotencyRecord
	var chargeID string
	if q.Tender.Card.Amount > 0 {
		var prev *idempotencyRecord
		if found {
			prev = &cur
		}
		rec, placed, err := s.recordIntent(ctx, req, prev, q.Tender.Card)
		if placed != nil || err != nil {
			return orderOrZero(placed), err // a twin placed it meanwhile, or no intent: nothing charged
		}
		intent = &rec
		// A decline leaves the intent charging, with nothing in the ledger:
		// the next try of this form overwrites it. A charge whose answer
		// was lost is found by SettleCheckoutIntent.
		chargeID, err = charger.Charge(ctx, req.Card.Token, q.Tender.Card, rec.ChargeKey)
		if err != nil {
			return Order{}, fmt.Errorf("charge card: %w", err)
		}
		invoice.Payments = append(invoice.Payments, cardPayment(*req.Card, q.Tender.Card, chargeID))
	}
	fail := func(cause error) (Order, error) {
		return s.failCheckout(ctx, charger, req, intent, chargeID, cause)
	}

	q, err = s.writeCheckout(ctx, req, q, &order, func(q Quote) ([]itemRole, error) {
		// The invoice's number is the next of its series, taken in the
		// order's transaction (books.go): another process taking it first
		// cancels the transaction, which is made again with the next.
		var roles []itemRole
		err := s.numbered(ctx, bookInvoices, order.ID, now, 1, func(book bookNumber) error {
			invoice.ID = book.String()
			tx, r, err := s.checkoutItems(req, q, order, invoice, book, intent, chargeID, now, listShards)
			if err != nil {
				return err
			}
			roles = r
			err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx})
			if reasons := cancellationReasons(err); reasons != nil && reasons[0] != reasonConditionFailed &&
				bookNumberTaken(err, slices.IndexFunc(roles, func(r itemRole) bool { return r.kind == "books" })) {
				return errBookNumberTaken
			}
			return err
		})
		return roles, err
	})
	if err != nil {
		return fail(err)
	}
	s.markLowAfter(ctx, q)
	return order, nil
}

// writeCheckout runs write, which makes an order's transaction of q (its
// checkout key's item first) and says what each item guards, and makes it
// again while its failure can be mended: an order number taken meanwhile
// is drawn again, and a stock condition that failed because the allocation
// was read before a warehouse ran out while another still has enough is
// read and allocated afresh, a few times, before telling the customer. It
// returns the quote the transaction was made of, or why there is no order
// (for the caller's fail).
func (s *Store) writeCheckout(ctx context.Context, req CheckoutRequest, q Quote, order *Order, write func(Quote) ([]itemRole, error)) (Quote, error) {
	for attempt := 1; ; attempt++ {
		roles, err := write(q)
		if err == nil {
			return q, nil
		}
		reasons := cancellationReasons(err)
		if reasons == nil {
			return q, fmt.Errorf("place order: %w", err) // outcome unknown: the key tells
		}
		if reasons[0] == reasonConditionFailed {
			return q, fmt.Errorf("checkout key used meanwhile: %w", ErrConflict) // finds the twin's order
		}
		cause := s.explainCancel(ctx, reasons, roles)
		if errors.Is(cause, errOrderNumberTaken) && attempt < 3 {
			order.Number = s.orderNumbers() // drawn again: one in hundreds of millions
			continue
		}
		var short *StockShortError
		if !errors.As(cause, &short) {
			return q, cause
		}
		if attempt == 3 {
			if short.Available >= short.Wanted {
				// There is enough, but it kept moving under us.
				return q, fmt.Errorf("stock of %s kept changing while ordering; try again: %w", short.ProductName, ErrConflict)
			}
			return q, cause
		}
		again, err := s.QuoteCheckout(ctx, req)
		if err != nil {
			return q, err
		}
		if again.Tender != q.Tender {
			return q, ErrTotalChanged
		}
		q = again
	}
}

// newOrder is the order a checkout of q places at now, and its invoice with
// the gift card's payment; the card's is added once it is charged
// (cardPayment). Seeded past orders are made by it too (SeedOrder).
func newOrder(req CheckoutRequest, q Quote, orderID, invoiceID, number string, now time.Time) (Order, Invoice) {
	order := Order{
		ID: orderID, Number: number, CustomerID: req.CustomerID, Buyer: req.Buyer, PlacedAt: now, Status: OrderPlaced,
		Subtotal: q.Tender.Subtotal, Discount: q.Tender.Discount, Total: q.Tender.Total,
		ShipTo: req.ShipTo, Lines: len(q.Items),
	}
	discountCode, giftCardCode := "", ""
	if q.Discount != nil {
		discountCode = q.Discount.Code
	}
	if q.GiftCard != nil {
		giftCardCode = q.GiftCard.Code
	}
	return order, newInvoice(order, q.Items, q.Tender, discountCode, giftCardCode, invoiceID, now)
}

// newInvoice is the invoice of order dated at, with its VAT per rate and
// the gift card's payment; a card's is added by the caller. A checkout
// makes it with its order, a held order's payment when it places it.
func newInvoice(order Order, items []OrderItem, t Tender, discountCode, giftCardCode, invoiceID string, at time.Time) Invoice {
	invoice := Invoice{ID: invoiceID, OrderID: order.ID, CustomerID: order.CustomerID, Buyer: order.Buyer, Date: at, Amount: t.Total, Discount: t.Discount,
		DiscountCode: discountCode}
	var taxed []Taxed
	for _, it := range items {
		taxed = append(taxed, Taxed{Rate: it.VATRate, Gross: it.LineTotal()})
	}
	invoice.VAT = VATBreakdown(taxed, t.Discount)
	if t.GiftCard.Amount > 0 {
		invoice.Payments = append(invoice.Payments, Payment{Type: "GiftCard", Amount: t.GiftCard, Reference: "gift card ••••" + last4(giftCardCode)})
		invoice.giftCardCode = giftCardCode
	}
	return invoice
}

// cardPayment is the invoice's payment by a charged card.
func cardPayment(card Card, amount Money, chargeID string) Payment {
	return Payment{Type: card.Brand, Amount: amount, Reference: chargeID + " · ••••" + card.Last4}
}

func orderOrZero(o *Order) Order {
	if o == nil {
		return Order{}
	}
	return *o
}

// checkoutWrites counts the items of an order's transaction: the checkout
// key, the order, its number, the invoice and its series' counter, the
// day's totals, the confirmation mail, and what the order takes
// (takesWrites). At most 6 + 1 + 78 = 85 of DynamoDB's 100.
func checkoutWrites(req CheckoutRequest, q Quote) int {
	n := 6 // the key, the order, its number, its invoice, its number's counter, its day's totals
	if req.Confirmation != nil {
		n++ // the confirmation mail
	}
	return n + takesWrites(req, q)
}

// takesWrites counts what an order takes (checkoutTakes): per line its
// item and its stock decrements (at most MaxLineWarehouses), or a ticket
// line's redemption (at most one per order, within the 15 lines), the
// cart, and the gift card and discount code. At most 15 × (1 + 4) + 1 + 2
// = 78.
func takesWrites(req CheckoutRequest, q Quote) int {
	n := 0
	for _, it := range q.Items {
		if it.DropID != "" {
			n += 2 // its item and the ticket's redemption; no stock taken
			continue
		}
		n += 1 + len(it.Allocations)
	}
	if req.CartOwner != "" {
		n++
	}
	if q.Tender.GiftCard.Amount > 0 {
		n++
	}
	if q.Discount != nil {
		n++
	}
	return n
}
