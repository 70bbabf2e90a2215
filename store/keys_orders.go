package store

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// cartKey is the partition of a cart; owner is CustomerOwner or VisitorOwner.
// The cart is one item in it, SK=sortKeyCart; carts written before that
// kept one item per line, SK=p#<product id> (legacyCartLinePrefix).
func cartKey(owner string) string { return prefixCart + owner }

// legacyCartLinePrefix is the sort-key prefix of the old one-item-per-line
// cart lines, read only to migrate them.
const legacyCartLinePrefix = prefixProduct

// cartLinePath is the document path of a product's line inside the cart
// item's Lines map (product ids are ValidID: no dots or brackets).
func cartLinePath(productID string) string { return "Lines." + productID }

// addressPath is the document path of a saved address inside the address
// book's Addresses map (address ids are ValidID: no dots or brackets).
func addressPath(id string) string { return "Addresses." + id }

// A drop's ticket line sits in the Lines map under ticket#<drop id>, apart
// from the product's own line ('#' is in no product id).
const prefixCartTicket = "ticket#"

func cartTicketKey(dropID string) string { return prefixCartTicket + dropID }
func isCartTicketKey(k string) bool      { return strings.HasPrefix(k, prefixCartTicket) }

// cartLineKey is the key of a line: its product, or its drop's ticket.
func cartLineKey(productID, dropID string) string {
	if dropID != "" {
		return cartTicketKey(dropID)
	}
	return productID
}

// A checkout's order held for its card payment on a provider's page
// (checkout_hold.go): listed on GSI1 by its deadline, in the list shard of
// its id, while it waits; once expired it leaves its customer's orders
// (GSI2 o#) for xo#. A provider's event applied is an item of its own,
// written once, and a payment refunded because its hold was released has
// a refund key made from the payment.
const (
	prefixAwaitingPayment = "awaiting-payment" // GSI1: awaiting-payment#shard / <until>#order
	prefixExpiredOrder    = "xo#"              // GSI2 sort key of an expired order under c#customer
	prefixPaymentEvent    = "event#"           // event#<provider>#<event id>
	prefixLateRefund      = "late-"            // a refund's key: late-<hash of provider and payment>
	entityPaymentEvent    = "paymentEvent"
)

func awaitingPaymentKey(shard int) string { return shardKey(prefixAwaitingPayment, shard) }

// heldUntilKey sorts the awaiting-payment list by deadline, the order id
// keeping equal deadlines apart.
func heldUntilKey(until time.Time, orderID string) string { return createdKey(until, orderID) }

// expiredOrderKey is an expired order's GSI2 sort key: under its customer,
// outside the o# range CustomerOrders reads.
func expiredOrderKey(placed time.Time) string { return datedKey(prefixExpiredOrder, placed) }

func paymentEventKey(provider, eventID string) string {
	return prefixPaymentEvent + provider + "#" + eventID
}

// lateRefundKey is the key of the refund of one payment that could not
// place its order: the same for every event and reconcile that reports
// that payment, so it is refunded once.
func lateRefundKey(provider, paymentRef string) string {
	h := sha256.Sum256([]byte(provider + "\x00" + paymentRef))
	return prefixLateRefund + hex.EncodeToString(h[:12])
}

// CustomerOwner names the cart of a signed-in customer.
func CustomerOwner(customerID string) string { return customerKey(customerID) }

// VisitorOwner names the cart of a visitor who has not signed in.
func VisitorOwner(visitorID string) string { return prefixVisitor + visitorID }

func isVisitorOwner(owner string) bool { return strings.HasPrefix(owner, prefixVisitor) }

func orderNumberKey(number string) string { return prefixOrderNo + number }

// shardKey is the partition of one shard of a write-sharded list.
func shardKey(list string, shard int) string { return list + "#" + strconv.Itoa(shard) }

// ordersMonthKey splits the all-orders list by month (staff read it by
// date range, and no list grows without bound); each month is spread over
// the table's list shards (shardKey).
func ordersMonthKey(t time.Time) string { return prefixOrdersOf + t.UTC().Format("2006-01") }

// The archive of the books (archive.go): a month's receipts and refunds
// in lists of their own, and the archived months' records.
const (
	prefixReceiptsOf    = "receipts#" // GSI1 partitions of a month's receipts (the books' month): receipts#YYYY-MM#shard
	prefixRefundsOf     = "refunds#"  // GSI1 partitions of a month's order refunds: refunds#YYYY-MM#shard
	prefixArchivedMonth = "month#"    // under partitionArchive: a month of the books, archived
	partitionArchive    = "archive"
	entityArchivedMonth = "archivedMonth"
)

// receiptsMonthKey is the list of a month of the books' receipts (each
// month spread over receiptsMonthShards).
func receiptsMonthKey(m Month) string { return prefixReceiptsOf + m.String() }

// refundsMonthKey is the list of a month of the books' order refunds.
func refundsMonthKey(m Month) string { return prefixRefundsOf + m.String() }

// ordersMonthKeys are the month partitions of the orders placed from..to,
// newest first; none if from is after to.
func ordersMonthKeys(from, to time.Time) []string {
	if from.After(to) {
		return nil
	}
	month := func(t time.Time) time.Time {
		t = t.UTC()
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	var out []string
	for m, first := month(to), month(from); !m.Before(first); m = m.AddDate(0, -1, 0) {
		out = append(out, ordersMonthKey(m))
	}
	return out
}

// orderItemSortKey is p#<product>, or p#<product>#drop#<drop id> for a line
// bought with a ticket (beside the product's own line in the same order).
func orderItemSortKey(productID, dropID string) string {
	if dropID != "" {
		return productKey(productID) + infixDrop + dropID
	}
	return productKey(productID)
}

func productOfOrderItemKey(sk string) string {
	id, _, _ := strings.Cut(trimPrefix(sk, prefixProduct), infixDrop)
	return id
}

// InvoiceID is the invoice id in what staff typed: the id, or the
// invoice's key as copied from the table (i#<id>).
func InvoiceID(typed string) string { return strings.TrimPrefix(typed, prefixInvoice) }

// datedKey sorts an item of a customer's GSI2 collection by date:
// i#<timestamp> (invoices), p#<timestamp> (ordered products), o#<timestamp>.
func datedKey(prefix string, t time.Time) string { return prefix + timestamp(t) }

// createdKey sorts the items of a list by when they were made, the id
// keeping equal times apart (customers, gift cards, discount codes, a
// month's orders).
func createdKey(t time.Time, id string) string { return timestamp(t) + "#" + id }

// adjustmentKey sorts a warehouse's stock adjustments by time.
func adjustmentKey(t time.Time, id string) string { return prefixAdjust + createdKey(t, id) }

// dayRange is the inclusive key range of the days from..to (YYYY-MM-DD)
// under prefix: "~" sorts after every timestamp of the last day.
func dayRange(prefix, from, to string) (string, string) {
	return prefix + from, prefix + to + sortsLast
}

// timeRange is the inclusive key range of the timestamps from..to.
func timeRange(from, to time.Time) (string, string) {
	return datedRange("", from, to)
}

// datedRange is the inclusive key range of the dated keys from..to under
// prefix: the instants of a range of days in the shop's time zone, which
// need not start at a UTC midnight.
func datedRange(prefix string, from, to time.Time) (string, string) {
	return datedKey(prefix, from), datedKey(prefix, to) + sortsLast
}

// sinceRange is the key range of the timestamps from since on, under prefix.
func sinceRange(prefix string, since time.Time) (string, string) {
	return datedKey(prefix, since), prefix + sortsLast
}

// trimPrefix returns the id inside a key, or "" if the key has another prefix.
func trimPrefix(key, prefix string) string {
	if !strings.HasPrefix(key, prefix) {
		return ""
	}
	return key[len(prefix):]
}

// What needs staff, in the sparse Attention index: an order waiting to
// ship sits in its list shard, oldest first; a stock level under its
// threshold in one partition (there are few), by product and warehouse.
func toShipKey(shard int) string { return shardKey("to-ship", shard) }

// toPackKey lists an order placed and not packed yet, in the sparse
// ShipmentsByStatus index beside the shipments it will become
// (to-pack#shard, placed#id), oldest first, until staff pack it
// (to_pack.go).
func toPackKey(shard int) string { return shardKey("to-pack", shard) }

// awaitingStockKey lists a subscription's order that found no stock, in
// its list shard, oldest first, until staff allocate it.
func awaitingStockKey(shard int) string { return shardKey("awaiting-stock", shard) }

const (
	lowStockList = "low-stock"
	// pendingCardRefundsList lists the card refunds the gateway has not
	// confirmed yet, orders' and receipts' (refund_retry.go).
	pendingCardRefundsList = "card-refunds-pending"
	// creditNotesDueList holds an order's refund from the write that marks
	// it done to the one that numbers its credit note (credit_note.go).
	creditNotesDueList = "credit-notes-due"
	// attentionListed is the one-time step that lists, on a table from
	// before the Attention index and the day totals, the orders waiting to
	// ship, the low stock levels, and every order in its day's totals.
	attentionListed = "attention-listed"
	// toPackListed is the one-time step that puts the placed orders of a
	// table from before the packing queue on it (to_pack_migrate.go).
	toPackListed = "to-pack-listed"
)

func lowStockSortKey(productID, warehouseID string) string {
	return productKey(productID) + warehouseKey(warehouseID)
}

// A day's order totals, the day in the shop's zone, in each list shard:
// every order adds to one shard's item, so a busy day has no hot item.
func dayTotalsKey(shard int) string      { return shardKey("day-totals", shard) }
func dayTotalsSortKey(day string) string { return "day#" + day }

// The subscriptions' kept totals (subscription_totals.go), in each list
// shard by a hash of the subscription's id: the counts and MRR now, one
// item a currency, and each month's changes, one item a month and currency.
// "now#" sorts after every "month#", so the months from one on and the
// counts now are one key range.
func subscriptionTotalsKey(shard int) string          { return shardKey("sub-totals", shard) }
func subscriptionTotalsNowKey(currency string) string { return "now#" + currency }
func subscriptionTotalsMonthKey(month, currency string) string {
	return "month#" + month + "#" + currency
}

// subscriptionTotalsLast is above every key of the partition ('~' sorts
// after the letters of a currency).
const subscriptionTotalsLast = "now#~"

// Shipment changes and the shipments-by-status list (fulfilment.go).
const (
	prefixShipChange     = "shev#"      // a change of a shipment's status, under its order and its sh#id
	prefixShipmentsIn    = "shipments#" // ShipmentsByStatus: shipments#<status>#shard
	entityShipmentChange = "shipmentChange"
	shipmentsListed      = "shipments-listed" // the one-time step of listing older shipments by status
)

// shipmentChangeKey sorts a shipment's changes together under its order,
// oldest first (change ids are time-ordered).
func shipmentChangeKey(shipmentID, changeID string) string {
	return prefixShipChange + shipmentID + "#" + changeID
}

// shipmentsInKey is the list shard of a status.
func shipmentsInKey(status ShipmentStatus, shard int) string {
	return shardKey(prefixShipmentsIn+string(status), shard)
}

// Returns (returns.go): a return in its order's collection, the units each
// line has had asked back on one item per order, and the returns of a
// status on GSI1.
const (
	prefixReturn         = "ret#"     // a return, under its order
	prefixReturnsIn      = "returns#" // GSI1: returns#<status>
	sortKeyReturnedUnits = "returned-units"
	entityReturn         = "return"
	entityReturnedUnits  = "returnedUnits"
)

func returnKey(id string) string              { return prefixReturn + id }
func returnsInKey(status ReturnStatus) string { return prefixReturnsIn + string(status) }
