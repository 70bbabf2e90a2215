package web_test

import (
	"net/http"
	"net/url"
	"testing"

	"shop/store/demo"
)

// The staff return pages, their flashes and the refusals the middleware
// gives (a form without its CSRF token, a customer at /admin) speak the
// visitor's language.
func TestStaffReturnsAndRefusalsInKoreanAndIndonesian(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t)
	m := newOrderMaker(t, s.env.Store)
	o := deliveredOrder(t, s, m)
	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	p := ada.get("/orders/" + o.ID)
	wantStatus(t, "ask", ada.post("/orders/"+o.ID+"/returns", returnForm(p, "Arrived damaged", map[string]string{"bk-cinnamon": "2"})), http.StatusSeeOther)

	for _, tc := range []struct {
		lang, title, requested, receive, csrf, staffOnly string
	}{
		{lang: "ko", title: "반품", requested: "요청됨", receive: "입고로 표시", csrf: "양식은 만료되었거나", staffOnly: "직원만"},
		{lang: "id", title: "Retur", requested: "Diminta", receive: "Tandai diterima", csrf: "Formulir ini sudah kedaluwarsa", staffOnly: "hanya untuk staf"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			b := s.staff(t)
			list := b.get("/admin/returns?lang=" + tc.lang)
			wantStatus(t, "returns list", list, http.StatusOK)
			wantText(t, "list title", list.doc.Find("h1"), tc.title)
			wantText(t, "requested tab", list.testid("tab-requested"), tc.requested)
			href, ok := list.testid("return-link").First().Attr("href")
			if !ok {
				t.Fatal("no return in the list")
			}
			rp := b.get(href)
			wantStatus(t, "return page", rp, http.StatusOK)
			wantText(t, "status badge", rp.testid("return-status"), tc.requested)
			wantText(t, "receive button", rp.testid("receive-return"), tc.receive)

			refused := b.post(href+"/receive", url.Values{"_csrf": {"forged-token"}, "version": {returnVersion(t, rp, "receive-form")}})
			wantStatus(t, "forged token", refused, http.StatusForbidden)
			wantText(t, "CSRF refusal", refused.testid("error-message"), tc.csrf)

			customer := s.browser(t)
			customer.signIn(demo.CustomerEmail, demo.CustomerPassword)
			denied := customer.get("/admin/returns?lang=" + tc.lang)
			wantStatus(t, "customer at the console", denied, http.StatusForbidden)
			wantText(t, "staff-only refusal", denied.testid("error-message"), tc.staffOnly)
		})
	}
}
