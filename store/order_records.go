package store

import (
	"time"

	"shop/store/rules"
)

type orderRecord struct {
	PK               string  `dynamodbav:"PK"` // o#id
	SK               string  `dynamodbav:"SK"` // c#customer
	EntityType       string  `dynamodbav:"EntityType"`
	Date             string  `dynamodbav:"Date"`
	Status           string  `dynamodbav:"Status"`
	Subtotal         int64   `dynamodbav:"Subtotal"`
	Discount         int64   `dynamodbav:"Discount"`
	Total            int64   `dynamodbav:"Total"`
	Shipping         int64   `dynamodbav:"Shipping,omitempty"`    // delivery, in Total (none before shipping rates)
	ShipDaysMin      int     `dynamodbav:"ShipDaysMin,omitempty"` // the zone's estimate when placed
	ShipDaysMax      int     `dynamodbav:"ShipDaysMax,omitempty"`
	Currency         string  `dynamodbav:"Currency"`
	ShipTo           Address `dynamodbav:"ShipTo"`
	Lines            int     `dynamodbav:"Lines"`
	Number           string  `dynamodbav:"Number,omitempty"`
	BuyerName        string  `dynamodbav:"BuyerName,omitempty"`
	BuyerEmail       string  `dynamodbav:"BuyerEmail,omitempty"`
	BuyerLang        string  `dynamodbav:"BuyerLang,omitempty"`
	BuyerGuest       bool    `dynamodbav:"BuyerGuest,omitempty"`
	AttnPK           string  `dynamodbav:"ATTN-PK,omitempty"`  // to-ship#shard, while waiting to ship
	AttnSK           string  `dynamodbav:"ATTN-SK,omitempty"`  // date#id
	Refunded         int64   `dynamodbav:"Refunded,omitempty"` // sums of its refunds, each raised on condition it stays within what was paid
	RefundedGiftCard int64   `dynamodbav:"RefundedGiftCard,omitempty"`
	RefundedCard     int64   `dynamodbav:"RefundedCard,omitempty"`
	RefundedShipping int64   `dynamodbav:"RefundedShipping,omitempty"` // delivery given back, set once (refund_shipping.go)
	LastRefundAt     string  `dynamodbav:"LastRefundAt,omitempty"`
	UnitRefunds      int     `dynamodbav:"UnitRefunds,omitempty"` // refunds of units while placed, raised by each (refund.go)
	// Pick is what its warehouses pick while it waits to be packed, and
	// ShsPK/ShsSK its entry on the packing queue (to-pack#shard,
	// placed#id) while placed (to_pack.go).
	Pick  []PickLine `dynamodbav:"Pick,omitempty"`
	ShsPK string     `dynamodbav:"SHS-PK,omitempty"`
	ShsSK string     `dynamodbav:"SHS-SK,omitempty"`
	// A subscription's order: the subscription and the receipt that paid it.
	SubscriptionID string `dynamodbav:"SubscriptionID,omitempty"`
	ReceiptNumber  string `dynamodbav:"ReceiptNumber,omitempty"`
	// DayCounted: the order is in its day's totals (the checkout adds it;
	// the one-time step adds orders from before the totals).
	DayCounted bool `dynamodbav:"DayCounted,omitempty"`
	// Hold: a checkout's order held for its card payment (checkout_hold.go).
	Hold *holdRecord `dynamodbav:"Hold,omitempty"`
	// GSI1: its month's orders once placed (orders#YYYY-MM#shard,
	// date#id); while it awaits payment, the awaiting-payment list by its
	// deadline (awaiting-payment#shard, until#id); none once expired.
	GSI1PK string `dynamodbav:"GSI1-PK,omitempty"`
	GSI1SK string `dynamodbav:"GSI1-SK,omitempty"`
	GSI2PK string `dynamodbav:"GSI2-PK"` // c#customer
	GSI2SK string `dynamodbav:"GSI2-SK"` // o#date; xo#date once expired, out of the customer's orders
}

func parseTime(s string) time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

func (r orderRecord) order() Order {
	c := r.Currency
	return Order{
		ID: trimPrefix(r.PK, prefixOrder), Number: r.Number, CustomerID: trimPrefix(r.SK, prefixCustomer),
		PlacedAt: parseTime(r.Date), Status: OrderStatus(r.Status),
		Subtotal: Money{Amount: r.Subtotal, Currency: c}, Discount: Money{Amount: r.Discount, Currency: c}, Total: Money{Amount: r.Total, Currency: c}, Shipping: Money{Amount: r.Shipping, Currency: c},
		ShippingDaysMin: r.ShipDaysMin, ShippingDaysMax: r.ShipDaysMax, ShipTo: r.ShipTo, Lines: r.Lines, Buyer: Buyer{Name: r.BuyerName, Email: r.BuyerEmail, Lang: r.BuyerLang, Guest: r.BuyerGuest},
		Refunded: Money{Amount: r.Refunded, Currency: c}, RefundedGiftCard: Money{Amount: r.RefundedGiftCard, Currency: c}, RefundedCard: Money{Amount: r.RefundedCard, Currency: c},
		RefundedShipping: Money{Amount: r.RefundedShipping, Currency: c}, SubscriptionID: r.SubscriptionID, ReceiptNumber: r.ReceiptNumber, unitRefunds: r.UnitRefunds,
		Hold: r.Hold.hold(c), ToPick: r.Pick,
	}
}

// newOrderRecord is o's item, listed in its month's orders in the shard of
// its id (one of listShards), carrying what its items' warehouses pick and,
// placed, on the packing queue.
func newOrderRecord(o Order, items []OrderItem, listShards int) orderRecord {
	r := orderRecord{
		PK: orderKey(o.ID), SK: customerKey(o.CustomerID), EntityType: entityOrder,
		Date: timestamp(o.PlacedAt), Status: string(o.Status),
		Subtotal: o.Subtotal.Amount, Discount: o.Discount.Amount, Total: o.Total.Amount, Shipping: o.Shipping.Amount, Currency: o.Total.Currency,
		ShipDaysMin: o.ShippingDaysMin, ShipDaysMax: o.ShippingDaysMax, ShipTo: o.ShipTo, Lines: o.Lines, Number: o.Number, BuyerName: o.Buyer.Name, BuyerEmail: o.Buyer.Email, BuyerLang: o.Buyer.Lang, BuyerGuest: o.Buyer.Guest,
		SubscriptionID: o.SubscriptionID, ReceiptNumber: o.ReceiptNumber,
		GSI1PK: shardKey(ordersMonthKey(o.PlacedAt), shardOf(o.ID, listShards)), GSI1SK: createdKey(o.PlacedAt, o.ID),
		GSI2PK: customerKey(o.CustomerID), GSI2SK: datedKey(prefixOrder, o.PlacedAt),
		Hold: newHoldRecord(o.Hold), Pick: pickOf(items),
	}
	if o.Status == OrderPlaced && len(r.Pick) > 0 { // nothing to pick: nothing to pack (an imported model's order)
		r.ShsPK, r.ShsSK = toPackKey(shardOf(o.ID, listShards)), createdKey(o.PlacedAt, o.ID)
	}
	switch {
	case o.Status == OrderAwaitingPayment && o.Hold != nil:
		// Not sold yet: listed by its deadline for the reconcile step,
		// and in its month's list only once its payment places it.
		r.GSI1PK, r.GSI1SK = awaitingPaymentKey(shardOf(o.ID, listShards)), heldUntilKey(o.Hold.Until, o.ID)
	case waitsToShip(o.Status):
		r.AttnPK, r.AttnSK = toShipKey(shardOf(o.ID, listShards)), createdKey(o.PlacedAt, o.ID)
	case o.Status == OrderAwaitingStock:
		r.AttnPK, r.AttnSK = awaitingStockKey(shardOf(o.ID, listShards)), createdKey(o.PlacedAt, o.ID)
	}
	return r
}

type orderItemRecord struct {
	PK          string       `dynamodbav:"PK"` // o#id
	SK          string       `dynamodbav:"SK"` // p#product
	EntityType  string       `dynamodbav:"EntityType"`
	ProductName string       `dynamodbav:"ProductName"`
	Names       ProductNames `dynamodbav:"Names,omitempty"` // in the shop's other languages
	Price       int64        `dynamodbav:"Price"`
	Currency    string       `dynamodbav:"Currency"`
	Quantity    int          `dynamodbav:"Quantity"`
	Date        string       `dynamodbav:"Date"`
	CustomerID  string       `dynamodbav:"CustomerID"`
	Allocations []Allocation `dynamodbav:"Allocations"`
	DropID      string       `dynamodbav:"DropID,omitempty"` // bought with this drop's ticket
	VATRate     int          `dynamodbav:"VATRate,omitempty"`
	BuyerName   string       `dynamodbav:"BuyerName,omitempty"`
	BuyerEmail  string       `dynamodbav:"BuyerEmail,omitempty"`
	Refunded    int          `dynamodbav:"Refunded,omitempty"` // units refunded, raised on condition of at most Quantity
	// Status is "expired" once its order's hold was released (its index
	// keys go with it); "" otherwise: a line is as its order.
	Status string `dynamodbav:"Status,omitempty"`
	GSI1PK string `dynamodbav:"GSI1-PK,omitempty"` // p#product
	GSI1SK string `dynamodbav:"GSI1-SK,omitempty"` // date
	GSI2PK string `dynamodbav:"GSI2-PK,omitempty"` // c#customer
	GSI2SK string `dynamodbav:"GSI2-SK,omitempty"` // p#date
}

func (r orderItemRecord) item() OrderItem {
	return OrderItem{
		OrderID: trimPrefix(r.PK, prefixOrder), CustomerID: r.CustomerID, ProductID: productOfOrderItemKey(r.SK),
		ProductName: r.ProductName, Names: r.Names, Price: Money{Amount: r.Price, Currency: r.Currency}, Quantity: r.Quantity,
		PlacedAt: parseTime(r.Date), Allocations: r.Allocations, DropID: r.DropID, VATRate: rules.VATRate(r.VATRate),
		Buyer: Buyer{Name: r.BuyerName, Email: r.BuyerEmail}, Refunded: r.Refunded, Expired: r.Status == string(OrderExpired),
	}
}

func newOrderItemRecord(i OrderItem) orderItemRecord {
	return orderItemRecord{
		PK: orderKey(i.OrderID), SK: orderItemSortKey(i.ProductID, i.DropID), EntityType: entityOrderItem,
		ProductName: i.ProductName, Names: i.Names, Price: i.Price.Amount, Currency: i.Price.Currency, Quantity: i.Quantity,
		Date: timestamp(i.PlacedAt), CustomerID: i.CustomerID, Allocations: i.Allocations, DropID: i.DropID,
		VATRate: int(i.VATRate), BuyerName: i.Buyer.Name, BuyerEmail: i.Buyer.Email,
		GSI1PK: productKey(i.ProductID), GSI1SK: timestamp(i.PlacedAt),
		GSI2PK: customerKey(i.CustomerID), GSI2SK: datedKey(prefixProduct, i.PlacedAt),
	}
}

type paymentRecord struct {
	Type      string `dynamodbav:"Type"`
	Amount    int64  `dynamodbav:"Amount"`
	Reference string `dynamodbav:"Data"` // the AWS model calls it Data
	Provider  string `dynamodbav:"Provider,omitempty"`
}

type invoiceRecord struct {
	PK           string `dynamodbav:"PK"` // o#order
	SK           string `dynamodbav:"SK"` // i#id
	EntityType   string `dynamodbav:"EntityType"`
	Date         string `dynamodbav:"Date"`
	Amount       int64  `dynamodbav:"Amount"`
	Discount     int64  `dynamodbav:"Discount"`
	Shipping     int64  `dynamodbav:"Shipping,omitempty"`
	DiscountCode string `dynamodbav:"DiscountCode,omitempty"`
	GiftCardCode string `dynamodbav:"GiftCardCode,omitempty"` // the gift card that paid: a refund gives back to it
	Currency     string `dynamodbav:"Currency"`
	CustomerID   string `dynamodbav:"CustomerID"`
	BuyerName    string `dynamodbav:"BuyerName,omitempty"`
	BuyerEmail   string `dynamodbav:"BuyerEmail,omitempty"`
	Detail       struct {
		Payments []paymentRecord `dynamodbav:"Payments"`
		VAT      []vatRecord     `dynamodbav:"VAT,omitempty"`
	} `dynamodbav:"Detail"`
	GSI1PK string `dynamodbav:"GSI1-PK"` // i#id
	GSI1SK string `dynamodbav:"GSI1-SK"` // i#id
	GSI2PK string `dynamodbav:"GSI2-PK"` // c#customer
	GSI2SK string `dynamodbav:"GSI2-SK"` // i#date
}

func (r invoiceRecord) invoice() Invoice {
	inv := Invoice{
		ID: trimPrefix(r.SK, prefixInvoice), OrderID: trimPrefix(r.PK, prefixOrder), CustomerID: r.CustomerID,
		Date: parseTime(r.Date), Amount: Money{Amount: r.Amount, Currency: r.Currency}, Discount: Money{Amount: r.Discount, Currency: r.Currency},
		Shipping: Money{Amount: r.Shipping, Currency: r.Currency}, DiscountCode: r.DiscountCode, Buyer: Buyer{Name: r.BuyerName, Email: r.BuyerEmail}, giftCardCode: r.GiftCardCode,
	}
	for _, p := range r.Detail.Payments {
		inv.Payments = append(inv.Payments, Payment{Type: p.Type, Amount: Money{Amount: p.Amount, Currency: r.Currency}, Reference: p.Reference, Provider: p.Provider})
	}
	inv.VAT = vatLines(r.Detail.VAT, r.Currency)
	return inv
}

func newInvoiceRecord(inv Invoice) invoiceRecord {
	r := invoiceRecord{
		PK: orderKey(inv.OrderID), SK: invoiceKey(inv.ID), EntityType: entityInvoice,
		Date: timestamp(inv.Date), Amount: inv.Amount.Amount, Discount: inv.Discount.Amount, Shipping: inv.Shipping.Amount, DiscountCode: inv.DiscountCode, GiftCardCode: inv.giftCardCode,
		Currency: inv.Amount.Currency, CustomerID: inv.CustomerID, BuyerName: inv.Buyer.Name, BuyerEmail: inv.Buyer.Email,
		GSI1PK: invoiceKey(inv.ID), GSI1SK: invoiceKey(inv.ID),
		GSI2PK: customerKey(inv.CustomerID), GSI2SK: datedKey(prefixInvoice, inv.Date),
	}
	for _, p := range inv.Payments {
		r.Detail.Payments = append(r.Detail.Payments, paymentRecord{Type: p.Type, Amount: p.Amount.Amount, Reference: p.Reference, Provider: p.Provider})
	}
	r.Detail.VAT = vatRecords(inv.VAT)
	return r
}

type shipmentRecord struct {
	PK          string  `dynamodbav:"PK"` // o#order
	SK          string  `dynamodbav:"SK"` // sh#id
	EntityType  string  `dynamodbav:"EntityType"`
	Number      string  `dynamodbav:"Number,omitempty"`
	OrderNumber string  `dynamodbav:"OrderNumber,omitempty"`
	WarehouseID string  `dynamodbav:"WarehouseID"`
	Type        string  `dynamodbav:"Type"`
	Status      string  `dynamodbav:"Status"`
	Address     Address `dynamodbav:"Address"`
	Date        string  `dynamodbav:"Date"`
	ShippedAt   string  `dynamodbav:"ShippedAt,omitempty"`
	DeliveredAt string  `dynamodbav:"DeliveredAt,omitempty"`
	GSI1PK      string  `dynamodbav:"GSI1-PK"` // sh#id
	GSI1SK      string  `dynamodbav:"GSI1-SK"` // sh#id
	GSI2PK      string  `dynamodbav:"GSI2-PK"` // w#warehouse
	GSI2SK      string  `dynamodbav:"GSI2-SK"` // sh#id

	Carrier  string `dynamodbav:"Carrier,omitempty"`
	Tracking string `dynamodbav:"Tracking,omitempty"`
	Version  int    `dynamodbav:"Version,omitempty"`
	// The shipments-by-status list: shipments#<status>#n, and the time it
	// reached the status with its id.
	ShsPK string `dynamodbav:"SHS-PK,omitempty"`
	ShsSK string `dynamodbav:"SHS-SK,omitempty"`
}

func (r shipmentRecord) shipment() Shipment {
	return Shipment{
		ID: trimPrefix(r.SK, prefixShipment), OrderID: trimPrefix(r.PK, prefixOrder),
		Number: r.Number, OrderNumber: r.OrderNumber, WarehouseID: r.WarehouseID, Type: r.Type, Status: ShipmentStatus(r.Status), ShipTo: r.Address,
		CreatedAt: parseTime(r.Date), ShippedAt: parseTime(r.ShippedAt), DeliveredAt: parseTime(r.DeliveredAt),
		Carrier: r.Carrier, Tracking: r.Tracking, Version: r.Version,
	}
}

type shipmentItemRecord struct {
	PK          string       `dynamodbav:"PK"` // o#order
	SK          string       `dynamodbav:"SK"` // shp#id
	EntityType  string       `dynamodbav:"EntityType"`
	Quantity    int          `dynamodbav:"Quantity"`
	ProductName string       `dynamodbav:"ProductName"`
	Names       ProductNames `dynamodbav:"Names,omitempty"`
	GSI1PK      string       `dynamodbav:"GSI1-PK"` // sh#shipment
	GSI1SK      string       `dynamodbav:"GSI1-SK"` // p#product
}

func (r shipmentItemRecord) shipmentItem() ShipmentItem {
	return ShipmentItem{
		ID: trimPrefix(r.SK, prefixShipItem), OrderID: trimPrefix(r.PK, prefixOrder),
		ShipmentID: trimPrefix(r.GSI1PK, prefixShipment), ProductID: trimPrefix(r.GSI1SK, prefixProduct),
		ProductName: r.ProductName, Names: r.Names, Quantity: r.Quantity,
	}
}
