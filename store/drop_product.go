package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store/rules"
)

// Product drops: a drop tied to a product. Creating one sets its quantity
// aside from the product's stock (logged adjustments, in the drop's own
// transaction); closing or cancelling it gives back what was not claimed;
// a valid ticket lets its holder buy one unit at the drop's price within
// RedeemWithin of the claim, redeemed in the checkout's transaction.

const (
	// DefaultRedeemWithin is how long a product drop's ticket can be
	// redeemed after its claim, unless staff say otherwise.
	DefaultRedeemWithin = 48 * time.Hour
	// maxSetAsideWarehouses bounds the warehouses a product drop takes its
	// quantity from: with the drop's item and up to 50 counters, each
	// warehouse's stock update and adjustment keep the transaction under
	// DynamoDB's 100 items.
	maxSetAsideWarehouses = 20
)

// ErrTicketNotRedeemable: the ticket of a cart's drop line cannot be
// redeemed (used in another order, expired, void, or not a product drop's).
var ErrTicketNotRedeemable error = Refuse(Conflict, "checkout.ticket_unusable", "this ticket cannot be redeemed")

// ErrOneTicketPerOrder: a cart holds at most one drop ticket.
var ErrOneTicketPerOrder error = Refuse(Conflict, "checkout.one_ticket", "one drop ticket per order: check out the one in your cart first")

func validateProductDrop(d NewDrop) error {
	if d.ProductID == "" {
		return nil
	}
	switch {
	case !ValidID(d.ProductID):
		return &DropError{Field: "product", Kind: "product", Msg: "there is no product with that id"}
	case d.Price.Amount <= 0 || d.Price.Currency == "":
		return &DropError{Field: "price", Kind: "price", Msg: "give the drop a price above zero"}
	case d.RedeemWithin < time.Hour || d.RedeemWithin > 90*24*time.Hour:
		return &DropError{Field: "redeem", Kind: "redeem", Msg: "tickets are redeemed within 1 to 2160 hours"}
	}
	return nil
}

// shipFrom is the warehouse a ticket's unit leaves from: the one the drop
// set most aside in.
func (d Drop) shipFrom() string {
	best := Allocation{}
	for _, a := range d.SetAside {
		if a.Quantity > best.Quantity {
			best = a
		}
	}
	return best.WarehouseID
}

// RedeemBy is when a ticket of d stops being redeemable.
func (t Ticket) RedeemBy(d Drop) time.Time { return t.CreatedAt.Add(d.RedeemWithin) }

// TicketRedeemWithin is how long a ticket of d can be redeemed, zero for
// a drop that is not a product's: a claim's ClaimRequest.RedeemWithin.
func (d Drop) TicketRedeemWithin() time.Duration {
	if d.ProductID == "" {
		return 0
	}
	return d.RedeemWithin
}

// Redeemable reports whether the ticket may buy d's product at now.
func (t Ticket) Redeemable(d Drop, now time.Time) bool {
	return d.ProductID != "" && t.Status == TicketValid && !t.UnitReturned && now.Before(t.RedeemBy(d))
}

// setAsidePlan takes quantity from the warehouses holding most first, at
// most maxSetAsideWarehouses of them; ok is false when they hold too few
// (rules.SetAside).
func setAsidePlan(stock []StockLevel, quantity int) (plan []Allocation, available int, ok bool) {
	return rules.SetAside(holdings(stock), quantity, maxSetAsideWarehouses)
}

// setAsideItems reads the drop's product and stock and builds the stock
// decrements (each on condition Quantity >= n) and their logged
// adjustments; a product with too little stock is a DropError on quantity.
func (s *Store) setAsideItems(ctx context.Context, d Drop, staffID string, now time.Time) ([]Allocation, []types.TransactWriteItem, error) {
	p, stock, err := s.ProductWithStock(ctx, d.ProductID)
	if errors.Is(err, ErrNotFound) {
		return nil, nil, &DropError{Field: "product", Kind: "product", Msg: "there is no product with that id"}
	}
	if err != nil {
		return nil, nil, err
	}
	if p.Price.Currency != d.Price.Currency {
		return nil, nil, &DropError{Field: "price", Kind: "price_currency", Args: []any{"Currency", p.Price.Currency}, Msg: "the price must be in the product's currency, " + p.Price.Currency}
	}
	plan, available, ok := setAsidePlan(stock, d.Quantity)
	if !ok {
		return nil, nil, shortForDrop(p.Name, available)
	}
	items, err := s.stockMoves(p, plan, -1, "set aside for drop "+d.Title, staffID, now)
	return plan, items, err
}

func shortForDrop(name string, available int) error {
	return &DropError{Field: "quantity", Kind: "quantity_short", Args: []any{"Available", available, "Product", name}, Msg: fmt.Sprintf("only %d of %s in stock to set aside", available, name)}
}

// setAsideShort is the quantity error of a create whose stock decrement
// failed: the stock as it is now.
func (s *Store) setAsideShort(ctx context.Context, d Drop) error {
	p, stock, err := s.ProductWithStock(ctx, d.ProductID)
	if err != nil {
		return fmt.Errorf("read stock after a refused drop: %w", err)
	}
	_, available, _ := setAsidePlan(stock, d.Quantity)
	return shortForDrop(p.Name, available)
}

// stockMoves are, per warehouse of plan, the stock update (sign -1 takes,
// on condition Quantity >= n; +1 gives back) and its adjustment record.
func (s *Store) stockMoves(p Product, plan []Allocation, sign int, reason, staffID string, now time.Time) ([]types.TransactWriteItem, error) {
	var items []types.TransactWriteItem
	for _, a := range plan {
		delta := sign * a.Quantity
		var b expression.Builder
		if sign < 0 {
			b = expression.NewBuilder().
				WithUpdate(expression.Set(expression.Name("Quantity"), expression.Name("Quantity").Minus(expression.Value(a.Quantity)))).
				WithCondition(expression.Name("Quantity").GreaterThanEqual(expression.Value(a.Quantity)))
		} else {
			b = expression.NewBuilder().WithUpdate(expression.Set(expression.Name("Quantity"),
				expression.Plus(expression.IfNotExists(expression.Name("Quantity"), expression.Value(0)), expression.Value(a.Quantity))).
				Set(expression.Name("EntityType"), expression.Value(entityWarehouseItem)).
				Set(expression.Name(attrGSI2PK), expression.Value(warehouseKey(a.WarehouseID))).
				Set(expression.Name(attrGSI2SK), expression.Value(productKey(p.ID))))
		}
		expr, err := b.Build()
		if err != nil {
			return nil, err
		}
		log, err := attributevalue.MarshalMap(adjustmentRecord{
			PK: warehouseKey(a.WarehouseID), SK: adjustmentKey(now, NewID()), EntityType: entityAdjustment, ProductID: p.ID,
			ProductName: p.Name, Delta: delta, Reason: reason, StaffID: staffID, At: timestamp(now),
		})
		if err != nil {
			return nil, err
		}
		items = append(items,
			types.TransactWriteItem{Update: &types.Update{
				TableName: aws.String(s.table), Key: itemKey(productKey(p.ID), warehouseKey(a.WarehouseID)),
				UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
				ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
			}},
			types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table), Item: log}})
	}
	return items, nil
}

// closeProductDrop closes or cancels a product drop and gives back to its
// warehouses what was not claimed (quantity - claimed), as logged
// adjustments, in one transaction: the status change on condition the drop
// is open and its claimed count is still the one read (a ConditionCheck per
// counter of a big drop), so a claim meanwhile makes it read again. Claimed
// units stay set aside for their holders.
func (s *Store) closeProductDrop(ctx context.Context, d Drop, to DropStatus) error {
	defer s.forgetStock(d.ProductID)
	p, err := s.Product(ctx, d.ProductID)
	if errors.Is(err, ErrNotFound) {
		p = Product{ID: d.ProductID, Name: d.ProductID}
	} else if err != nil {
		return err
	}
	for range 5 {
		now := s.now().UTC().Truncate(time.Millisecond)
		cond := expression.Name("Status").Equal(expression.Value(string(DropOpen)))
		if len(d.Counters) == 0 {
			cond = cond.And(expression.Name("Claimed").Equal(expression.Value(d.Claimed)))
		}
		plan := rules.GiveBack(d.SetAside, d.Quantity-d.Claimed)
		upd, err := expression.NewBuilder().
			WithUpdate(leaveDropLists(to).Set(expression.Name("Returned"), expression.Value(plan))).
			WithCondition(cond).Build()
		if err != nil {
			return err
		}
		// The drop leaves the list of drops to close with its stock.
		items := []types.TransactWriteItem{{Update: &types.Update{
			TableName: aws.String(s.table), Key: itemKey(dropKey(d.ID), sortKeyDropInfo),
			UpdateExpression: upd.Update(), ConditionExpression: upd.Condition(),
			ExpressionAttributeNames: upd.Names(), ExpressionAttributeValues: upd.Values(),
		}}, {Delete: &types.Delete{TableName: aws.String(s.table), Key: itemKey(dropKey(d.ID), sortKeyDropClosing)}}}
		for _, c := range d.Counters {
			check, err := expression.NewBuilder().WithCondition(expression.Name("Claimed").Equal(expression.Value(c.Claimed))).Build()
			if err != nil {
				return err
			}
			items = append(items, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
				TableName: aws.String(s.table), Key: itemKey(dropKey(d.ID), dropCounterKey(c.N)),
				ConditionExpression: check.Condition(), ExpressionAttributeNames: check.Names(), ExpressionAttributeValues: check.Values(),
			}})
		}
		verb := "closed"
		if to == DropCancelled {
			verb = "cancelled"
		}
		moves, err := s.stockMoves(p, plan, +1, "returned from "+verb+" drop "+d.Title, "", now)
		if err != nil {
			return err
		}
		items = append(items, moves...)
		err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		if err == nil {
			return nil
		}
		if cancellationReasons(err) == nil {
			return fmt.Errorf("set drop %s %s: %w", d.ID, to, err)
		}
		// Closed meanwhile, or a claim moved the count: read again.
		if d, err = s.DropConsistent(ctx, d.ID); err != nil {
			return err
		}
		if d.Status != DropOpen {
			// Its entry in the list of drops to close should be gone with
			// it; one an older version left behind goes now.
			if err := s.deleteItem(ctx, dropKey(d.ID), sortKeyDropClosing); err != nil {
				return err
			}
			return fmt.Errorf("drop %s is not open: %w", d.ID, ErrConflict)
		}
	}
	return fmt.Errorf("drop %s kept changing: %w", d.ID, ErrConflict)
}

// AddTicketToCart puts a product drop's ticket in the cart as a line of its
// own (key ticket#<drop id>): the product at the drop's price, quantity 1.
// The cart is written on condition of the version read, so it holds at
// most one ticket line (ErrOneTicketPerOrder); a ticket already there is
// left as it is. Whether the ticket can be redeemed is the caller's check
// and, finally, the checkout's.
func (s *Store) AddTicketToCart(ctx context.Context, owner string, d Drop, p Product) error {
	if d.ProductID == "" || d.ProductID != p.ID || !ValidID(d.ID) {
		return ErrTicketNotRedeemable
	}
	key := cartTicketKey(d.ID)
	line := cartLineDoc{ProductID: p.ID, DropID: d.ID, ProductName: p.Name, Names: p.Names(), UnitPrice: d.Price.Amount, Currency: d.Price.Currency,
		Quantity: 1, AddedAt: timestamp(s.now())}
	for range 5 {
		rec, found, err := s.loadCart(ctx, owner, true)
		if err != nil {
			return err
		}
		if !found {
			rec = s.newCart(owner)
			rec.Lines[key] = line
			err = s.putNew(ctx, rec, "cart")
			if errors.Is(err, ErrConflict) {
				continue
			}
			return err
		}
		if rec.has(key) {
			return nil
		}
		for k := range rec.Lines {
			if isCartTicketKey(k) {
				return ErrOneTicketPerOrder
			}
		}
		if len(rec.Lines) >= MaxCartLines {
			return ErrCartFull
		}
		_, err = s.updateCart(ctx, owner, expression.Set(expression.Name(cartLinePath(key)), expression.Value(line)),
			expression.Name("Version").Equal(expression.Value(rec.Version)))
		if !errors.Is(err, errCartCondition) {
			return err
		}
	}
	return fmt.Errorf("add ticket to cart: %w", ErrConflict)
}

// RemoveTicketFromCart takes a drop's ticket line out of the cart.
func (s *Store) RemoveTicketFromCart(ctx context.Context, owner, dropID string) error {
	if !ValidID(dropID) {
		return nil
	}
	return s.removeLine(ctx, owner, cartTicketKey(dropID))
}

// ticketForCheckout reads a ticket line's drop and ticket for a quote and
// checks it can be redeemed now; the transaction's condition decides.
func (s *Store) ticketForCheckout(ctx context.Context, l CheckoutLine, customerID string) (Drop, error) {
	d, err := s.Drop(ctx, l.DropID)
	if errors.Is(err, ErrNotFound) {
		return Drop{}, fmt.Errorf("the drop of the ticket in your cart is gone: %w", ErrTicketNotRedeemable)
	}
	if err != nil {
		return Drop{}, err
	}
	if d.ProductID == "" || d.ProductID != l.ProductID {
		return Drop{}, fmt.Errorf("the ticket for “%s” does not buy that product: %w", d.Title, ErrTicketNotRedeemable)
	}
	t, err := s.Ticket(ctx, l.DropID, customerID)
	if errors.Is(err, ErrNotFound) {
		return Drop{}, fmt.Errorf("you hold no ticket for “%s”: %w", d.Title, ErrTicketNotRedeemable)
	}
	if err != nil {
		return Drop{}, err
	}
	return d, ticketProblem(t, d, s.now())
}

func ticketProblem(t Ticket, d Drop, now time.Time) error {
	switch {
	case t.Status == TicketRedeemed:
		return fmt.Errorf("your ticket for “%s” was already used for an order: %w", d.Title, ErrTicketNotRedeemable)
	case t.Status != TicketValid:
		return fmt.Errorf("your ticket for “%s” is void: %w", d.Title, ErrTicketNotRedeemable)
	case !now.Before(t.RedeemBy(d)), t.UnitReturned:
		return fmt.Errorf("your ticket for “%s” expired: %w", d.Title, ErrTicketNotRedeemable)
	}
	return nil
}

// EndedProductDrops lists product drops still open whose deadline has
// passed: their unclaimed units are still set aside. It reads the sparse
// list of product drops not yet closed (GSI2 drops-closing) up to now, so
// drops closed before are never read. Each drop is as its entry holds it,
// without its count: SetDropStatus reads the drop itself.
func (s *Store) EndedProductDrops(ctx context.Context) ([]Drop, error) {
	q := querySpec{key: onGSI2.pkAndSKUpTo(partitionDropsToClose, closedBy(s.now()))}
	var out []Drop
	cursor := ""
	for {
		page, err := pagedQuery(ctx, s, q, 100, cursor, dropClosingRecord.drop)
		if err != nil {
			return nil, err
		}
		out = append(out, page.Items...)
		if page.Next == "" {
			return out, nil
		}
		cursor = page.Next
	}
}
