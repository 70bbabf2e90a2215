package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"
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
	Tender   Tender
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

// CodeError is a problem with a discount code or gift card, by field.
type CodeError struct {
	Field string // "discount" or "giftcard"
	Err   error
}

func (e *CodeError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *CodeError) Unwrap() error { return e.Err }

// QuoteCheckout reads the products, stock and codes of a checkout and works
// out allocation and payment, writing nothing: one Query per line (product
// and stock together), one GetItem per code and one Query of the shipping
// zones, all at once.
func (s *Store) QuoteCheckout(ctx context.Context, req CheckoutRequest) (Quote, error) {
	if len(req.Lines) == 0 {
		return Quote{}, ErrEmptyOrder
	}
	if len(req.Lines) > MaxCartLines {
		return Quote{}, ErrCartFull
	}
	seen := map[string]bool{}
	tickets := 0
	for _, l := range req.Lines {
		if l.Quantity < 1 || l.Quantity > MaxLineQty {
			return Quote{}, ErrBadQty
		}
		key := cartLineKey(l.ProductID, l.DropID)
		if seen[key] {
			return Quote{}, fmt.Errorf("product %s twice in one order", key)
		}
		seen[key] = true
		if l.DropID != "" {
			// One ticket line per order keeps the transaction's bound (one
			// more item, the ticket's redemption).
			if tickets++; tickets > 1 {
				return Quote{}, ErrOneTicketPerOrder
			}
			if l.Quantity != 1 || !ValidID(l.DropID) {
				return Quote{}, fmt.Errorf("a ticket buys one unit: %w", ErrTicketNotRedeemable)
			}
		}
	}

	products := make([]Product, len(req.Lines))
	drops := make([]Drop, len(req.Lines))
	stock := make([][]StockLevel, len(req.Lines))
	var gift *GiftCard
	var discount *DiscountCode
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
			products[i], stock[i] = p, st
			if err == nil && l.DropID != "" {
				drops[i], err = s.ticketForCheckout(gctx, l, req.CustomerID)
			}
			return err
		})
	}
	var zones []ShippingZone
	g.Go(func() error {
		var err error
		zones, err = s.ShippingZones(gctx)
		return err
	})
	if req.GiftCardCode != "" {
		g.Go(func() error {
			gc, err := s.GiftCard(gctx, req.GiftCardCode)
			switch {
			case errors.Is(err, ErrNotFound):
				return &CodeError{Field: "giftcard", Err: ErrNotFound}
			case err != nil:
				return err
			case gc.Balance.Amount <= 0:
				return &CodeError{Field: "giftcard", Err: ErrGiftCardUsed}
			}
			gift = &gc
			return nil
		})
	}
	if req.DiscountCode != "" {
		g.Go(func() error {
			dc, err := s.DiscountCode(gctx, req.DiscountCode)
			switch {
			case errors.Is(err, ErrNotFound):
				return &CodeError{Field: "discount", Err: ErrNotFound}
			case err != nil:
				return err
			}
			if err := dc.Usable(s.now()); err != nil {
				return &CodeError{Field: "discount", Err: err}
			}
			discount = &dc
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return Quote{}, err
	}

	// A ticket line is priced at its drop's price and takes no stock: its
	// unit was set aside when the drop was made.
	price := func(i int) Money {
		if req.Lines[i].DropID != "" {
			return drops[i].Price
		}
		return products[i].Price
	}
	var lines []allocationLine
	subtotal := Money{Currency: price(0).Currency}
	for i, l := range req.Lines {
		p := products[i]
		if price(i).Currency != subtotal.Currency {
			return Quote{}, ErrMixedCurrency
		}
		if l.DropID == "" {
			lines = append(lines, allocationLine{ProductID: p.ID, ProductName: p.Name, Names: p.Names(), Quantity: l.Quantity, Stock: stock[i]})
		}
		subtotal.Amount += price(i).Amount * int64(l.Quantity)
	}
	var allocations [][]Allocation
	if len(lines) > 0 {
		var err error
		if allocations, err = allocateOrder(lines); err != nil {
			return Quote{}, err
		}
	}
	q := Quote{Discount: discount, GiftCard: gift}
	for i, l := range req.Lines {
		it := OrderItem{
			CustomerID: req.CustomerID, ProductID: l.ProductID, ProductName: products[i].Name, Names: products[i].Names(),
			Price: price(i), Quantity: l.Quantity, VATRate: s.vat.Of(products[i].Category),
		}
		if l.DropID != "" {
			// Shipped from where the drop's units were set aside (taking
			// no stock: the drop took it when it was made).
			it.DropID, it.redeemWithin = l.DropID, drops[i].RedeemWithin
			if w := drops[i].shipFrom(); w != "" {
				it.Allocations = []Allocation{{WarehouseID: w, Quantity: 1}}
			}
		} else {
			it.Allocations, allocations = allocations[0], allocations[1:]
			for _, a := range it.Allocations {
				low := true
				if at := slices.IndexFunc(stock[i], func(l StockLevel) bool { return l.WarehouseID == a.WarehouseID }); at >= 0 {
					low = stock[i][at].Quantity-a.Quantity < stock[i][at].LowStockAt()
				}
				q.taken = append(q.taken, stockTaken{l.ProductID, a.WarehouseID, low})
			}
		}
		q.Items = append(q.Items, it)
	}
	off := Money{Currency: subtotal.Currency}
	if discount != nil {
		if discount.Kind == DiscountFixed && discount.Amount.Currency != subtotal.Currency {
			return Quote{}, &CodeError{Field: "discount", Err: ErrMixedCurrency}
		}
		off = discount.Off(subtotal)
	}
	balance := Money{Currency: subtotal.Currency}
	if gift != nil {
		if gift.Balance.Currency != subtotal.Currency {
			return Quote{}, &CodeError{Field: "giftcard", Err: ErrMixedCurrency}
		}
		balance = gift.Balance
	}
	ship, err := q.quoteShipping(zones, req.ShipTo.Country, subtotal, off)
	if err != nil {
		return Quote{}, err
	}
	q.Tender = splitTender(subtotal, off, ship, balance)
	return q, nil
}

// allocateOrder is allocate with at most MaxLineWarehouses warehouses per
// line. An allocation within the cap is allocate's own; only when a line
// would be split further are the lines allocated again from the warehouses
// holding most of each (no single warehouse held them all, so the split is
// the same for every line that fits).
func allocateOrder(lines []allocationLine) ([][]Allocation, error) {
	out, err := allocate(lines)
	if err != nil || !slices.ContainsFunc(out, func(a []Allocation) bool { return len(a) > MaxLineWarehouses }) {
		return out, err
	}
	capped := slices.Clone(lines)
	for i := range capped {
		st := slices.Clone(capped[i].Stock)
		slices.SortFunc(st, func(a, b StockLevel) int {
			return cmp.Or(cmp.Compare(b.Quantity, a.Quantity), cmp.Compare(a.WarehouseID, b.WarehouseID))
		})
		capped[i].Stock = st[:min(len(st), MaxLineWarehouses)]
	}
	return allocate(capped)
}
