package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"

	"shop/store/rules"
)

// MaxLineWarehouses is how many warehouses one order line may leave from:
// with the cart's MaxCartLines it bounds a checkout's transaction (see
// checkoutWrites). A line the allocator would split further is allocated
// from the MaxLineWarehouses warehouses holding most of it; what they cannot
// fill is refused like missing stock, with how many one order can take.
const MaxLineWarehouses = 4

// Quote is what a checkout would take: the lines priced and allocated, the
// codes read, the tender split.
type Quote struct {
	Items    []OrderItem
	Tender   rules.Tender
	Discount *DiscountCode
	GiftCard *GiftCard
	// Zone delivers to the address's country (its rate is Tender.Shipping);
	// nil when none does, or no country was given. Zones are all the
	// shop's: none, and delivery is free to anywhere.
	Zone  *ShippingZone
	Zones []ShippingZone
	// taken are the stock levels the order takes from, and whether each
	// is left under its threshold as read: the checkout then puts them on
	// or off the low-stock list.
	taken []stockTaken
}

// stockTaken is one product's stock in one warehouse an order takes from.
type stockTaken struct {
	productID, warehouseID string
	leftLow                bool
}

// CodeError is a problem with a discount code or gift card, by field. Its
// Err is a refusal (ErrCodeExpired, or one that says "no such gift card"
// over ErrNotFound): the CodeError says it at its field.
type CodeError struct {
	Field string // "discount", "giftcard", or the subscribe form's "code"
	Err   error
}

func (e *CodeError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *CodeError) Unwrap() error { return e.Err }

// Refusal is Err's refusal at the code's field; nil if Err is none.
func (e *CodeError) Refusal() *Refusal {
	r, ok := RefusalOf(e.Err)
	if !ok {
		return nil
	}
	at := *r
	at.Field, at.Words, at.Err = e.Field, e.Error(), e.Err
	return &at
}

// QuoteCheckout reads the products, stock and codes of a checkout and works
// out allocation and payment, writing nothing: one Query per line (product
// and stock together), one GetItem per code and one Query of the shipping
// zones, all at once.
func (s *Store) QuoteCheckout(ctx context.Context, req CheckoutRequest) (Quote, error) {
	if err := checkCheckoutLines(req.Lines); err != nil {
		return Quote{}, err
	}
	r, err := s.readCheckout(ctx, req)
	if err != nil {
		return Quote{}, err
	}
	var lines []allocationLine
	subtotal := Money{Currency: r.price(req.Lines, 0).Currency}
	for i, l := range req.Lines {
		p := r.products[i]
		if r.price(req.Lines, i).Currency != subtotal.Currency {
			return Quote{}, ErrMixedCurrency
		}
		if l.DropID == "" {
			lines = append(lines, allocationLine{ProductID: p.ID, ProductName: p.Name, Names: p.Names(), Quantity: l.Quantity, Stock: r.stock[i]})
		}
		subtotal.Amount += r.price(req.Lines, i).Amount * int64(l.Quantity)
	}
	var allocations [][]Allocation
	if len(lines) > 0 {
		if allocations, err = allocateOrder(lines); err != nil {
			return Quote{}, err
		}
	}
	q := Quote{Discount: r.discount, GiftCard: r.gift}
	s.quoteItems(&q, req, r, allocations)
	if err := q.quoteTender(r.zones, req.ShipTo.Country, subtotal); err != nil {
		return Quote{}, err
	}
	return q, nil
}

// checkCheckoutLines refuses a checkout's lines before anything is read:
// none or too many, a quantity out of bounds, a line twice, or more than
// the one ticket of one unit an order may redeem.
func checkCheckoutLines(lines []CheckoutLine) error {
	if len(lines) == 0 {
		return ErrEmptyOrder
	}
	if len(lines) > MaxCartLines {
		return ErrCartFull
	}
	seen := map[string]bool{}
	tickets := 0
	for _, l := range lines {
		if l.Quantity < 1 || l.Quantity > MaxLineQty {
			return ErrBadQty
		}
		key := cartLineKey(l.ProductID, l.DropID)
		if seen[key] {
			return fmt.Errorf("product %s twice in one order", key)
		}
		seen[key] = true
		if l.DropID != "" {
			// One ticket line per order keeps the transaction's bound (one
			// more item, the ticket's redemption).
			if tickets++; tickets > 1 {
				return ErrOneTicketPerOrder
			}
			if l.Quantity != 1 || !ValidID(l.DropID) {
				return fmt.Errorf("a ticket buys one unit: %w", ErrTicketNotRedeemable)
			}
		}
	}
	return nil
}

// checkoutRead is what a quote reads: per line its product, stock and
// (for a ticket) drop; the shipping zones; the codes given, if usable.
type checkoutRead struct {
	products []Product
	drops    []Drop
	stock    [][]StockLevel
	zones    []ShippingZone
	gift     *GiftCard
	discount *DiscountCode
}

// price is what line i costs a unit: a ticket line its drop's price (it
// takes no stock: its unit was set aside when the drop was made), any
// other its product's.
func (r checkoutRead) price(lines []CheckoutLine, i int) Money {
	if lines[i].DropID != "" {
		return r.drops[i].Price
	}
	return r.products[i].Price
}

// readCheckout reads what a quote of req needs, all at once.
func (s *Store) readCheckout(ctx context.Context, req CheckoutRequest) (checkoutRead, error) {
	r := checkoutRead{
		products: make([]Product, len(req.Lines)),
		drops:    make([]Drop, len(req.Lines)),
		stock:    make([][]StockLevel, len(req.Lines)),
	}
	g, gctx := errgroup.WithContext(ctx)
	for i, l := range req.Lines {
		g.Go(func() error {
			if !ValidID(l.ProductID) {
				return &StockShortError{ProductID: l.ProductID, ProductName: "A product in your cart", Wanted: l.Quantity}
			}
			p, st, err := s.ProductWithStock(gctx, l.ProductID)
			if errors.Is(err, ErrNotFound) {
				return &StockShortError{ProductID: l.ProductID, ProductName: "A product in your cart", Wanted: l.Quantity}
			}
			r.products[i], r.stock[i] = p, st
			if err == nil && l.DropID != "" {
				r.drops[i], err = s.ticketForCheckout(gctx, l, req.CustomerID)
			}
			return err
		})
	}
	g.Go(func() error {
		var err error
		r.zones, err = s.ShippingZones(gctx)
		return err
	})
	if req.GiftCardCode != "" {
		g.Go(func() error {
			var err error
			r.gift, err = s.checkoutGiftCard(gctx, req.GiftCardCode)
			return err
		})
	}
	if req.DiscountCode != "" {
		g.Go(func() error {
			var err error
			r.discount, err = s.checkoutDiscount(gctx, req.DiscountCode)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return checkoutRead{}, err
	}
	return r, nil
}

// checkoutGiftCard is the gift card of code, refused by field when there
// is none or nothing is left on it.
func (s *Store) checkoutGiftCard(ctx context.Context, code string) (*GiftCard, error) {
	gc, err := s.GiftCard(ctx, code)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, &CodeError{Field: "giftcard", Err: ErrUnknownGiftCard}
	case err != nil:
		return nil, err
	case gc.Balance.Amount <= 0:
		return nil, &CodeError{Field: "giftcard", Err: ErrGiftCardUsed}
	}
	return &gc, nil
}

// checkoutDiscount is the discount code of code, refused by field when
// there is none or it cannot be used now.
func (s *Store) checkoutDiscount(ctx context.Context, code string) (*DiscountCode, error) {
	dc, err := s.DiscountCode(ctx, code)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, &CodeError{Field: "discount", Err: ErrUnknownDiscount}
	case err != nil:
		return nil, err
	}
	if err := dc.Usable(s.now()); err != nil {
		return nil, &CodeError{Field: "discount", Err: err}
	}
	return &dc, nil
}

// quoteItems makes q's order lines, priced, with the allocations of the
// lines that take stock (in order), and notes the stock levels they take
// from and whether each is left low.
func (s *Store) quoteItems(q *Quote, req CheckoutRequest, r checkoutRead, allocations [][]Allocation) {
	for i, l := range req.Lines {
		it := OrderItem{
			CustomerID: req.CustomerID, ProductID: l.ProductID, ProductName: r.products[i].Name, Names: r.products[i].Names(),
			Price: r.price(req.Lines, i), Quantity: l.Quantity, VATRate: s.vat.Of(r.products[i].Category),
		}
		if l.DropID != "" {
			// Shipped from where the drop's units were set aside (taking
			// no stock: the drop took it when it was made).
			it.DropID, it.redeemWithin = l.DropID, r.drops[i].RedeemWithin
			if w := r.drops[i].shipFrom(); w != "" {
				it.Allocations = []Allocation{{WarehouseID: w, Quantity: 1}}
			}
		} else {
			it.Allocations, allocations = allocations[0], allocations[1:]
			for _, a := range it.Allocations {
				low := true
				if at := slices.IndexFunc(r.stock[i], func(l StockLevel) bool { return l.WarehouseID == a.WarehouseID }); at >= 0 {
					low = r.stock[i][at].Quantity-a.Quantity < r.stock[i][at].LowStockAt()
				}
				q.taken = append(q.taken, stockTaken{l.ProductID, a.WarehouseID, low})
			}
		}
		q.Items = append(q.Items, it)
	}
}

// quoteTender works out what q pays and how: the discount off subtotal,
// delivery to country, and the gift card's balance first; a code in
// another currency than the order is refused by field.
func (q *Quote) quoteTender(zones []ShippingZone, country string, subtotal Money) error {
	off := Money{Currency: subtotal.Currency}
	if q.Discount != nil {
		if q.Discount.Kind == DiscountFixed && q.Discount.Amount.Currency != subtotal.Currency {
			return &CodeError{Field: "discount", Err: ErrCodeMixesCurrency}
		}
		off = q.Discount.Off(subtotal)
	}
	balance := Money{Currency: subtotal.Currency}
	if q.GiftCard != nil {
		if q.GiftCard.Balance.Currency != subtotal.Currency {
			return &CodeError{Field: "giftcard", Err: ErrCodeMixesCurrency}
		}
		balance = q.GiftCard.Balance
	}
	ship, err := q.quoteShipping(zones, country, subtotal, off)
	if err != nil {
		return err
	}
	q.Tender = rules.SplitTender(subtotal, off, ship, balance)
	return nil
}
