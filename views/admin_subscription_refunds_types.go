package views

import (
	"time"

	"shop/store"
)

// AdminReceiptPage is one of a customer's receipts for staff: its refund,
// or the form to refund it.
type AdminReceiptPage struct {
	Receipt store.Receipt
	Form    AdminRefundForm
	Loc     *time.Location
}

// AdminRefundForm refunds a receipt, in full or in part, with a reason.
type AdminRefundForm struct {
	Key    string // idempotency key: a double submit refunds once
	Amount string
	Reason string
	Errors FieldErrors
	CSRF   string
}

// AdminSubscriptionSettingsPage is staff's subscription settings.
type AdminSubscriptionSettingsPage struct {
	Settings store.SubscriptionSettings
	Error    string
	CSRF     string
}

// AdminPriceChangesPage is the scheduled price changes and the form.
type AdminPriceChangesPage struct {
	Changes []store.PriceChange
	Form    AdminPriceForm
	Today   time.Time
}

// AdminPriceForm schedules a product's new monthly price.
type AdminPriceForm struct {
	ProductID string
	Price     string
	Date      string
	Earliest  string // the first day a new price may apply
	Errors    FieldErrors
	CSRF      string
}

// AdminSettingsTab and AdminPricesTab name the tabs beside the statuses.
const (
	AdminSettingsTab = "settings"
	AdminPricesTab   = "prices"
)

// refundWords says where a receipt's refund is, for staff and customers.
func refundWords(r *store.ReceiptRefund) string {
	switch {
	case r == nil:
		return ""
	case r.Status == store.ReceiptRefundPending:
		return "refund of " + r.Amount.String() + " under way"
	}
	return "refunded " + r.Amount.String()
}

// priceChangeState says where a price change is.
func priceChangeState(c store.PriceChange, today time.Time) string {
	switch {
	case !c.AppliedOn.IsZero():
		return "applied on " + adminDate(c.AppliedOn)
	case !c.AnnouncedOn.IsZero():
		return "announced on " + adminDate(c.AnnouncedOn) + " to " + itoa(c.Announced) + " subscriptions"
	case c.AnnounceOn().After(today):
		return "subscribers are mailed on " + adminDate(c.AnnounceOn())
	}
	return "subscribers are mailed on the next reminders run"
}
