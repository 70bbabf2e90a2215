package web_test

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"shop/store"
	"shop/store/carrier"
	"shop/store/demo"
)

// step sends a shipment change the way a person does: the form with the
// version the shipment's page shows, then the confirm page's form. It
// returns the confirmed answer, or the first one when it is no confirm page.
func (b *browser) step(orderPath, sid string, form url.Values) page {
	b.t.Helper()
	form.Set("version", shipmentVersion(b, sid))
	p := b.post(orderPath+"/shipments/"+sid, form)
	if p.status != http.StatusOK || p.testid("confirm-form").Length() != 1 {
		return p
	}
	return b.post(orderPath+"/shipments/"+sid, hiddenFields(p, "confirm-form"))
}

// shipmentVersion is the version the shipment's page carries in its forms.
func shipmentVersion(b *browser, sid string) string {
	b.t.Helper()
	sh := b.get("/admin/shipments/" + sid)
	v, ok := sh.doc.Find(`form input[name="version"]`).First().Attr("value")
	if !ok {
		b.t.Fatalf("shipment %s's page has no form with its version (status %d)", sid, sh.status)
	}
	return v
}

// hiddenFields are a form's hidden inputs, as the browser would send them.
func hiddenFields(p page, testid string) url.Values {
	form := url.Values{}
	p.testid(testid).Find(`input[type="hidden"]`).Each(func(_ int, in *goquerySelection) {
		name, _ := in.Attr("name")
		value, _ := in.Attr("value")
		form.Set(name, value)
	})
	return form
}

// shippingOrder is an order of Ada's with its shipments made; it returns
// the order's staff path and its first shipment's id.
func shippingOrder(t *testing.T, s *shop, b *browser) (store.Order, string, string) {
	t.Helper()
	m := newOrderMaker(t, s.env.Store)
	o := m.place(s.env.Store, s.customerID(t, demo.CustomerEmail), line("cf-grinder", 1))
	path := "/admin/orders/" + o.ID
	b.get(path)
	wantStatus(t, "create shipments", b.post(path+"/shipments", url.Values{"type": {"Standard"}}), http.StatusSeeOther)
	var sid string
	b.get(path).testid("order-shipment").Each(func(_ int, a *goquerySelection) {
		if sid == "" {
			sid, _ = a.Attr("data-shipment")
		}
	})
	if sid == "" {
		t.Fatal("no shipment made")
	}
	return o, path, sid
}

// Staff ship with a carrier picked from the list and a tracking number
// checked against its format, confirm, see who did it, undo, step back;
// bad input is refused with the reason beside the field, and the
// customer sees the carrier's link.
func TestAdminShipWithTrackingConfirmUndo(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	o, path, sid := shippingOrder(t, s, b)
	shPath := "/admin/shipments/" + sid

	p := b.get(shPath)
	wantStatus(t, "shipment page", p, http.StatusOK)
	if n := p.testid("ship-carrier").Find("option").Length(); n != len(carrier.All())+1 {
		t.Fatalf("%d carrier options, want the %d carriers and a prompt", n, len(carrier.All()))
	}
	wantText(t, "no history yet", p.testid("history-empty"), "No changes")
	wantText(t, "packing slip link", p.testid("packing-slip-link"), "Packing slip")

	ship := func(c, tracking string) url.Values {
		return url.Values{"status": {"shipped"}, "carrier": {c}, "tracking": {tracking}, "version": {"1"}}
	}
	for _, bad := range []struct {
		what, carrier, tracking, field, says string
	}{
		{"no carrier", "", "1Z999AA10123456784", "error-carrier", "choose a carrier"},
		{"unknown carrier", "pigeon", "1Z999AA10123456784", "error-carrier", "choose a carrier"},
		{"no number", "ups", "  ", "error-tracking", "type the tracking number"},
		{"not a UPS number", "ups", "RR123456785SE", "error-tracking", "not a number UPS issues"},
		{"a mistyped UPS number", "ups", "1Z999AA10123456785", "error-tracking", "check digit"},
		{"a mistyped S10 number", "postnord", "RR123456784SE", "error-tracking", "check digit"},
	} {
		p := b.post(path+"/shipments/"+sid, ship(bad.carrier, bad.tracking))
		wantStatus(t, bad.what, p, http.StatusUnprocessableEntity)
		wantText(t, bad.what, p.testid(bad.field), bad.says)
		if v, _ := p.testid("ship-tracking").Attr("value"); v != bad.tracking {
			t.Fatalf("%s: the typed number %q came back as %q", bad.what, bad.tracking, v)
		}
		if p.testid("error-summary").Length() != 1 {
			t.Fatalf("%s: no error summary", bad.what)
		}
	}
	wantStatus(t, "no version", b.post(path+"/shipments/"+sid, url.Values{"status": {"shipped"}}), http.StatusBadRequest)
	p = b.post(path+"/shipments/"+sid, url.Values{"status": {"shipped"}, "carrier": {"ups"}, "tracking": {"1Z999AA10123456784"}, "version": {"7"}})
	wantStatus(t, "a version never seen", p, http.StatusConflict)
	wantText(t, "stale", p.testid("form-error"), "changed while you were looking")
	wantStatus(t, "another order's path", b.post("/admin/orders/nope/shipments/"+sid, ship("ups", "1Z999AA10123456784")), http.StatusNotFound)

	// The first step asks; nothing changes until confirmed.
	p = b.post(path+"/shipments/"+sid, ship("ups", "1z 999 aa1 0123 456 784"))
	wantStatus(t, "confirm page", p, http.StatusOK)
	wantText(t, "confirm", p.testid("confirm-title"), "Mark shipped?")
	wantText(t, "normalised number", p.testid("confirm-tracking"), "1Z999AA10123456784")
	wantText(t, "still pending", b.get(shPath).testid("shipment-status"), "Packed")
	confirm := hiddenFields(p, "confirm-form")
	p = b.post(path+"/shipments/"+sid, confirm)
	wantStatus(t, "confirmed", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); loc != shPath {
		t.Fatalf("confirmed change goes to %q", loc)
	}
	p = b.get(shPath)
	wantText(t, "flash", p.testid("flash"), "marked shipped with UPS 1Z999AA10123456784")
	wantText(t, "status", p.testid("shipment-status"), "Shipped")
	link := p.testid("tracking-link")
	if href, _ := link.Attr("href"); href != carrier.TrackingURL("ups", "1Z999AA10123456784") {
		t.Fatalf("tracking link %q", href)
	}
	if rel, _ := link.Attr("rel"); rel != "noopener" {
		t.Fatalf("tracking link rel %q", rel)
	}
	staffName := strings.TrimSpace(p.testid("viewer-name").Text())
	wantText(t, "who", p.testid("history-who"), staffName)
	wantText(t, "what", p.testid("history-what"), "Marked shipped with UPS 1Z999AA10123456784")
	if p.testid("undo-change").Length() != 1 {
		t.Fatal("the change just made cannot be undone")
	}
	// The same confirmed form again is on a version gone: 409, not a second change.
	wantStatus(t, "confirmed twice", b.post(path+"/shipments/"+sid, confirm), http.StatusConflict)

	// The customer sees the carrier, the date in the shop's zone and the link.
	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	cp := ada.get("/orders/" + o.ID)
	wantStatus(t, "customer's order", cp, http.StatusOK)
	wantText(t, "shipped line", cp.testid("shipment-shipped"), "Shipped ")
	wantText(t, "carrier", cp.testid("shipment-shipped"), "with UPS")
	if z := s.env.Store.Location().String(); z == "Europe/Stockholm" && !strings.Contains(cp.testid("shipment-shipped").Text(), "CE") {
		t.Fatalf("shipped date without the shop's zone: %q", cp.testid("shipment-shipped").Text())
	}
	cl := cp.testid("shipment-tracking-link")
	if href, _ := cl.Attr("href"); href != carrier.TrackingURL("ups", "1Z999AA10123456784") {
		t.Fatalf("customer's tracking link %q", href)
	}
	if rel, _ := cl.Attr("rel"); rel != "noopener" {
		t.Fatalf("customer's tracking link rel %q", rel)
	}
	if target, _ := cl.Attr("target"); target != "_blank" {
		t.Fatalf("customer's tracking link target %q", target)
	}
	if cp.testid("history-who").Length() != 0 || strings.Contains(cp.body, staffName) && staffName != "" {
		t.Fatal("the customer sees who on the staff changed the shipment")
	}

	// Delivered, then undone: shipped again with its tracking kept.
	wantStatus(t, "deliver", b.step(path, sid, url.Values{"status": {"delivered"}}), http.StatusSeeOther)
	wantText(t, "delivered on the customer's page", ada.get("/orders/"+o.ID).testid("shipment-delivered"), "Delivered ")
	p = b.get(shPath)
	change, _ := p.testid("undo-change").Parent().Find(`input[name="change"]`).Attr("value")
	wantStatus(t, "undo without a change", b.post(path+"/shipments/"+sid+"/undo", url.Values{}), http.StatusBadRequest)
	wantStatus(t, "undo of no change", b.post(path+"/shipments/"+sid+"/undo", url.Values{"change": {"nope"}}), http.StatusNotFound)
	wantStatus(t, "undo", b.post(path+"/shipments/"+sid+"/undo", url.Values{"change": {change}}), http.StatusSeeOther)
	p = b.get(shPath)
	wantText(t, "undone", p.testid("flash"), "Undone")
	wantText(t, "status after undo", p.testid("shipment-status"), "Shipped")
	wantText(t, "tracking kept", p.testid("tracking-link"), "1Z999AA10123456784")
	if n := p.testid("history-row").Length(); n != 3 {
		t.Fatalf("%d history rows, want ship, deliver, undo", n)
	}
	wantText(t, "newest first", p.testid("history-what").First(), "Undid")
	if p.testid("undo-change").Length() != 0 {
		t.Fatal("an undo offers to be undone")
	}
	wantText(t, "order follows the undo", b.get(path).testid("order-status"), "Shipped")
	p = b.post(path+"/shipments/"+sid+"/undo", url.Values{"change": {change}})
	wantStatus(t, "undo twice", p, http.StatusConflict)
	wantText(t, "undo twice", p.testid("form-error"), "undone already")

	// A step back asks too, and drops the carrier.
	p = b.post(path+"/shipments/"+sid, url.Values{"status": {"pending"}, "version": {shipmentVersion(b, sid)}})
	wantStatus(t, "back to packing asks", p, http.StatusOK)
	wantText(t, "back", p.testid("confirm-title"), "Back to packing")
	wantStatus(t, "back to packing", b.post(path+"/shipments/"+sid, hiddenFields(p, "confirm-form")), http.StatusSeeOther)
	p = b.get(shPath)
	wantText(t, "pending again", p.testid("shipment-status"), "Packed")
	wantText(t, "no carrier", p.testid("shipment-carrier"), "—")
	if p.testid("ship-form").Length() != 1 {
		t.Fatal("a shipment back to packing cannot be shipped again")
	}
}

// Two staff confirm a change of the same shipment at once: exactly one
// wins, the other gets a 409 that says who changed it.
func TestAdminShipmentChangeRace(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	owner, err := s.env.Store.Customer(ctx, s.customerID(t, demo.StaffEmail))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.env.Store.ChangeRole(ctx, s.customerID(t, demo.CustomerEmail), store.RoleStaff, owner); err != nil {
		t.Fatal(err)
	}
	sam := s.staff(t)
	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	_, path, sid := shippingOrder(t, s, sam)

	for round, to := range []string{"shipped", "delivered", "shipped"} {
		form := url.Values{"status": {to}, "version": {shipmentVersion(sam, sid)}, "carrier": {"dhl"}, "tracking": {"JJD0123456789012"}}
		var confirms []url.Values
		for _, b := range []*browser{sam, ada} {
			b.get("/admin/shipments/" + sid)                      // each looks at the shipment first
			p := b.post(path+"/shipments/"+sid, maps.Clone(form)) // post adds the browser's own token
			wantStatus(t, "confirm page", p, http.StatusOK)
			confirms = append(confirms, hiddenFields(p, "confirm-form"))
		}
		answers := make([]page, 2)
		var wg sync.WaitGroup
		for i, b := range []*browser{sam, ada} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				answers[i] = b.post(path+"/shipments/"+sid, confirms[i])
			}()
		}
		wg.Wait()
		won, lost := 0, -1
		for i, p := range answers {
			switch p.status {
			case http.StatusSeeOther:
				won++
			case http.StatusConflict:
				lost = i
			default:
				t.Fatalf("round %d: status %d\n%s", round, p.status, trim(p.body))
			}
		}
		if won != 1 || lost < 0 {
			t.Fatalf("round %d: %d won", round, won)
		}
		winner := []string{owner.Name, "Ada"}[1-lost]
		wantText(t, "who won", answers[lost].testid("form-error"), winner)
		wantText(t, "nothing saved", answers[lost].testid("form-error"), "Nothing of yours was saved")
		if n := sam.get("/admin/shipments/" + sid).testid("history-row").Length(); n != round+1 {
			t.Fatalf("round %d: %d changes recorded", round, n)
		}
	}
}

// The list of every warehouse's shipments by status: tabs, rows in the
// right tab as they move, the slip.
func TestAdminShipmentListAndSlip(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	o, path, sid := shippingOrder(t, s, b)

	listed := func(status string) bool {
		p := b.get("/admin/shipments?status=" + status)
		wantStatus(t, "list "+status, p, http.StatusOK)
		found := false
		p.testid("shipments-row").Each(func(_ int, r *goquerySelection) {
			id, _ := r.Attr("data-shipment")
			found = found || id == sid
		})
		return found
	}
	p := b.get("/admin/shipments?status=pending")
	wantStatus(t, "shipments", p, http.StatusOK)
	if p.testid("tab-pending").AttrOr("aria-current", "") != "page" {
		t.Fatal("the packed tab is not the one shown")
	}
	if !listed("pending") || listed("shipped") || listed("delivered") {
		t.Fatal("a new shipment is not to pack, alone")
	}
	wantStatus(t, "ship", b.step(path, sid, url.Values{"status": {"shipped"}, "carrier": {"bring"}, "tracking": {"CS123456785NO"}}), http.StatusSeeOther)
	if listed("pending") || !listed("shipped") {
		t.Fatal("a shipped shipment is not under shipped")
	}
	wantText(t, "carrier in the list", b.get("/admin/shipments?status=shipped").testid("tracking-link"), "CS123456785NO")
	wantStatus(t, "unknown status", b.get("/admin/shipments?status=lost"), http.StatusBadRequest)
	wantStatus(t, "bad cursor", b.get("/admin/shipments?status=shipped&after=bm9wZQ"), http.StatusBadRequest)

	slip := b.get(path + "/shipments/" + sid + "/slip")
	wantStatus(t, "slip", slip, http.StatusOK)
	wantText(t, "slip order number", slip.testid("slip-order"), o.Label())
	wantText(t, "slip address", slip.testid("slip-address"), "Storgatan 1")
	wantText(t, "slip address", slip.testid("slip-address"), "50330 Borås")
	if n := slip.testid("slip-item").Length(); n != 1 {
		t.Fatalf("%d items on the slip", n)
	}
	wantText(t, "slip item", slip.testid("slip-item"), "1")
	wantStatus(t, "slip of another order", b.get("/admin/orders/nope/shipments/"+sid+"/slip"), http.StatusNotFound)
	wantStatus(t, "slip of no shipment", b.get(path+"/shipments/nope/slip"), http.StatusNotFound)

	// Customers get no staff pages.
	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	if p := ada.get("/admin/shipments"); p.status == http.StatusOK {
		t.Fatal("a customer sees the shipments list")
	}
}

// A shipment is made when staff pack its order, so a pending one's badge
// says it is packed (the queue before it is "To pack"), in each language.
func TestAdminPendingShipmentBadgeSaysPacked(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t)
	b := s.staff(t)
	m := newOrderMaker(t, s.env.Store)
	o := m.place(s.env.Store, s.customerID(t, demo.CustomerEmail), line("kt-mug", 1))
	shs, err := s.env.Store.CreateShipments(context.Background(), o.ID, "Standard")
	if err != nil || len(shs) == 0 {
		t.Fatalf("%d shipments, %v", len(shs), err)
	}
	for _, tc := range []struct{ lang, want, not string }{
		{"ko", "포장 완료", "포장 대기"}, {"id", "Dikemas", "Perlu dikemas"}, {"en", "Packed", "To pack"},
	} {
		p := b.get("/admin/shipments/" + shs[0].ID + "?lang=" + tc.lang)
		wantStatus(t, tc.lang, p, http.StatusOK)
		badge := p.testid("shipment-status")
		wantText(t, tc.lang+" badge", badge, tc.want)
		if strings.Contains(badge.Text(), tc.not) {
			t.Errorf("%s badge %q still says %q", tc.lang, trim(badge.Text()), tc.not)
		}
	}
}
