package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"shop/store/demo"
)

// Staff refund part of a demo receipt in Chromium: from the customer's
// page to the receipt, the form, and the refund shown; the customer then
// sees it on their receipt.
func TestBrowserStaffRefundAReceipt(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ada := s.customerID(t, demo.CustomerEmail)
	rec := s.receiptOf(t, ada)
	j := newJourney(t, s.base)
	j.signInAt("/admin/customers/"+ada, demo.StaffEmail, demo.StaffPassword, "customer-receipts")
	j.do("open the receipt",
		chromedp.Click(`a[href="/admin/customers/`+ada+`/receipts/`+rec.Number+`"]`),
		chromedp.WaitVisible(sel("refund-form")),
	)
	j.do("refund part of it",
		chromedp.SetValue(sel("field-amount"), "2.00"),
		chromedp.SendKeys(sel("field-reason"), "One bag arrived torn"),
		chromedp.Click(sel("refund-submit")),
		chromedp.WaitVisible(sel("refund-confirm-yes")),
	)
	j.waitText("the confirmation names the card", sel("refund-confirm-to"), "€2.00")
	j.shot("39-receipt-refund-confirm")
	j.do("confirm it", chromedp.Click(sel("refund-confirm-yes")), chromedp.WaitVisible(sel("receipt-refund")))
	if got := j.text(sel("receipt-refund")); !strings.Contains(got, "−€2.00") || !strings.Contains(got, "One bag arrived torn") {
		t.Fatalf("the refund reads %q", got)
	}
	if j.count(sel("refund-form")) != 0 {
		t.Fatal("the refunded receipt still has its form")
	}
	j.shot("40-receipt-refunded")
	customer := j.tab("ada")
	customer.signInAt("/receipts/"+rec.Number, demo.CustomerEmail, demo.CustomerPassword, "receipt-refund")
	if got := customer.text(sel("receipt-refund")); !strings.Contains(got, "−€2.00") {
		t.Fatalf("the customer's receipt reads %q", got)
	}
	customer.shot("41-receipt-refunded-customer")
	customer.do("their receipts", chromedp.Navigate(s.base+"/receipts"), chromedp.WaitVisible(sel("receipts")))
	if got := customer.text(sel("receipt-row-refund")); !strings.Contains(got, "less a refund of €2.00") {
		t.Fatalf("the receipts' row reads %q", got)
	}
	customer.shot("42-receipts-refunded-row")
}
