package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"shop/store"
	"shop/store/demo"
	"shop/web/paths"
)

// A requested return tells the customer what to do next: its number, the
// address of the warehouse that shipped it, what goes in the parcel and a
// slip to print, on the order's page and in a mail; staff go from the
// number on a parcel to the return. Another customer's slip is no slip.
func TestReturnNumberAddressAndSlip(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx, st := context.Background(), s.env.Store
	o := deliveredOrder(t, s, newOrderMaker(t, st))
	d, err := st.OrderDetails(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The buns shipped from one warehouse: the parcel goes back there.
	var from store.Warehouse
	for _, sh := range d.Shipments {
		for _, it := range sh.Items {
			if it.ProductID == "bk-cinnamon" {
				if from, err = st.Warehouse(ctx, sh.WarehouseID); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if from.ID == "" {
		t.Fatal("no shipment carried the buns")
	}

	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	path := paths.Order(o.ID)
	asked := ada.post(path+"/returns", returnForm(ada.get(path), "Arrived damaged", map[string]string{"bk-cinnamon": "2"}))
	wantStatus(t, "ask", asked, http.StatusSeeOther)
	number := o.Number + "-R1"
	p := ada.get(path)
	if msg := p.testid("flash").Text(); !strings.Contains(msg, number) {
		t.Errorf("the flash says %q, want the return's number %s", msg, number)
	}
	ret := p.testid("return")
	rid := ret.AttrOr("data-return", "")
	if loc := asked.header.Get("Location"); loc != path+"#return-"+rid || ret.AttrOr("id", "") != "return-"+rid {
		t.Errorf("the answer goes to %q; the return is #%s", loc, ret.AttrOr("id", ""))
	}
	wantText(t, "the return's number", p.testid("return-number"), number)
	for _, want := range []string{from.Name, from.Address.Street + " " + from.Address.Number, from.Address.City} {
		if got := p.testid("return-address").Text(); !strings.Contains(got, want) {
			t.Errorf("send it to %q, which lacks %q", trim(got), want)
		}
	}
	wantText(t, "what to do with the parcel", p.testid("return-send"), "Write the number "+number+" on the outside of the parcel")
	if p.testid("return-part").Length() != 0 {
		t.Error("a return of one parcel says which part it is")
	}
	slip := paths.OrderReturnSlip(o.ID, rid)
	if href := p.testid("return-slip-link").AttrOr("href", ""); href != slip {
		t.Fatalf("the slip link is %q, want %q", href, slip)
	}

	// The slip: the number large, to and from, what is in the parcel.
	sp := ada.get(slip)
	wantStatus(t, "the slip", sp, http.StatusOK)
	wantText(t, "the slip's number", sp.testid("slip-number"), number)
	if got := sp.testid("slip-to").Text(); !strings.Contains(got, from.Address.Street) || !strings.Contains(got, from.Name) {
		t.Errorf("the slip's address is %q, want %s's", trim(got), from.Name)
	}
	if got := sp.testid("slip-from").Text(); !strings.Contains(got, d.Order.ShipTo.Street) {
		t.Errorf("the slip is from %q, want the order's address (%s)", trim(got), d.Order.ShipTo.Street)
	}
	if items := sp.testid("slip-item"); items.Length() != 1 || !strings.Contains(items.Text(), "2") || !strings.Contains(items.Text(), "Cinnamon") {
		t.Errorf("the slip lists %q", trim(items.Text()))
	}
	if cc := sp.header.Get("Cache-Control"); !strings.Contains(cc, "private") || !strings.Contains(cc, "no-store") {
		t.Errorf("the slip answers Cache-Control %q", cc)
	}
	// Nobody else's, and nothing made up.
	other := s.browser(t)
	other.signIn(demo.StaffEmail, demo.StaffPassword)
	wantStatus(t, "another's slip", other.get(slip), http.StatusNotFound)
	wantStatus(t, "an unknown return's slip", ada.get(paths.OrderReturnSlip(o.ID, "06h0000000000000000a")), http.StatusNotFound)
	wantStatus(t, "a bad return id", ada.get(paths.OrderReturnSlip(o.ID, "..")), http.StatusNotFound)
	if anon := s.browser(t).get(slip); anon.status != http.StatusSeeOther && anon.status != http.StatusOK {
		t.Errorf("signed out, the slip answers %d", anon.status)
	} else if anon.testid("slip-number").Length() != 0 {
		t.Error("signed out, the slip shows")
	}

	// The mail says the same, with the slip's link.
	mail, err := st.Mail(ctx, store.ReturnRequestedMailID(rid))
	if err != nil || mail.To != demo.CustomerEmail || mail.Kind != store.MailReturnRequested || !strings.Contains(mail.Subject, number) {
		t.Fatalf("the return's mail: %+v, %v", mail, err)
	}
	buns := ""
	for _, it := range d.Items {
		if it.ProductID == "bk-cinnamon" {
			buns = it.ProductName
		}
	}
	for _, want := range []string{from.Name, from.Address.Street + " " + from.Address.Number, "2 × " + buns, slip, number} {
		if !strings.Contains(mail.Text, want) {
			t.Errorf("the mail lacks %q:\n%s", want, mail.Text)
		}
	}

	// Staff: the number in the list, and from the number to the return.
	b := s.staff(t)
	list := b.get(paths.AdminReturns)
	wantText(t, "the list's number", list.testid("return-link"), number)
	found := b.get(paths.AdminReturns + "?number=" + url.QueryEscape(" "+strings.ToLower(number)+" "))
	wantStatus(t, "find by number", found, http.StatusSeeOther)
	if loc := found.header.Get("Location"); loc != paths.AdminReturn(o.ID, rid) {
		t.Fatalf("the number leads to %q", loc)
	}
	wantText(t, "the staff order page's return", b.get(paths.AdminOrder(o.ID)).testid("order-return-link"), number)
	// The orders' search box takes a return's number too.
	byOrders := b.get(paths.AdminOrders + "?number=" + url.QueryEscape(number))
	wantStatus(t, "find by number in the orders", byOrders, http.StatusSeeOther)
	if loc := byOrders.header.Get("Location"); loc != paths.AdminReturn(o.ID, rid) {
		t.Fatalf("the orders' search leads %s to %q", number, loc)
	}
	if unknown := b.get(paths.AdminOrders + "?number=" + url.QueryEscape(o.Number+"-R9")); unknown.status != http.StatusNotFound {
		t.Errorf("an unknown return's number in the orders' search: %d", unknown.status)
	} else {
		wantText(t, "unknown return number", unknown.testid("error-number"), "No order or return has the number "+o.Number+"-R9")
	}
	rp := b.get(paths.AdminReturn(o.ID, rid))
	wantText(t, "the return page's number", rp.testid("admin-return-number"), number)
	if got := rp.testid("return-send-to").Text(); !strings.Contains(got, from.Name) {
		t.Errorf("staff read it was sent to %q", trim(got))
	}
	if sel := rp.testid("restock-warehouse"); sel.Length() > 0 && sel.Find("option[selected]").AttrOr("value", "") != from.ID {
		t.Errorf("the refund offers first %q, want the warehouse it went to", sel.Find("option[selected]").AttrOr("value", ""))
	}
	for _, c := range []struct {
		typed  string
		status int
	}{{o.Number + "-R2", http.StatusNotFound}, {"FF-NOSUCH-R1", http.StatusNotFound}, {"", http.StatusUnprocessableEntity}} {
		got := b.get(paths.AdminReturns + "?number=" + url.QueryEscape(c.typed))
		wantStatus(t, "find "+c.typed, got, c.status)
		if got.testid("error-number").Length() != 1 || got.testid("return-row").Length() != 1 {
			t.Errorf("find %q: the error is not beside the box, or the list is gone", c.typed)
		}
	}
}
