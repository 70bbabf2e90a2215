package store

import (
	"cmp"
	"context"
	"slices"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

// The packing queue: an order placed and not packed yet carries an entry
// of the sparse ShipmentsByStatus index (to-pack#shard, placed#id) and what
// each warehouse picks of it (Pick), both written on the order's own item
// when it becomes placed, so the checkout's transaction, which has no room
// for the shipments (one per warehouse and one item per line and
// warehouse), writes no item more. Packing makes the shipments
// (CreateShipments) and takes the entry off in the same transaction; a
// cancel or a refund of every unit takes it off with the order's status.

// PickLine is what one warehouse picks of an order's line.
type PickLine struct {
	WarehouseID string `dynamodbav:"W"`
	ProductID   string `dynamodbav:"P"`
	ProductName string `dynamodbav:"N"`
	Quantity    int    `dynamodbav:"Q"`
}

// pickOf is what the items' warehouses pick: each line's units still to
// ship (OrderItem.ToShip), by warehouse, then by product name.
func pickOf(items []OrderItem) []PickLine {
	var out []PickLine
	for _, it := range items {
		for _, a := range it.ToShip() {
			out = append(out, PickLine{WarehouseID: a.WarehouseID, ProductID: it.ProductID, ProductName: it.ProductName, Quantity: a.Quantity})
		}
	}
	slices.SortStableFunc(out, func(a, b PickLine) int {
		return cmp.Or(cmp.Compare(a.WarehouseID, b.WarehouseID), cmp.Compare(a.ProductName, b.ProductName), cmp.Compare(a.ProductID, b.ProductID))
	})
	return out
}

// onPackingQueue puts an order becoming placed on the packing queue, with
// what its items' warehouses pick.
func onPackingQueue(upd expression.UpdateBuilder, o Order, items []OrderItem, shards int) expression.UpdateBuilder {
	return upd.Set(expression.Name(attrShsPK), expression.Value(toPackKey(shardOf(o.ID, shards)))).
		Set(expression.Name(attrShsSK), expression.Value(createdKey(o.PlacedAt, o.ID))).
		Set(expression.Name("Pick"), expression.Value(pickOf(items)))
}

// offPackingQueue takes an order leaving "placed" off the packing queue.
func offPackingQueue(upd expression.UpdateBuilder) expression.UpdateBuilder {
	return upd.Remove(expression.Name(attrShsPK)).Remove(expression.Name(attrShsSK))
}

// OrdersToPack lists the orders placed and not packed yet, oldest first,
// each with what its warehouses pick (Order.ToPick): one Query per list
// shard of the packing queue, merged.
func (s *Store) OrdersToPack(ctx context.Context, limit int, cursor string) (Page[Order], error) {
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return Page[Order]{}, err
	}
	l := shardedList{id: "to-pack", shards: shards,
		key: func(n int) keyCond { return onShipments.pkEquals(toPackKey(n)) }}
	return mergedPage(ctx, s, l, limit, cursor, orderRecord.order)
}

// PackingGroup is what one warehouse packs: its orders oldest first, each
// with the lines it picks there.
type PackingGroup struct {
	WarehouseID string
	Orders      []OrderToPack
}

// OrderToPack is an order in one warehouse's group and what that warehouse
// picks of it.
type OrderToPack struct {
	Order Order
	Lines []PickLine
}

// GroupToPack groups orders (oldest first, as OrdersToPack reads them) by
// the warehouses their checkout allocated, warehouses in id order: an order
// split over two warehouses is in both, with each one's lines.
func GroupToPack(orders []Order) []PackingGroup {
	at := map[string]int{}
	var groups []PackingGroup
	for _, o := range orders {
		for _, l := range o.ToPick {
			i, ok := at[l.WarehouseID]
			if !ok {
				i = len(groups)
				at[l.WarehouseID] = i
				groups = append(groups, PackingGroup{WarehouseID: l.WarehouseID})
			}
			g := &groups[i]
			if n := len(g.Orders); n == 0 || g.Orders[n-1].Order.ID != o.ID {
				g.Orders = append(g.Orders, OrderToPack{Order: o})
			}
			last := &g.Orders[len(g.Orders)-1]
			last.Lines = append(last.Lines, l)
		}
	}
	slices.SortFunc(groups, func(a, b PackingGroup) int { return cmp.Compare(a.WarehouseID, b.WarehouseID) })
	return groups
}

// itemsAfter is items with more units refunded, by line
// (orderItemSortKey).
func itemsAfter(items []OrderItem, more map[string]int) []OrderItem {
	out := slices.Clone(items)
	for i := range out {
		out[i].Refunded += more[orderItemSortKey(out[i].ProductID, out[i].DropID)]
	}
	return out
}
