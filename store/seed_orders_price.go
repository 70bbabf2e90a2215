package store

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"shop/store/rules"
)

// PastCardPayment is how a past order's card part was paid: the card
// provider that took it ("test") and its payment's id there (pi_test_…).
type PastCardPayment struct{ Provider, Ref string }

// PastCardPayer takes a past order's card part (amount) at a card
// provider, as its buyer paid it on the provider's page when it was
// placed (the demo's history: the test provider). It is called for the
// orders not written yet, a few at once, and must give one order one
// payment however often it is called (a load cut short and run again).
type PastCardPayer func(ctx context.Context, o PastOrder, amount Money) (PastCardPayment, error)

// pastQuote is a past order priced: the checkout it stands for and its
// quote, at the time it was placed.
type pastQuote struct {
	req    CheckoutRequest
	q      Quote
	placed time.Time
}

// pricePastOrders prices each past order (oldest first, numbered) as
// QuoteCheckout would, from the codes as they stand in gifts and codes,
// which it spends.
func pricePastOrders(orders []PastOrder, numbers []string, gifts map[string]*GiftCard, codes map[string]*DiscountCode) ([]pastQuote, error) {
	quotes := make([]pastQuote, len(orders))
	for i, o := range orders {
		o.Number = numbers[i]
		pq, err := pricePastOrder(o, gifts, codes)
		if err != nil {
			return nil, err
		}
		quotes[i] = pq
	}
	return quotes, nil
}

// payPastOrders takes the card part of each past order not written yet
// (not taken) through pay, four at once; none without pay.
func payPastOrders(ctx context.Context, orders []PastOrder, numbers []string, quotes []pastQuote, taken map[string]bool, pay PastCardPayer) ([]PastCardPayment, error) {
	paid := make([]PastCardPayment, len(orders))
	if pay == nil {
		return paid, nil
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for i, o := range orders {
		amount := quotes[i].q.Tender.Card
		if taken[numbers[i]] || amount.Amount <= 0 {
			continue
		}
		o.Number = numbers[i]
		g.Go(func() error {
			p, err := pay(gctx, o, amount)
			switch {
			case err != nil:
				return fmt.Errorf("seed order %s: its card payment: %w", o.Number, err)
			case p.Provider == "" || p.Ref == "":
				return fmt.Errorf("seed order %s: its card payment names no provider or payment: %+v", o.Number, p)
			}
			paid[i] = p
			return nil
		})
	}
	return paid, g.Wait()
}

// pricePastOrder prices a past order as QuoteCheckout would (the codes as
// they stand in gifts and codes, which it spends).
func pricePastOrder(p PastOrder, gifts map[string]*GiftCard, codes map[string]*DiscountCode) (pastQuote, error) {
	switch {
	case !ValidID(p.CustomerID):
		return pastQuote{}, fmt.Errorf("seed order %s: customer %q", p.Number, p.CustomerID)
	case len(p.Items) == 0:
		return pastQuote{}, fmt.Errorf("seed order %s: %w", p.Number, ErrEmptyOrder)
	case len(p.Items) > MaxCartLines:
		return pastQuote{}, fmt.Errorf("seed order %s: %w", p.Number, ErrCartFull)
	}
	placed := p.PlacedAt.UTC().Truncate(time.Millisecond)
	req := CheckoutRequest{
		Key: NewIDAt(placed), CustomerID: p.CustomerID, Buyer: p.Buyer, ShipTo: p.ShipTo,
		DiscountCode: p.DiscountCode, GiftCardCode: p.GiftCardCode,
	}
	var q Quote
	subtotal := Money{Currency: p.Items[0].Price.Currency}
	for _, it := range p.Items {
		allocated := 0
		for _, a := range it.Allocations {
			allocated += a.Quantity
		}
		switch {
		case !ValidID(it.ProductID) || it.DropID != "":
			return pastQuote{}, fmt.Errorf("seed order %s: product %q", p.Number, it.ProductID)
		case it.Quantity < 1 || it.Quantity > MaxLineQty || allocated != it.Quantity || len(it.Allocations) > MaxLineWarehouses:
			return pastQuote{}, fmt.Errorf("seed order %s: %d of %s allocated as %v", p.Number, it.Quantity, it.ProductID, it.Allocations)
		case it.Price.Currency != subtotal.Currency:
			return pastQuote{}, fmt.Errorf("seed order %s: %w", p.Number, ErrMixedCurrency)
		}
		it.CustomerID = p.CustomerID
		q.Items = append(q.Items, it)
		req.Lines = append(req.Lines, CheckoutLine{ProductID: it.ProductID, Quantity: it.Quantity})
		subtotal.Amount += it.LineTotal().Amount
	}
	off, balance := Money{Currency: subtotal.Currency}, Money{Currency: subtotal.Currency}
	var gift *GiftCard
	var code *DiscountCode
	if p.DiscountCode != "" {
		code = codes[p.DiscountCode]
		if code == nil {
			return pastQuote{}, fmt.Errorf("seed order %s: discount %s: %w", p.Number, p.DiscountCode, ErrNotFound)
		}
		if err := code.Usable(placed); err != nil {
			return pastQuote{}, fmt.Errorf("seed order %s: discount %s: %w", p.Number, code.Code, err)
		}
		d := *code
		q.Discount, off = &d, d.Off(subtotal)
	}
	if p.GiftCardCode != "" {
		gift = gifts[p.GiftCardCode]
		if gift == nil {
			return pastQuote{}, fmt.Errorf("seed order %s: gift card %s: %w", p.Number, p.GiftCardCode, ErrNotFound)
		}
		if gift.Balance.Amount <= 0 {
			return pastQuote{}, fmt.Errorf("seed order %s: gift card %s: %w", p.Number, gift.Code, ErrGiftCardUsed)
		}
		g := *gift
		q.GiftCard, balance = &g, g.Balance
	}
	q.Tender = rules.SplitTender(subtotal, off, Money{Currency: subtotal.Currency}, balance)
	if q.Tender.Card.Amount > 0 && p.Card == nil {
		return pastQuote{}, fmt.Errorf("seed order %s: %w", p.Number, errCardRequired)
	}
	if code != nil {
		code.Used++
	}
	if gift != nil {
		gift.Balance.Amount -= q.Tender.GiftCard.Amount
	}
	return pastQuote{req: req, q: q, placed: placed}, nil
}
