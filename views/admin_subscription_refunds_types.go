package views

import (
	"context"
	"time"

	"shop/store"
)

// AdminReceiptPage is one of a customer's receipts for staff: its refund,
// or the form to refund it.
type AdminReceiptPage struct {
	Receipt store.Receipt
	Form    AdminRefundForm
	Loc     *time.Location
	Seller  store.Seller // who sells, printed on it
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

// priceChangeState says where a price change is.
func priceChangeState(ctx context.Context, c store.PriceChange, today time.Time) string {
	switch {
	case !c.AppliedOn.IsZero():
		return t(ctx, "admin.subrefunds.state.applied", "Day", adminDate(c.AppliedOn))
	case !c.AnnouncedOn.IsZero():
		return tn(ctx, "admin.subrefunds.state.announced", c.Announced, "Day", adminDate(c.AnnouncedOn))
	case c.AnnounceOn().After(today):
		return t(ctx, "admin.subrefunds.state.mailed_on", "Day", adminDate(c.AnnounceOn()))
	}
	return t(ctx, "admin.subrefunds.state.mailed_next")
}
