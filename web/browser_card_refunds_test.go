package web_test

import (
	"context"
	"errors"
	"testing"

	"github.com/chromedp/chromedp"

	"shop/store"
	"shop/store/demo"
	"shop/web/paths"
)

// A card refund the bank did not take waits on the console's home; staff
// open its order from there and press "Retry now": it goes through and
// the order shows it refunded.
func TestBrowserJourneyRetryPendingCardRefund(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t)
	m := newOrderMaker(t, s.env.Store)
	ada := s.customerID(t, demo.CustomerEmail)
	o := m.place(s.env.Store, ada, line("kt-mug", 2))
	_, err := s.env.Store.RefundOrder(context.Background(), store.OrderRefundRequest{OrderID: o.ID, Key: "rf-down", Reason: "Arrived chipped",
		By: store.Customer{ID: "staff", Name: "Sam", Role: store.RoleStaff}, Amount: store.Money{Amount: 500, Currency: "EUR"}}, bankDown())
	if !errors.Is(err, store.ErrRefundCard) {
		t.Fatalf("refund while the bank is down: %v", err)
	}

	staff := newJourney(t, s.base)
	staff.signIn(demo.StaffEmail, demo.StaffPassword)
	staff.do("the console's home lists the waiting card refund",
		chromedp.Navigate(s.base+paths.Admin),
		chromedp.WaitVisible(sel("card-refund-row")),
	)
	staff.waitText("with its tries", sel("card-refund-tries"), "Tries: 1 of 6")
	staff.shot("70-card-refunds-waiting")
	staff.do("staff open its order", chromedp.Click(sel("card-refund-order")), chromedp.WaitVisible(sel("order-refunds")))
	staff.waitText("the refund is pending", sel("order-refund-status"), "Card refund pending")
	staff.shot("71-order-card-refund-pending")
	staff.do("staff retry it now", chromedp.Click(sel("card-refund-retry")), chromedp.WaitVisible(sel("flash")))
	staff.waitText("it went through", sel("flash"), "went through")
	staff.waitText("the refund is done", sel("order-refund-status"), "Refunded")
	staff.shot("72-card-refund-retried")
}
