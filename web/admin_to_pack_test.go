package web_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"shop/store"
	"shop/store/demo"
)

// queueRows is each warehouse's orders on the packing queue, top to
// bottom.
func queueRows(p page) map[string][]string {
	out := map[string][]string{}
	p.testid("to-pack-warehouse").Each(func(_ int, sec *goquerySelection) {
		w := sec.AttrOr("data-warehouse", "")
		sec.Find(`[data-testid="to-pack-row"]`).Each(func(_ int, r *goquerySelection) {
			out[w] = append(out[w], r.AttrOr("data-order", ""))
		})
	})
	return out
}

// allocatedTo is the warehouses an order's lines were allocated to.
func allocatedTo(t *testing.T, s *shop, orderID string) []string {
	t.Helper()
	d, err := s.env.Store.OrderDetails(context.Background(), orderID)
	if err != nil {
		t.Fatal(err)
	}
	var ws []string
	for _, it := range d.Items {
		for _, a := range it.Allocations {
			if !slices.Contains(ws, a.WarehouseID) {
				ws = append(ws, a.WarehouseID)
			}
		}
	}
	slices.Sort(ws)
	return ws
}

// Shipments opens on the packing queue: the demo's placed orders and one
// placed a moment ago, grouped by the warehouses their checkout allocated,
// oldest first, each with what to pick. Staff pack one with its own
// button, several with the checkboxes, and print the pick list and slips
// of those they select; a packed order leaves the queue for the packed
// tab, and the order page shows fulfilment before refunds.
func TestAdminPackingQueue(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	m := newOrderMaker(t, s.env.Store)
	ada := s.customerID(t, demo.CustomerEmail)
	first := m.place(s.env.Store, ada, line("cf-grinder", 1))
	second := m.place(s.env.Store, ada, line("kt-mug", 2))
	third := m.place(s.env.Store, ada, line("bk-cinnamon", 1))

	b.get("/admin/shipments") // once read, the table's shard count is known
	s.env.Counter.Reset()
	p := b.get("/admin/shipments")
	wantStatus(t, "to pack", p, http.StatusOK)
	// The session and the staff member, a Query per list shard, the
	// warehouses' names.
	if n := s.env.Counter.Total(); n != 2+store.DefaultListShards+1 {
		t.Errorf("the packing queue made %d requests %v, want %d", n, s.env.Counter.Ops(), 2+store.DefaultListShards+1)
	}
	if p.testid("tab-to-pack").AttrOr("aria-current", "") != "page" {
		t.Fatal("Shipments does not open on the packing queue")
	}
	rows := queueRows(p)
	total := 0
	for w, ids := range rows {
		total += len(ids)
		// Order ids are time-ordered: oldest first is ids ascending.
		if !slices.IsSorted(ids) {
			t.Errorf("warehouse %s's orders are not oldest first: %v", w, ids)
		}
	}
	if total <= 3 {
		t.Errorf("the demo's placed orders are not on the queue: %v", rows)
	}
	for _, o := range []store.Order{first, second, third} {
		var in []string
		for w, ids := range rows {
			if slices.Contains(ids, o.ID) {
				in = append(in, w)
			}
		}
		slices.Sort(in)
		if want := allocatedTo(t, s, o.ID); !slices.Equal(in, want) {
			t.Errorf("order %s is under %v, allocated to %v", o.Label(), in, want)
		}
	}
	mug := p.doc.Find(`[data-testid="to-pack-row"][data-order="` + second.ID + `"]`)
	wantText(t, "what to pick", mug.Find(`[data-testid="to-pack-lines"]`), "2 ×")
	wantText(t, "its number", mug.Find(`[data-testid="to-pack-order"]`), second.Label())

	// Pack one: its own button.
	r := b.post("/admin/shipments/pack", url.Values{"pack": {first.ID}, "order": {second.ID}})
	wantStatus(t, "pack one", r, http.StatusSeeOther)
	if loc := r.header.Get("Location"); loc != "/admin/shipments" {
		t.Errorf("after packing: to %q", loc)
	}
	p = b.get("/admin/shipments")
	wantText(t, "packed", p.testid("flash"), "Packed 1 order")
	if got := queueRows(p); slices.ContainsFunc(allOf(got), func(id string) bool { return id == first.ID }) ||
		!slices.Contains(allOf(got), second.ID) {
		t.Fatalf("after packing the first: %v", got)
	}
	d, err := s.env.Store.OrderDetails(context.Background(), first.ID)
	if err != nil || len(d.Shipments) != len(allocatedTo(t, s, first.ID)) || d.Order.Status != store.OrderShipping {
		t.Fatalf("packed order: %d shipments, %s, %v", len(d.Shipments), d.Order.Status, err)
	}
	// A second press (another staff member's stale page) makes nothing.
	wantStatus(t, "pack again", b.post("/admin/shipments/pack", url.Values{"pack": {first.ID}}), http.StatusSeeOther)
	wantText(t, "packed already", b.get("/admin/shipments").testid("flash"), "packed already")
	if d2, _ := s.env.Store.OrderDetails(context.Background(), first.ID); len(d2.Shipments) != len(d.Shipments) {
		t.Fatalf("packing twice made %d shipments, then %d", len(d.Shipments), len(d2.Shipments))
	}

	// Pack several: the checkboxes.
	wantStatus(t, "pack several", b.post("/admin/shipments/pack", url.Values{"order": {second.ID, third.ID}}), http.StatusSeeOther)
	p = b.get("/admin/shipments")
	wantText(t, "packed two", p.testid("flash"), "Packed 2 orders")
	if got := allOf(queueRows(p)); slices.Contains(got, second.ID) || slices.Contains(got, third.ID) {
		t.Fatalf("packed orders still queued: %v", got)
	}
	packed := b.get("/admin/shipments?status=pending")
	found := 0
	packed.testid("shipments-row").Each(func(_ int, r *goquerySelection) {
		if strings.Contains(r.Text(), second.Label()) || strings.Contains(r.Text(), second.ID) {
			found++
		}
	})
	if found == 0 {
		t.Error("the packed order's shipments are not under Packed, to ship")
	}
	wantStatus(t, "nothing chosen", b.post("/admin/shipments/pack", url.Values{}), http.StatusSeeOther)
	wantText(t, "nothing chosen", b.get("/admin/shipments").testid("flash"), "Select at least one order")

	// Print two of the demo's: the pick list sums each product per
	// warehouse, then a slip per order.
	left := allOf(queueRows(p))
	if len(left) < 2 {
		t.Fatalf("too few demo orders left to print: %v", left)
	}
	chosen := []string{left[0], left[1]}
	s.env.Counter.Reset()
	pr := b.get("/admin/shipments/print?order=" + chosen[0] + "&order=" + chosen[1])
	wantStatus(t, "print", pr, http.StatusOK)
	if n := s.env.Counter.Total(); n != 2+2+1 {
		t.Errorf("the print page made %d requests %v, want the session's 2, an order's Query each and the warehouses", n, s.env.Counter.Ops())
	}
	if got := rowsOf(pr, "packing-slip"); !slices.Equal(got, chosen) {
		t.Errorf("slips %v, want %v", got, chosen)
	}
	units := 0
	for _, id := range chosen {
		od, err := s.env.Store.OrderDetails(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range od.Items {
			for _, a := range it.ToShip() {
				units += a.Quantity
			}
		}
	}
	picked := 0
	pr.testid("pick-quantity").Each(func(_ int, q *goquerySelection) {
		var n int
		for _, c := range strings.TrimSpace(q.Text()) {
			n = n*10 + int(c-'0')
		}
		picked += n
	})
	if picked != units || picked == 0 {
		t.Errorf("the pick list sums %d units, the orders have %d to ship", picked, units)
	}
	if pr.doc.Find(".slip-page").Length() != 2 {
		t.Error("the slips are not each a page of their own")
	}
	wantStatus(t, "print nothing", b.get("/admin/shipments/print"), http.StatusBadRequest)

	// The order page: fulfilment first, refunds after.
	op := b.get("/admin/orders/" + left[0])
	if i, j := strings.Index(op.body, `data-testid="create-shipments-form"`), strings.Index(op.body, `id="refunds"`); i < 0 || j < 0 || i > j {
		t.Errorf("the order page's packing comes at %d, its refunds at %d", i, j)
	}
}

// allOf is every order on the queue's page, once each.
func allOf(rows map[string][]string) []string {
	var out []string
	for _, ids := range rows {
		for _, id := range ids {
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	slices.Sort(out)
	return out
}

// A row's Pack pressed with htmx packs that order alone and answers with
// the row as it now is, its shipments linked, no layout; pressed again it
// says someone packed it already. Without htmx the queue comes back (303).
func TestAdminPacksOneOrderInPlace(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t)
	b := s.staff(t)
	m := newOrderMaker(t, s.env.Store)
	ada := s.customerID(t, demo.CustomerEmail)
	one := m.place(s.env.Store, ada, line("kt-mug", 1))
	other := m.place(s.env.Store, ada, line("kt-mug", 2))
	q := b.get("/admin/shipments")
	if q.doc.Find(`[data-testid="to-pack-pack"][hx-post]`).Length() == 0 {
		t.Fatal("the rows' Pack buttons do not ask htmx")
	}

	r := b.post("/admin/shipments/pack", url.Values{"pack": {one.ID}, "order": {other.ID}}, "HX-Request", "true")
	wantStatus(t, "pack in place", r, http.StatusOK)
	if strings.Contains(r.body, "<html") || strings.Contains(r.body, "<nav") {
		t.Fatalf("htmx got more than the row: %s", trim(r.body))
	}
	row := r.doc.Find(`[data-testid="to-pack-done"][data-order="` + one.ID + `"]`)
	wantText(t, "the row's result", row, "Packed:")
	d, err := s.env.Store.OrderDetails(context.Background(), one.ID)
	if err != nil || len(d.Shipments) == 0 {
		t.Fatalf("packed in place: %d shipments, %v", len(d.Shipments), err)
	}
	link := row.Find(`[data-testid="to-pack-shipment"]`).First()
	if href, _ := link.Attr("href"); href != "/admin/shipments/"+d.Shipments[0].ID && row.Find(`a[href="/admin/shipments/`+d.Shipments[0].ID+`"]`).Length() == 0 {
		t.Errorf("the result links to %q", href)
	}
	if !strings.HasPrefix(trim(link.Text()), "SH-") {
		t.Errorf("the shipment is named %q", trim(link.Text()))
	}
	if o, _ := s.env.Store.OrderDetails(context.Background(), other.ID); len(o.Shipments) != 0 {
		t.Error("the selected order was packed with the one pressed")
	}

	again := b.post("/admin/shipments/pack", url.Values{"pack": {one.ID}}, "HX-Request", "true")
	wantStatus(t, "again in place", again, http.StatusOK)
	wantText(t, "packed already", again.testid("to-pack-done"), "Packed already")

	plain := b.post("/admin/shipments/pack", url.Values{"pack": {other.ID}})
	wantStatus(t, "without htmx", plain, http.StatusSeeOther)
	if loc := plain.header.Get("Location"); loc != "/admin/shipments" {
		t.Errorf("without htmx: to %q", loc)
	}

	// The warehouse's count in its heading comes one less, out of band:
	// the press posts the count the page showed (the heading's hidden
	// field, as the form does), and the last order packed says so, in
	// each language.
	for _, tc := range []struct{ lang, left, allPacked string }{
		{"en", "1 order", "all packed"}, {"ko", "주문 1건", "모두 포장함"}, {"id", "1 pesanan", "semua sudah dikemas"},
	} {
		a := m.place(s.env.Store, ada, line("kt-mug", 1))
		z := m.place(s.env.Store, ada, line("kt-mug", 1))
		q := b.get("/admin/shipments?lang=" + tc.lang)
		w := q.doc.Find(`[data-testid="to-pack-row"][data-order="`+a.ID+`"]`).Closest(`[data-testid="to-pack-warehouse"]`).AttrOr("data-warehouse", "")
		if w == "" {
			t.Fatalf("%s: order %s is not on the queue", tc.lang, a.Label())
		}
		shown := func(p page) (string, string) {
			c := p.doc.Find("#to-pack-count-" + w)
			return strings.Join(strings.Fields(c.Text()), " "), c.Find(`input[name="left-`+w+`"]`).AttrOr("value", "")
		}
		text, n := shown(q)
		if n != "2" || !strings.Contains(text, "2") {
			t.Fatalf("%s: the queue's count says %q (%s)", tc.lang, text, n)
		}
		r := b.post("/admin/shipments/pack", url.Values{"pack": {a.ID}, "from": {w}, "left-" + w: {n}}, "HX-Request", "true")
		count := r.doc.Find("#to-pack-count-" + w)
		if count.AttrOr("hx-swap-oob", "") != "true" {
			t.Fatalf("%s: the answer does not update the count out of band: %s", tc.lang, trim(r.body))
		}
		if text, n = shown(r); text != tc.left || n != "1" {
			t.Errorf("%s: after packing one the count says %q (%s), want %q", tc.lang, text, n, tc.left)
		}
		r = b.post("/admin/shipments/pack", url.Values{"pack": {z.ID}, "from": {w}, "left-" + w: {n}}, "HX-Request", "true")
		if text, n = shown(r); text != tc.allPacked || n != "0" {
			t.Errorf("%s: after packing the last the count says %q (%s), want %q", tc.lang, text, n, tc.allPacked)
		}
	}
	b.get("/admin/shipments?lang=en")
}

// An order split over two warehouses is in both groups: packed from one
// row, the answer says so in its row under the other warehouse too, and
// brings both warehouses' counts one less, out of band.
func TestAdminPackInPlaceAnswersForEveryWarehouseOfTheOrder(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t)
	b := s.staff(t)
	levels, err := s.env.Store.ProductStock(context.Background(), "kt-mug")
	if err != nil {
		t.Fatal(err)
	}
	most, all := 0, 0
	for _, l := range levels {
		most, all = max(most, l.Quantity), all+l.Quantity
	}
	if all <= most {
		t.Fatalf("kt-mug is stocked in one warehouse only: %+v", levels)
	}
	// More than any one warehouse holds: the checkout splits it.
	o := newOrderMaker(t, s.env.Store).place(s.env.Store, s.customerID(t, demo.CustomerEmail), line("kt-mug", most+1))
	ws := allocatedTo(t, s, o.ID)
	if len(ws) < 2 {
		t.Fatalf("order of %d mugs allocated to %v", most+1, ws)
	}
	q := b.get("/admin/shipments")
	form := url.Values{"pack": {o.ID}, "from": {ws[0]}}
	for _, w := range ws {
		if q.doc.Find("#to-pack-"+w+"-"+o.ID).Length() != 1 {
			t.Fatalf("the order has no row under %s", w)
		}
		form.Set("left-"+w, q.doc.Find(`input[name="left-`+w+`"]`).AttrOr("value", ""))
	}
	r := b.post("/admin/shipments/pack", form, "HX-Request", "true")
	wantStatus(t, "pack in place", r, http.StatusOK)
	for i, w := range ws {
		row := r.doc.Find("#to-pack-" + w + "-" + o.ID)
		wantText(t, "the row under "+w, row, "Packed:")
		if oob := row.AttrOr("hx-swap-oob", ""); (i == 0) != (oob == "") {
			t.Errorf("the row under %s: hx-swap-oob %q (the pressed row is the answer itself, the others out of band)", w, oob)
		}
		before, _ := strconv.Atoi(form.Get("left-" + w))
		count := r.doc.Find("#to-pack-count-" + w)
		if got := count.Find("input").AttrOr("value", ""); got != strconv.Itoa(before-1) || count.AttrOr("hx-swap-oob", "") != "true" {
			t.Errorf("%s's count: %q out of band %q, want %d", w, got, count.AttrOr("hx-swap-oob", ""), before-1)
		}
	}
}
