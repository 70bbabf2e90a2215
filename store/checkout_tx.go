package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"shop/store/rules"
)

// maxTransactItems is DynamoDB's limit on the items of one transaction.
const maxTransactItems = 100

// placeAtOnce places an order the gift card and the discount code pay
// whole, with nothing left for a card (HoldCheckout's quote q): one
// TransactWriteItems writes everything: the checkout key's item (on
// condition the key is new), stock taken from each allocated warehouse on
// condition of enough stock, the gift card on condition of enough
// balance, the discount code's use counted on condition of its limit and
// expiry, the order, its items, its invoice, and the cart emptied of what
// was ordered (on condition it still holds it). The same key submitted
// again (or at once) returns the one order.
func (s *Store) placeAtOnce(ctx context.Context, req CheckoutRequest, q Quote) (Order, error) {
	if s.checkoutWrites(req, q) > maxTransactItems {
		return Order{}, ErrOrderTooLarge
	}
	listShards, err := s.lists.count(ctx, s)
	if err != nil {
		return Order{}, err
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	order, invoice := newOrder(req, q, NewID(), "", s.orderNumbers(), now)
	q, err = s.writeCheckout(ctx, req, q, &order, func(q Quote) ([]itemRole, error) {
		// The invoice's number is the next of its series, taken in the
		// order's transaction (books.go): another process taking it first
		// cancels the transaction, which is made again with the next.
		var roles []itemRole
		err := s.numbered(ctx, bookInvoices, order.ID, now, 1, func(book bookNumber) error {
			invoice.ID = book.String()
			tx, r, err := s.checkoutItems(req, q, order, invoice, book, now, listShards)
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
		return s.orderAfterFailedWrite(ctx, req, err)
	}
	s.markLowAfter(ctx, q)
	return order, nil
}

// orderAfterFailedWrite answers a checkout whose transaction did not
// write its order (nothing was paid yet): the order under its key after
// all (a twin's, or this very write's, its answer lost), or cause.
func (s *Store) orderAfterFailedWrite(ctx context.Context, req CheckoutRequest, cause error) (Order, error) {
	o, err := s.OrderForKey(context.WithoutCancel(ctx), req.Key, req.CustomerID)
	switch {
	case err == nil:
		return o, nil
	case errors.Is(err, ErrNotFound):
		return Order{}, cause
	}
	return Order{}, errors.Join(cause, err)
}

// explainCancel turns the reasons of a cancelled checkout into the error the
// customer sees; for stock it reads how many are left now.
func (s *Store) explainCancel(ctx context.Context, reasons []string, roles []itemRole) error {
	for i, r := range reasons {
		if r != reasonConditionFailed || i >= len(roles) {
			continue
		}
		switch role := roles[i]; role.kind {
		case "stock":
			levels, err := s.ProductStock(ctx, role.productID)
			if err != nil {
				return fmt.Errorf("read stock after a cancelled checkout: %w", err)
			}
			left := 0
			for _, l := range levels {
				left += max(l.Quantity, 0)
			}
			return &StockShortError{ProductID: role.productID, ProductName: role.name, Names: role.names, Wanted: role.wanted, Available: left}
		case "ticket":
			return fmt.Errorf("your ticket for %s was used in another order or has expired: %w", role.name, ErrTicketNotRedeemable)
		case "cart":
			return ErrCartChanged
		case "number":
			return errOrderNumberTaken
		case "giftcard":
			return &CodeError{Field: "giftcard", Err: ErrGiftCardChanged}
		case "discount":
			return &CodeError{Field: "discount", Err: ErrCodeUsedUp}
		}
	}
	return fmt.Errorf("checkout cancelled: %v: %w", reasons, ErrConflict)
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
// the gift card's payment; the card's is added once it is paid
// (cardPayment). Seeded past orders are made by it too (SeedOrder).
func newOrder(req CheckoutRequest, q Quote, orderID, invoiceID, number string, now time.Time) (Order, Invoice) {
	order := Order{
		ID: orderID, Number: number, CustomerID: req.CustomerID, Buyer: req.Buyer, PlacedAt: now, Status: OrderPlaced,
		Subtotal: q.Tender.Subtotal, Discount: q.Tender.Discount, Total: q.Tender.Total, Shipping: q.Tender.Shipping,
		ShipTo: req.ShipTo, Lines: len(q.Items),
	}
	if q.Zone != nil {
		order.ShippingDaysMin, order.ShippingDaysMax = q.Zone.DaysMin, q.Zone.DaysMax
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
func newInvoice(order Order, items []OrderItem, t rules.Tender, discountCode, giftCardCode, invoiceID string, at time.Time) Invoice {
	invoice := Invoice{ID: invoiceID, OrderID: order.ID, CustomerID: order.CustomerID, Buyer: order.Buyer, Date: at, Amount: t.Total, Discount: t.Discount,
		Shipping: t.Shipping, DiscountCode: discountCode}
	var taxed []rules.Taxed
	for _, it := range items {
		taxed = append(taxed, rules.Taxed{Rate: it.VATRate, Gross: it.LineTotal()})
	}
	invoice.VAT = WithShipping(rules.VATBreakdown(taxed, t.Discount), t.Shipping)
	if t.GiftCard.Amount > 0 {
		invoice.Payments = append(invoice.Payments, Payment{Type: "GiftCard", Amount: t.GiftCard, Reference: "gift card ••••" + last4(giftCardCode)})
		invoice.giftCardCode = giftCardCode
	}
	return invoice
}

// cardPayment is the invoice's payment by a card.
func cardPayment(card Card, amount Money, chargeID string) Payment {
	return Payment{Type: card.Brand, Amount: amount, Reference: chargeID + " · ••••" + card.Last4}
}

// checkoutWrites counts the items of an order's transaction: the checkout
// key, the order, its number, the invoice and its series' counter, the
// day's totals, the confirmation mail, the order.placed event (when a
// staff endpoint wants it), and what the order takes (takesWrites). At
// most 6 + 2 + 78 = 86 of DynamoDB's 100.
func (s *Store) checkoutWrites(req CheckoutRequest, q Quote) int {
	n := 6 // the key, the order, its number, its invoice, its number's counter, its day's totals
	if req.Confirmation != nil {
		n++ // the confirmation mail
	}
	if len(s.shopEndpoints(EventOrderPlaced)) > 0 {
		n++ // the event
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
