package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"shop/store/demo"
	"shop/store/payment"
)

// In Chromium, staff choose "Awaiting card payment" in the orders filter
// (htmx swaps the list in) and follow an order to its hold; Ada reads until
// when to pay in her list. SHOP_SCREENSHOTS keeps the pages.
func TestBrowserStaffSeeOrdersAwaitingPayment(t *testing.T) {
	t.Parallel()
	s := newShop(t, withStripeDashboard("https://dashboard.stripe.com/test"))
	h := &heldOrders{t: t, st: s.env.Store, ada: s.customerID(t, demo.CustomerEmail)}
	held := h.hold("cf-grinder", 40*time.Minute, payment.ProviderStripe, "cs_test_a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ0123456789abcdefghijklmnop")
	h.hold("kt-mug", 2*time.Hour, payment.ProviderTest, "tsess_0123456789")
	h.hold("bk-cinnamon", 20*time.Minute, "", "")

	staff := newJourney(t, s.base)
	staff.signInAt("/admin/orders", demo.StaffEmail, demo.StaffPassword, "date-filter")
	staff.do("choose awaiting payment",
		chromedp.SetValue(sel("field-status"), "awaiting_payment"),
		chromedp.Click(sel("date-filter-submit")),
		chromedp.WaitVisible(sel("orders-held")),
	)
	if n := staff.count(sel("admin-held-row")); n != 3 {
		t.Fatalf("%d orders awaiting payment, want 3", n)
	}
	staff.shot("held-orders-list")
	staff.do("open the held order",
		chromedp.Click(`[data-order="`+held.ID+`"] `+sel("admin-order-link")),
		chromedp.WaitVisible(sel("order-hold")),
	)
	if got := staff.text(sel("hold-provider")); got != "Stripe" {
		t.Fatalf("the hold's provider %q", got)
	}
	staff.shot("held-order-page")

	ada := staff.tab("ada")
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	ada.do("her orders", chromedp.Navigate(s.base+"/orders"), chromedp.WaitVisible(sel("orders")))
	if got := ada.text(sel("order-pay-by")); !strings.HasPrefix(got, "Pay by") {
		t.Fatalf("her pending order says %q", got)
	}
	ada.shot("held-customer-orders")
	ada.do("her orders in Korean", chromedp.Navigate(s.base+"/orders?lang=ko"), chromedp.WaitVisible(sel("orders")))
	ada.shot("held-customer-orders-ko")
}
