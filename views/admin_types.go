package views

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"shop/store"
	"shop/web/paths"
)

// The typed data of the staff console's pages, and the small helpers their
// templates share. Everything here is prefixed Admin/admin: the storefront
// has its own orders and invoices.

// AdminDateFilter is the from/to form of a list by day. The form swaps the
// element Target (its own section) with htmx and pushes the URL; without
// JavaScript it is a plain GET of Action.
type AdminDateFilter struct {
	Action string
	Target string
	From   string
	To     string
	Errors FieldErrors
}

// AdminStockOn says which page a stock row sits on.
type AdminStockOn string

const (
	StockOnWarehouse AdminStockOn = "warehouse" // rows are products
	StockOnProduct   AdminStockOn = "product"   // rows are warehouses
)

// AdminStockRow is one stock level with its adjustment form: a row of the
// warehouse's inventory or of the product's stock, and what htmx swaps
// after an adjustment.
type AdminStockRow struct {
	On      AdminStockOn
	Level   store.StockLevel // ProductID and WarehouseID always set
	Stocked bool             // false: the warehouse never held the product
	Delta   string           // as typed, after an error
	Reason  string
	Errors  FieldErrors
	Saved   string // what the last adjustment did
	CSRF    string
}

// ID is the row's element id, unique on either page.
func (r AdminStockRow) ID() string { return "stock-" + r.Level.WarehouseID + "-" + r.Level.ProductID }

// AdminStockAdjustPage shows one stock adjustment form alone: the answer to
// a form sent without JavaScript that needs correcting.
type AdminStockAdjustPage struct {
	Warehouse store.Warehouse
	Product   store.Product
	Row       AdminStockRow
	BackURL   string
}

// AdminWarehouseTab names a tab of a warehouse's pages.
type AdminWarehouseTab string

const (
	WarehouseTabInventory   AdminWarehouseTab = "inventory"
	WarehouseTabShipments   AdminWarehouseTab = "shipments"
	WarehouseTabAdjustments AdminWarehouseTab = "adjustments"
)

// AdminWarehouseInventory is a warehouse's inventory tab: a page of stock
// with adjustment forms and the latest adjustments.
type AdminWarehouseInventory struct {
	WarehousePage
	CSRF   string
	Recent []store.StockAdjustment
}

// Row is the stock row of one level of this page.
func (p AdminWarehouseInventory) Row(l store.StockLevel) AdminStockRow {
	return AdminStockRow{On: StockOnWarehouse, Level: l, Stocked: true, CSRF: p.CSRF}
}

// AdminWarehouseShipments is a warehouse's shipments tab, newest first.
type AdminWarehouseShipments struct {
	Warehouse store.Warehouse
	Shipments []store.Shipment
	NextURL   string
}

// AdminWarehouseAdjustments is a warehouse's stock adjustments tab.
type AdminWarehouseAdjustments struct {
	Warehouse   store.Warehouse
	Adjustments []store.StockAdjustment
	NextURL     string
}

// AdminProductList is a page of the catalogue for staff.
type AdminProductList struct {
	Products   []store.Product
	Categories []store.Category
	Category   string // the filter, "" for all
	NextURL    string
}

// CategoryName is the name of a category slug, the slug if unknown.
func (p AdminProductList) CategoryName(slug string) string { return categoryName(p.Categories, slug) }

func categoryName(cats []store.Category, slug string) string {
	for _, c := range cats {
		if c.Slug == slug {
			return c.Name
		}
	}
	return slug
}

// AdminProductForm is the new or edit product form as typed.
type AdminProductForm struct {
	ID          string // "" for a new product
	Name        string
	Description string
	Category    string
	Price       string
	Currency    string
	// Subscribable offers the product by subscription at MonthlyPrice.
	Subscribable bool
	MonthlyPrice string
	Categories   []store.Category
	Errors       FieldErrors
	CSRF         string
}

// Action is where the form posts.
func (f AdminProductForm) Action() string {
	if f.ID == "" {
		return paths.AdminProducts
	}
	return paths.AdminProduct(f.ID)
}

// AdminProductOrders is the orders-of-a-product section: its date filter
// and a page of order lines, newest first.
type AdminProductOrders struct {
	ProductID string
	Filter    AdminDateFilter
	Items     []store.OrderItem
	NextURL   string
}

// AdminProductPage is a product's staff page: the edit form, its stock in
// every warehouse and its orders.
type AdminProductPage struct {
	Product store.Product
	Form    AdminProductForm
	Stock   []AdminStockRow
	Orders  AdminProductOrders
}

// StockTotal is the product's stock over every warehouse.
func (p AdminProductPage) StockTotal() int {
	n := 0
	for _, r := range p.Stock {
		n += r.Level.Quantity
	}
	return n
}

// AdminOrderList is the orders of a date range, newest first.
type AdminOrderList struct {
	Filter  AdminDateFilter
	Orders  []store.Order
	NextURL string
	CSVURL  string
}

// AdminOrderPage is one order with everything staff act on.
type AdminOrderPage struct {
	Details       store.OrderDetails
	Warehouses    map[string]string // id -> name
	ShippingTypes []string
	Error         string // why the last action was refused
	CSRF          string
}

// WarehouseName is the name of a warehouse id, the id if unknown.
func (p AdminOrderPage) WarehouseName(id string) string {
	if n, ok := p.Warehouses[id]; ok {
		return n
	}
	return id
}

// CanShip says whether shipments can be created now.
func (p AdminOrderPage) CanShip() bool {
	return len(p.Details.Shipments) == 0 && p.Details.Order.Status == store.OrderPlaced
}

// AdminCustomerList is a page of customers and the find-by-email form.
type AdminCustomerList struct {
	Customers []store.Customer
	NextURL   string
	Email     string
	Errors    FieldErrors
}

// AdminCustomerActivity is a customer's invoices and ordered products in a
// date range: the part of the page the date filter swaps.
type AdminCustomerActivity struct {
	CustomerID   string
	Filter       AdminDateFilter
	Invoices     []store.Invoice
	InvoicesNext string
	Products     []store.OrderItem
	ProductsNext string
}

// AdminCustomerBilling is a customer's subscriptions and a page of their
// receipts of the last six months, newest first.
type AdminCustomerBilling struct {
	CustomerID    string
	Subscriptions []store.Subscription
	Receipts      []store.Receipt
	ReceiptsNext  string
}

// AdminCustomerPage is one customer for staff.
type AdminCustomerPage struct {
	Customer store.Customer
	Billing  AdminCustomerBilling
	Activity AdminCustomerActivity
}

// AdminSubscriptionsDueTab names the "due on a day" tab beside the statuses.
const AdminSubscriptionsDueTab = "due"

// AdminSubscriptionList is a page of the subscriptions in one status,
// newest first.
type AdminSubscriptionList struct {
	Status        store.SubscriptionStatus
	Subscriptions []store.Subscription
	NextURL       string
}

// AdminSubscriptionsDue is what the billing jobs have to do on one day: the
// reminders to send and the payments to take (or retry, or end), each a
// page at a time.
type AdminSubscriptionsDue struct {
	Date          string // as typed; YYYY-MM-DD once checked
	Today         string
	Errors        FieldErrors
	Reminders     []store.Subscription
	RemindersNext string
	Payments      []store.Subscription
	PaymentsNext  string
}

// adminDate is a billing date as staff read it; "—" when unset.
func adminDate(d time.Time) string {
	if d.IsZero() {
		return "—"
	}
	return store.FormatDate(d)
}

// adminEvery is a subscription's period in words.
func adminEvery(months int) string {
	if months == 1 {
		return "every month"
	}
	return "every " + strconv.Itoa(months) + " months"
}

// adminSubscriptionState says where a subscription stands, with its date.
func adminSubscriptionState(s store.Subscription) string {
	switch {
	case s.Ending():
		return "ends on " + adminDate(s.EndsOn)
	case s.Status == store.SubscriptionActive:
		return "next payment " + adminDate(s.NextPaymentDate)
	case s.Status == store.SubscriptionPastDue:
		return "payment of " + adminDate(s.NextPaymentDate) + " failed; retry on " + adminDate(s.RetryDate)
	case s.Status == store.SubscriptionPaused:
		return "paused since " + adminDate(s.PausedOn)
	case s.Status == store.SubscriptionCancelled:
		return "cancelled on " + adminDate(s.CancelledOn)
	}
	return ""
}

// adminDueAction is what the payment job does with a subscription that is
// due: charge it, retry it, or end it.
func adminDueAction(s store.Subscription) string {
	switch {
	case s.Ending():
		return "end (cancelled at period end)"
	case s.Status == store.SubscriptionPastDue:
		return "retry " + s.Amount().String()
	}
	return "charge " + s.Amount().String()
}

// adminPeriod is the period a receipt paid for.
func adminPeriod(from, to time.Time) string {
	if from.IsZero() {
		return "—"
	}
	return adminDate(from) + " – " + adminDate(to)
}

// AdminInvoiceLookup is the find-an-invoice form.
type AdminInvoiceLookup struct {
	ID     string
	Errors FieldErrors
}

// AdminInvoicePage is one invoice and its payments.
type AdminInvoicePage struct {
	Invoice store.Invoice
}

// AdminShipmentPage is one shipment and its items.
type AdminShipmentPage struct {
	Shipment  store.Shipment
	Warehouse store.Warehouse
}

// AdminGiftCardForm is the new gift card form as typed.
type AdminGiftCardForm struct {
	Code   string
	Amount string
	Errors FieldErrors
	CSRF   string
}

// AdminGiftCards lists gift cards and offers the form.
type AdminGiftCards struct {
	Cards   []store.GiftCard
	NextURL string
	Form    AdminGiftCardForm
}

// AdminDiscountForm is the new discount code form as typed.
type AdminDiscountForm struct {
	Code    string
	Kind    string
	Value   string
	Expires string // YYYY-MM-DD, the last day it works
	Limit   string
	Errors  FieldErrors
	CSRF    string
}

// AdminDiscounts lists discount codes and offers the form.
type AdminDiscounts struct {
	Codes   []store.DiscountCode
	NextURL string
	Now     time.Time
	Form    AdminDiscountForm
}

// adminTime is an instant as staff read it, in UTC; "—" when unset.
func adminTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// adminStamp is an instant in a table column headed "(UTC)", on one line.
func adminStamp(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02\u00a015:04")
}

// adminDay is the day of an instant, in UTC.
func adminDay(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02")
}

// discountLastDay is the last day a code works: it expires at the start of
// the next.
func discountLastDay(d store.DiscountCode) string {
	if d.ExpiresAt.IsZero() {
		return "—"
	}
	return adminDay(d.ExpiresAt.Add(-time.Millisecond))
}

func discountValue(d store.DiscountCode) string {
	if d.Kind == store.DiscountPercent {
		return strconv.Itoa(d.Percent) + " %"
	}
	return d.Amount.String()
}

func discountState(d store.DiscountCode, now time.Time) string {
	switch d.Usable(now) {
	case nil:
		return "active"
	case store.ErrCodeExpired:
		return "expired"
	default:
		return "used up"
	}
}

func signed(n int) string {
	if n > 0 {
		return "+" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

func allocationText(a store.Allocation, name string) string {
	return fmt.Sprintf("%d from %s", a.Quantity, name)
}

func shortAddress(a store.Address) string {
	if a.City == "" {
		return a.Country
	}
	if a.Country == "" {
		return a.City
	}
	return a.City + ", " + a.Country
}

// adminStatusTitle is a status as a tab names it: "Past due".
func adminStatusTitle(st store.SubscriptionStatus) string {
	l := st.Label()
	if l == "" {
		return l
	}
	return strings.ToUpper(l[:1]) + l[1:]
}
