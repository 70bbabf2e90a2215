package web_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"shop/store"
	"shop/store/demo"
	"shop/store/storetest/paytest"
	"shop/web/paths"
)

// twoWarehouseOrder is an order of Ada's, mailed in Korean, of a grinder
// that only Göteborg stocks and two cinnamon buns that only Stockholm
// does, shipped and delivered: one parcel from each.
func twoWarehouseOrder(t *testing.T, s *shop) store.Order {
	t.Helper()
	ctx, st := context.Background(), s.env.Store
	ws, err := st.Warehouses(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ id, name, only string }{{"cf-grinder", "Hand Grinder", "gbg"}, {"bk-cinnamon", "The Cinnamon Bun Book", "sto"}} {
		for _, w := range ws {
			n := 0
			if w.ID == p.only {
				n = 10
			}
			if err := st.PutStockLevel(ctx, store.StockLevel{ProductID: p.id, ProductName: p.name, WarehouseID: w.ID, WarehouseName: w.Name, City: w.Address.City, Quantity: n}); err != nil {
				t.Fatal(err)
			}
		}
	}
	ada := s.customerID(t, demo.CustomerEmail)
	o, err := paytest.New(t, st).Checkout(ctx, store.CheckoutRequest{
		Key: "two-parcels", CustomerID: ada, Lines: []store.CheckoutLine{line("cf-grinder", 1), line("bk-cinnamon", 2)},
		Buyer:  store.Buyer{Name: "Ada Lindqvist", Email: demo.CustomerEmail, Lang: "ko"},
		ShipTo: store.Address{Name: "Ada Lindqvist", Street: "Storgatan", Number: "1", ZipCode: "50330", City: "Borås", Country: "Sweden"},
	})
	if err != nil {
		t.Fatal(err)
	}
	deliver(t, s, o)
	d, err := st.OrderDetails(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	var from []string
	for _, sh := range d.Shipments {
		from = append(from, sh.WarehouseID)
	}
	if slices.Sort(from); !slices.Equal(from, []string{"gbg", "sto"}) {
		t.Fatalf("shipped from %v, want Göteborg and Stockholm", from)
	}
	return o
}

// A return of items that left from two warehouses is two returns, one a
// parcel: each with its number, "parcel 1 of 2", its warehouse's address,
// its items and its slip, on the order's page (in English, Korean and
// Indonesian), on the slips and in one mail in the order's language;
// staff find each by its number from the orders' search box.
func TestReturnInTwoParcels(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	o := twoWarehouseOrder(t, s)
	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	path := paths.Order(o.ID)
	asked := ada.post(path+"/returns", returnForm(ada.get(path), "Changed my mind", map[string]string{"cf-grinder": "1", "bk-cinnamon": "2"}))
	wantStatus(t, "ask", asked, http.StatusSeeOther)
	r1, r2 := o.Number+"-R1", o.Number+"-R2"
	p := ada.get(path)
	wantText(t, "the flash", p.testid("flash"), "2 parcels: "+r1+", "+r2)

	// The buns are the most units: Stockholm's parcel comes first.
	want := []struct {
		number, part, street, city, item string
	}{{r1, "Parcel 1 of 2", "Götgatan 48", "Stockholm", "2 × The Cinnamon Bun Book"}, {r2, "Parcel 2 of 2", "Hamngatan 12", "Göteborg", "1 × Hand Grinder"}}
	rets := p.testid("return")
	if rets.Length() != 2 {
		t.Fatalf("%d returns on the page, want 2", rets.Length())
	}
	var slips []string
	for i, w := range want {
		ret := rets.Eq(i)
		wantText(t, w.number, ret.Find(`[data-testid="return-number"]`), w.number)
		wantText(t, w.number+"'s part", ret.Find(`[data-testid="return-part"]`), w.part)
		wantText(t, w.number+"'s note", ret.Find(`[data-testid="return-part-note"]`), "2 parcels")
		addr := ret.Find(`[data-testid="return-address"]`).Text()
		if !strings.Contains(addr, w.street) || !strings.Contains(addr, w.city) {
			t.Errorf("%s goes to %q, want %s, %s", w.number, trim(addr), w.street, w.city)
		}
		if lines := ret.Find(`[data-testid="return-line"]`); lines.Length() != 1 || !strings.Contains(strings.Join(strings.Fields(lines.Text()), " "), w.item) {
			t.Errorf("%s holds %q, want %s", w.number, trim(lines.Text()), w.item)
		}
		wantText(t, w.number+"'s instructions", ret.Find(`[data-testid="return-send"]`), "Write the number "+w.number+" on the outside of the parcel")
		slips = append(slips, ret.Find(`[data-testid="return-slip-link"]`).AttrOr("href", ""))
	}
	for i, w := range want {
		sp := ada.get(slips[i])
		wantStatus(t, w.number+"'s slip", sp, http.StatusOK)
		wantText(t, "slip number", sp.testid("slip-number"), w.number)
		wantText(t, "slip part", sp.testid("slip-part"), w.part)
		wantText(t, "slip to", sp.testid("slip-to"), w.city)
		if items := sp.testid("slip-item"); items.Length() != 1 {
			t.Errorf("%s's slip lists %d items", w.number, items.Length())
		}
	}
	for _, c := range []struct{ lang, part, slip string }{{"ko", "소포 2개 중 1번째", "소포 2개 중 2번째"}, {"id", "Paket 1 dari 2", "Paket 2 dari 2"}} {
		lp := ada.get(path + "?lang=" + c.lang)
		wantText(t, c.lang+" part", lp.testid("return-part").First(), c.part)
		wantText(t, c.lang+" slip part", ada.get(slips[1]+"?lang="+c.lang).testid("slip-part"), c.slip)
	}

	// One mail, in Korean as the order was placed, with both parcels.
	d, err := s.env.Store.OrderDetails(context.Background(), o.ID)
	if err != nil {
		t.Fatal(err)
	}
	mail, err := s.env.Store.Mail(context.Background(), store.ReturnRequestedMailID(d.Returns[0].ID))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(mail.Subject, r1+", "+r2) || !strings.Contains(mail.Subject, "소포 2개") {
		t.Errorf("the mail's subject: %q", mail.Subject)
	}
	for _, w := range append([]string{"소포 2개 중 1번째: 반품 " + r1, "소포 2개 중 2번째: 반품 " + r2, "Götgatan 48", "Hamngatan 12",
		"2 × 시나몬 번 책", "1 × 핸드 그라인더", "겉면"}, slips...) { // named as she bought them, in Korean
		if !strings.Contains(mail.Text, w) {
			t.Errorf("the mail lacks %q:\n%s", w, mail.Text)
		}
	}
	if _, err := s.env.Store.Mail(context.Background(), store.ReturnRequestedMailID(d.Returns[1].ID)); err == nil {
		t.Error("the second parcel has a mail of its own too")
	}

	// Staff: the order's page lists both numbers; the search box takes the
	// number on the second parcel to its return, which says which part it is.
	b := s.staff(t)
	op := b.get(paths.AdminOrder(o.ID))
	if got := op.testid("order-return-link").Map(func(_ int, a *goquerySelection) string { return a.Text() }); !slices.Equal(got, []string{r1, r2}) {
		t.Errorf("the order's returns %v, want %s and %s", got, r1, r2)
	}
	found := b.get(paths.AdminOrders + "?number=" + url.QueryEscape(strings.ToLower(r2)))
	wantStatus(t, "find "+r2, found, http.StatusSeeOther)
	if loc := found.header.Get("Location"); loc != paths.AdminReturn(o.ID, d.Returns[1].ID) {
		t.Fatalf("%s leads to %q", r2, loc)
	}
	rp := b.get(paths.AdminReturn(o.ID, d.Returns[1].ID))
	wantText(t, "staff's number", rp.testid("admin-return-number"), r2)
	wantText(t, "staff's part", rp.testid("admin-return-part"), "Parcel 2 of 2")
	wantText(t, "staff's address", rp.testid("return-send-to"), "Göteborg")
}
