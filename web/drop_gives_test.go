package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/views/lang"
)

// A drop's page and card say what a ticket gets: a product drop its
// product, picture, drop price and how long the ticket buys it; another
// drop the words and photo staff gave it, which staff change after, with a
// too-long text refused at its field and nothing changed.
func TestDropPageSaysWhatATicketGets(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	staff := s.staff(t)
	staff.get("/admin/drops")
	loc := s.env.Store.Location()
	at := func(d time.Duration) string { return time.Now().Add(d).In(loc).Format("2006-01-02T15:04:05") }
	create := func(form url.Values) string {
		t.Helper()
		p := staff.post("/admin/drops", form)
		wantStatus(t, "create "+form.Get("title"), p, http.StatusSeeOther)
		return strings.TrimPrefix(p.header.Get("Location"), "/admin/drops/")
	}
	window := url.Values{"quantity": {"3"}, "opens": {at(-10 * time.Second)}, "closes": {at(24 * time.Hour)}, "published": {"on"}}
	with := func(kv ...string) url.Values {
		f := url.Values{}
		for k, v := range window {
			f[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			f.Set(kv[i], kv[i+1])
		}
		return f
	}

	// A product drop: the grinder (€54.90) at €40.00 for 48 hours.
	grinder := create(with("title", "Grinder drop", "product_id", "cf-grinder", "price", "40", "redeem_hours", "48"))
	visitor := s.browser(t)
	p := visitor.get("/drops/" + grinder)
	wantStatus(t, "the product drop's page", p, http.StatusOK)
	gives := p.testid("drop-gives")
	if attr(gives, "data-kind") != "product" || gives.Find(`[data-testid="product-picture"]`).Length() != 1 {
		t.Fatalf("the product drop's page does not show its product:\n%s", trim(p.body))
	}
	wantText(t, "its product", p.testid("drop-product"), "Hand Grinder")
	wantText(t, "its price", p.testid("drop-price"), "€40.00")
	wantText(t, "the usual price", p.testid("drop-price"), "€54.90")
	wantText(t, "how long", gives, "within 48 hours")

	// Another drop: words at creation, a photo after.
	tasting := create(with("title", "Tasting evening", "description", "Two seats at the roastery's tasting.\nBring a friend."))
	p = visitor.get("/drops/" + tasting)
	wantText(t, "the drop's words", p.testid("drop-description"), "Two seats at the roastery's tasting.")
	if p.testid("drop-gives").Find("img").Length() != 0 {
		t.Fatalf("a drop without a photo shows a picture")
	}
	staffPage := staff.get("/admin/drops/" + tasting)
	if staffPage.testid("admin-drop-details").Length() != 1 {
		t.Fatalf("staff cannot change the drop's details:\n%s", trim(staffPage.body))
	}
	p = staff.uploadPhotoTo("/admin/drops/"+tasting+"/photo", "seats.jpg", "image/jpeg", testJPEG(t, 800, 600))
	wantStatus(t, "the drop's photo", p, http.StatusSeeOther)
	p = staff.uploadPhotoTo("/admin/drops/"+tasting+"/photo", "notes.txt", "text/plain", []byte("not a picture"))
	if p.status < 400 || p.status >= 500 || p.testid("error-photo").Length() != 1 {
		t.Fatalf("a file that is not a picture: %d\n%s", p.status, trim(p.body))
	}
	staff.get("/admin/drops/" + tasting)
	p = staff.post("/admin/drops/"+tasting+"/description", url.Values{"description": {strings.Repeat("x", store.MaxDropDescription+1)}})
	wantStatus(t, "too long a description", p, http.StatusUnprocessableEntity)
	wantText(t, "at its field", p.testid("error-description"), "1000")
	p = staff.post("/admin/drops/"+tasting+"/description", url.Values{"description": {"Two seats, and a bag of the evening's coffee."}})
	wantStatus(t, "new words", p, http.StatusSeeOther)

	time.Sleep(1100 * time.Millisecond) // the shop window keeps /drops a second
	p = visitor.get("/drops/" + tasting)
	wantText(t, "the new words", p.testid("drop-description"), "a bag of the evening's coffee")
	img := p.testid("drop-gives").Find("img")
	if img.Length() != 1 || !strings.Contains(attr(img, "srcset"), "/media/photos/") {
		t.Fatalf("the drop's photo is not on its page:\n%s", trim(p.body))
	}
	wantMedia(t, visitor, attr(img, "src"), "image/jpeg")

	list := visitor.get("/drops")
	for _, id := range []string{grinder, tasting} {
		card := list.doc.Find(`[data-testid="drop-card"][data-drop="` + id + `"]`)
		if card.Find("img").Length() != 1 {
			t.Errorf("the card of %s has no picture", id)
		}
	}
	wantText(t, "the product drop's card", list.doc.Find(`[data-drop="`+grinder+`"] [data-testid="drop-card-product"]`), "Hand Grinder for €40.00")
}

// Whoever takes the last ticket reads that one is theirs, not "Sold out"
// beside "Claimed!": the claim's answer brings the live part with it, and
// its poll keeps saying so; everyone else reads "Sold out".
func TestLastTicketsWinnerIsNotToldSoldOut(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	d := s.openDrop(t, "One seat", 1)
	ada, _ := s.newCustomer(t, "Ada Last")
	p := ada.claim(d.ID, false)
	wantStatus(t, "the last ticket", p, http.StatusOK)
	if p.testid("my-ticket").Length() != 1 {
		t.Fatalf("no ticket in the answer:\n%s", trim(p.body))
	}
	live := p.doc.Find("#drop-live")
	if attr(live, "hx-swap-oob") != "true" || p.testid("drop-soldout").Length() != 0 || p.testid("drop-soldout-yours").Length() != 1 {
		t.Fatalf("the winner's answer says sold out, or not that the ticket is theirs:\n%s", trim(p.body))
	}
	for _, c := range []struct {
		who, path, want string
		b               *browser
	}{
		{"the winner's page", "/drops/" + d.ID, "drop-soldout-yours", ada},
		{"the winner's poll", "/drops/" + d.ID + "/count?holder=1", "drop-soldout-yours", ada},
		{"a visitor's page", "/drops/" + d.ID, "drop-soldout", s.browser(t)},
		{"a visitor's poll", "/drops/" + d.ID + "/count", "drop-soldout", s.browser(t)},
	} {
		p := c.b.get(c.path)
		wantStatus(t, c.who, p, http.StatusOK)
		if p.testid(c.want).Length() != 1 {
			t.Errorf("%s does not show %s:\n%s", c.who, c.want, trim(p.body))
		}
	}
	// A second customer is refused as before, and told sold out.
	bo, _ := s.newCustomer(t, "Bo Late")
	wantRefused(t, "after the last ticket", bo.claim(d.ID, false), http.StatusConflict, "")
}

// After a claim the ticket of a product drop says what to do next: an
// "Add to cart" with the drop's price, and the date the ticket must be
// used by, on its own line (it once was one long "Buy for … until …"
// button whose date ran out of it on a phone): in the claim's answer, on
// the drop's page and on /tickets, in each language.
func TestATicketsNextStepIsAddToCartByItsDate(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx, st, now := context.Background(), s.env.Store, time.Now()
	d, err := st.CreateDrop(ctx, store.NewDrop{Title: "Grinder drop", Quantity: 3, Opens: now.Add(-time.Minute), Closes: now.Add(24 * time.Hour),
		Published: true, ProductID: "cf-grinder", Price: centsEUR(4000), RedeemWithin: 48 * time.Hour, StaffID: "staff"})
	if err != nil {
		t.Fatal(err)
	}
	b, id := s.newCustomer(t, "Next Step")
	claim := b.claim(d.ID, false)
	wantStatus(t, "claim", claim, http.StatusOK)
	tk, err := st.Ticket(ctx, d.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	until := tk.CreatedAt.Add(48 * time.Hour).In(st.Location())
	for _, c := range []struct {
		l        lang.Lang
		add, use string
	}{
		{lang.English, "Add to cart for €40.00", "Use it by"},
		{lang.Korean, "장바구니에 담기", "까지 사용하세요"},
		{lang.Indonesian, "Tambah ke keranjang seharga", "Gunakan sebelum"},
	} {
		pages := []struct {
			where string
			page  page
		}{{"the drop's page", b.get("/drops/" + d.ID + "?lang=" + string(c.l))}, {"/tickets", b.get("/tickets")}}
		if c.l == lang.English {
			pages = append(pages, struct {
				where string
				page  page
			}{"the claim's answer", claim})
		}
		by := lang.DateIn(c.l, until)
		for _, p := range pages {
			what := string(c.l) + ", " + p.where
			buy := p.page.testid("ticket-buy")
			if buy.Length() != 1 || attr(buy.Closest("form"), "action") != "/tickets/"+d.ID+"/buy" {
				t.Fatalf("%s: no Add to cart for the ticket:\n%s", what, trim(p.page.body))
			}
			wantText(t, what+": the button", buy, c.add)
			if strings.Contains(text(buy), by) {
				t.Errorf("%s: the button %q holds the date", what, text(buy))
			}
			wantText(t, what+": used by", p.page.testid("ticket-use-by"), c.use)
			wantText(t, what+": used by", p.page.testid("ticket-use-by"), by)
		}
	}
}
