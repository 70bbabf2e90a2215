package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"shop/store/demo"
	"shop/web/paths"
)

// Staff refund a unit of an order not shipped yet from its page (back
// where it was allocated, as the form says); the
// customer sees the refund on their order page, cancels another order
// through the confirm page and sees it cancelled.
func TestBrowserJourneyRefundAndCancel(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t)
	m := newOrderMaker(t, s.env.Store)
	ada := s.customerID(t, demo.CustomerEmail)
	refunded := m.place(s.env.Store, ada, line("kt-mug", 2), line("cf-grinder", 1))
	cancelled := m.place(s.env.Store, ada, line("bk-cinnamon", 1))

	staff := newJourney(t, s.base)
	staff.signIn(demo.StaffEmail, demo.StaffPassword)
	staff.do("staff open the order's refund form",
		chromedp.Navigate(s.base+paths.AdminOrder(refunded.ID)),
		chromedp.WaitVisible(sel("refund-form")),
		chromedp.WaitVisible(sel("restock-unshipped")),
		chromedp.SendKeys(sel("field-units-kt-mug"), "1"),
		chromedp.SendKeys(sel("field-reason"), "Arrived chipped"),
	)
	staff.shot("60-refund-form")
	staff.do("staff ask to refund", chromedp.Click(sel("refund-submit")), chromedp.WaitVisible(sel("refund-confirm-title")))
	staff.waitText("the confirmation says where the money goes", sel("refund-confirm-to"), "€18.90")
	staff.shot("61-refund-confirm")
	staff.do("staff confirm", chromedp.Click(sel("refund-confirm-yes")), chromedp.WaitVisible(sel("order-refund-row")))
	staff.waitText("the refund is listed", sel("order-refund-amount"), "€18.90")
	staff.shot("61-refunded")

	c := staff.tab("customer")
	c.signInAt(paths.Order(refunded.ID), demo.CustomerEmail, demo.CustomerPassword, "refund")
	c.waitText("the customer sees the refund", sel("refund"), "Arrived chipped")
	c.shot("62-customer-refund")
	c.do("the customer asks to cancel another order",
		chromedp.Navigate(s.base+paths.Order(cancelled.ID)),
		chromedp.Click(sel("cancel-order")),
		chromedp.WaitVisible(sel("cancel-confirm")),
	)
	c.do("and confirms", chromedp.Click(sel("cancel-submit")), chromedp.WaitVisible(sel("refund")))
	c.waitText("the order is cancelled", sel("order-status"), "Cancelled")

	// The outbox, with the refund's and the cancellation's mails, fits the
	// console's column at 1280 px in every language.
	for _, lang := range []string{"id", "ko", "en"} {
		staff.do("the outbox in "+lang, chromedp.Navigate(s.base+paths.AdminOutbox+"?lang="+lang), chromedp.WaitVisible(sel("mail-row")))
		staff.tableFits(lang, "outbox")
		staff.shot("63-outbox-" + lang)
	}
}
