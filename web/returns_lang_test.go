package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"shop/store"
	"shop/store/demo"
)

// Staff read a return in Korean and Indonesian: the customer's reason in
// their language (the store keeps it in English), Returns lit in the
// sidebar on the return's page (which sits under its order), and the
// order number kept on one line.
func TestAdminReturnsInKoreanAndIndonesian(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	o := deliveredOrder(t, s, newOrderMaker(t, s.env.Store))
	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	path := "/orders/" + o.ID
	p := ada.get(path)
	wantStatus(t, "ask", ada.post(path+"/returns", returnForm(p, "Arrived damaged", map[string]string{"bk-cinnamon": "1"})), http.StatusSeeOther)

	b := s.staff(t)
	href, _ := b.get("/admin/returns").testid("return-link").Attr("href")
	for _, c := range []struct{ lang, reason string }{{"en", "Arrived damaged"}, {"ko", "파손되어 도착함"}, {"id", "Tiba dalam keadaan rusak"}} {
		list := b.get("/admin/returns?lang=" + c.lang)
		wantStatus(t, c.lang+" returns list", list, http.StatusOK)
		if got := strings.TrimSpace(list.testid("return-row").Find("td").Eq(5).Text()); got != c.reason {
			t.Errorf("%s list: reason %q, want %q", c.lang, got, c.reason)
		}
		rp := b.get(href + "?lang=" + c.lang)
		wantStatus(t, c.lang+" return page", rp, http.StatusOK)
		wantText(t, c.lang+" return's reason", rp.testid("return-reason"), c.reason)
		if c.lang != "en" && strings.Contains(rp.testid("return-reason").Text(), "Arrived damaged") {
			t.Errorf("%s return page shows the reason in English: %q", c.lang, rp.testid("return-reason").Text())
		}
		if rp.testid("nav-returns").AttrOr("aria-current", "") != "page" || rp.testid("nav-orders").AttrOr("aria-current", "") != "" {
			t.Errorf("%s return page: the sidebar lights the wrong section", c.lang)
		}
		if !rp.testid("return-order").HasClass("nowrap") {
			t.Errorf("%s return page: the order number may break at its hyphen", c.lang)
		}
	}
	// The order's own page still lights Orders.
	if b.get("/admin/orders/"+o.ID).testid("nav-orders").AttrOr("aria-current", "") != "page" {
		t.Error("the order's page does not light Orders")
	}
	empty := b.get("/admin/returns?status=rejected&lang=en")
	wantText(t, "empty list", empty.testid("returns-empty"), "No returns in “Rejected”.")
}

// A signed-in customer who switches the shop to Korean by link has their
// subscriptions that still mail them follow; cancelled ones and other
// customers' stay as they were.
func TestCustomerLanguageReachesTheirSubscriptions(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx, st := context.Background(), s.env.Store
	ada, henrik := s.customerID(t, demo.CustomerEmail), s.customerID(t, "henrik@fikafield.example")
	before, err := st.Subscriptions(ctx, henrik)
	if err != nil {
		t.Fatal(err)
	}
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	page := b.get("/subscriptions?lang=ko")
	wantStatus(t, "subscriptions in Korean", page, http.StatusOK)
	subs, err := st.Subscriptions(ctx, ada)
	if err != nil || len(subs) == 0 {
		t.Fatalf("Ada's subscriptions: %d, %v", len(subs), err)
	}
	for _, sub := range subs {
		if sub.Status != store.SubscriptionCancelled && sub.Lang != "ko" {
			t.Errorf("Ada's %s subscription to %s mails in %q after her switch to Korean", sub.Status, sub.ProductID, sub.Lang)
		}
		// Named in Korean on her page and her receipts, as staff named
		// the product when she subscribed.
		if ko := sub.Names["ko"]; ko == "" {
			t.Errorf("Ada's subscription to %s keeps no Korean name", sub.ProductID)
		} else if !strings.Contains(page.testid("subscriptions").Text(), ko) {
			t.Errorf("her subscriptions page does not name %q", ko)
		}
	}
	receipts := b.get("/receipts")
	first := receipts.testid("receipt-link").First()
	if name := first.Text(); !strings.ContainsFunc(name, func(r rune) bool { return r >= 0xAC00 && r <= 0xD7A3 }) {
		t.Errorf("her newest receipt is named %q, not in Hangul", name)
	}
	after, err := st.Subscriptions(ctx, henrik)
	if err != nil {
		t.Fatal(err)
	}
	for i := range after {
		if after[i].Lang != before[i].Lang || after[i].Version != before[i].Version {
			t.Errorf("Henrik's subscription %s moved: %q v%d, was %q v%d", after[i].ID, after[i].Lang, after[i].Version, before[i].Lang, before[i].Version)
		}
	}
}
