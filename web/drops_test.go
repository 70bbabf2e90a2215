package web_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/store/demo"
	"shop/store/storetest"
)

// newDrop makes a drop straight in the table, as staff's form would.
func (s *shop) newDrop(t testing.TB, title string, quantity int, opens, closes time.Time, published bool) store.Drop {
	t.Helper()
	d, err := s.env.Store.CreateDrop(context.Background(), store.NewDrop{
		Title: title, Quantity: quantity, Opens: opens, Closes: closes, Audience: store.DropAudienceShop, Published: published,
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// openDrop is a drop open from now for a day.
func (s *shop) openDrop(t testing.TB, title string, quantity int) store.Drop {
	t.Helper()
	now := time.Now()
	return s.newDrop(t, title, quantity, now, now.Add(24*time.Hour), true)
}

// claim opens a drop's page (for the form's token) and presses its Claim
// button: through htmx unless plain.
func (b *browser) claim(dropID string, plain bool) page {
	b.t.Helper()
	b.get("/drops/" + dropID)
	return b.press(dropID, plain)
}

// press sends the claim form of the drop's page last seen.
func (b *browser) press(dropID string, plain bool) page {
	b.t.Helper()
	if plain {
		return b.post("/drops/"+dropID+"/claim", url.Values{})
	}
	return b.post("/drops/"+dropID+"/claim", url.Values{}, "HX-Request", "true")
}

func attr(sel *goquerySelection, name string) string { v, _ := sel.Attr(name); return v }

// wantRefused checks a refused claim's answer: its status, the message in
// the swapped claim area.
func wantRefused(t *testing.T, what string, p page, status int, msg string) {
	t.Helper()
	wantStatus(t, what, p, status)
	if p.testid("claim-area").Length() != 1 {
		t.Fatalf("%s: the answer is not the claim area:\n%s", what, trim(p.body))
	}
	wantText(t, what, p.testid("claim-error"), msg)
}

// Every outcome of a claim, through the drop's page: claimed, already
// yours, sold out, not open yet, closed early, cancelled; htmx gets the
// claim area, a plain form a 303 and a flash; a visitor is sent to sign in
// and back.
func TestDropClaimOutcomesThroughThePage(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	one := s.openDrop(t, "Only one", 1)
	ada, _ := s.newCustomer(t, "Ada Drop")
	bo, _ := s.newCustomer(t, "Bo Drop")
	cy, _ := s.newCustomer(t, "Cy Drop")

	// The page before claiming: what is left, the Claim button.
	p := ada.get("/drops/" + one.ID)
	wantStatus(t, "drop page", p, http.StatusOK)
	wantText(t, "title", p.testid("drop-title"), "Only one")
	wantText(t, "left", p.testid("drop-left"), "1")
	if p.testid("claim-button").Length() != 1 || attr(p.testid("claim-area"), "data-phase") != "open" {
		t.Fatalf("no Claim button on an open drop:\n%s", trim(p.testid("claim-area").Text()))
	}
	if attr(p.testid("drop-live"), "hx-get") != "/drops/"+one.ID+"/count" || attr(p.testid("drop-live"), "hx-trigger") != "every 1s" {
		t.Fatalf("the count is not polled: %q %q", attr(p.testid("drop-live"), "hx-get"), attr(p.testid("drop-live"), "hx-trigger"))
	}

	// Claimed: the ticket in place of the button.
	p = ada.press(one.ID, false)
	wantStatus(t, "claim", p, http.StatusOK)
	wantText(t, "notice", p.testid("claim-notice"), "Claimed")
	if attr(p.testid("my-ticket"), "data-status") != "valid" {
		t.Fatalf("no valid ticket after the claim:\n%s", trim(p.body))
	}
	// Already yours (a second tab's Claim, on a drop not sold out): a 409
	// that shows the ticket.
	two := s.openDrop(t, "Two of them", 2)
	ada.get("/drops/" + two.ID)
	wantStatus(t, "claim in one tab", ada.press(two.ID, false), http.StatusOK)
	p = ada.press(two.ID, false)
	wantRefused(t, "claim in the other tab", p, http.StatusConflict, "already yours")
	if p.testid("my-ticket").Length() != 1 {
		t.Fatal("the refusal does not show the customer's ticket")
	}
	// Sold out, through htmx and through a plain form.
	wantRefused(t, "claim of a sold-out drop", bo.claim(one.ID, false), http.StatusConflict, "Sold out")
	p = cy.claim(one.ID, true)
	wantStatus(t, "plain claim", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); loc != "/drops/"+one.ID {
		t.Fatalf("a plain claim goes to %q", loc)
	}
	p = cy.get("/drops/" + one.ID)
	wantText(t, "flash", p.testid("flash"), "Sold out")
	if p.testid("drop-soldout").Length() != 1 || p.testid("claim-soldout").Length() != 1 || p.testid("claim-button").Length() != 0 {
		t.Fatalf("the page of a sold-out drop:\n%s", trim(p.testid("claim-area").Text()))
	}
	if p = ada.get("/drops/" + one.ID); p.testid("my-ticket").Length() != 1 {
		t.Fatal("the ticket holder does not see the ticket on the page")
	}

	// Not open yet: the countdown, no button, and a claim refused.
	now := time.Now()
	later := s.newDrop(t, "Later", 5, now.Add(time.Hour), now.Add(2*time.Hour), true)
	p = ada.get("/drops/" + later.ID)
	if p.testid("drop-countdown").Length() != 1 || p.testid("claim-wait").Length() != 1 || p.testid("claim-button").Length() != 0 {
		t.Fatalf("the page of a drop not open yet:\n%s", trim(p.testid("drop-live").Text()+p.testid("claim-area").Text()))
	}
	if trig := attr(p.testid("claim-area"), "hx-trigger"); !strings.HasPrefix(trig, "load delay:") {
		t.Fatalf("the claim area does not fetch itself at the opening: %q", trig)
	}
	// What the claim area's timer fetches: the area alone for htmx, the
	// page without.
	area := ada.get("/drops/"+later.ID+"/claim", "HX-Request", "true")
	if area.testid("claim-wait").Length() != 1 || area.testid("drop-live").Length() != 0 || area.testid("nav-drops").Length() != 0 {
		t.Fatalf("the claim area alone:\n%s", trim(area.body))
	}
	if ada.get("/drops/"+later.ID+"/claim").testid("drop-live").Length() != 1 {
		t.Fatal("without htmx, the claim area's address is not the drop's page")
	}
	wantRefused(t, "claim before the opening", ada.claim(later.ID, false), http.StatusUnprocessableEntity, "not open yet")
	p = ada.claim(later.ID, true)
	wantStatus(t, "plain claim before the opening", p, http.StatusSeeOther)
	wantText(t, "flash", ada.get("/drops/"+later.ID).testid("flash"), "not open yet")

	// Closed early by staff.
	staff := s.staff(t)
	early := s.openDrop(t, "Closed early", 5)
	if p := ada.get("/drops/" + early.ID); p.testid("claim-button").Length() != 1 {
		t.Fatal("no Claim button before the drop was closed")
	}
	staff.get("/admin/drops/" + early.ID)
	wantStatus(t, "close early", staff.post("/admin/drops/"+early.ID+"/close", url.Values{}), http.StatusSeeOther)
	wantRefused(t, "claim of a closed drop", bo.claim(early.ID, false), http.StatusUnprocessableEntity, "closed")
	if p := bo.get("/drops/" + early.ID); p.testid("drop-closed").Length() != 1 || p.testid("claim-closed").Length() != 1 {
		t.Fatalf("the page of a drop closed early:\n%s", trim(p.testid("drop-live").Text()))
	}

	// Cancelled by staff. (Ada has claimed often this second: Di claims.)
	di, _ := s.newCustomer(t, "Di Drop")
	gone := s.openDrop(t, "Cancelled", 5)
	wantStatus(t, "claim before the cancellation", di.claim(gone.ID, false), http.StatusOK)
	staff.get("/admin/drops/" + gone.ID)
	wantStatus(t, "cancel", staff.post("/admin/drops/"+gone.ID+"/cancel", url.Values{}), http.StatusSeeOther)
	wantRefused(t, "claim of a cancelled drop", bo.claim(gone.ID, false), http.StatusUnprocessableEntity, "cancelled")
	p = di.get("/drops/" + gone.ID)
	if p.testid("drop-cancelled").Length() != 1 || attr(p.testid("my-ticket"), "data-status") != "void" {
		t.Fatalf("the holder's page of a cancelled drop:\n%s", trim(p.testid("claim-area").Text()))
	}

	// A visitor: a sign-in link, and a claim sent to sign in and back.
	visitor := s.browser(t)
	p = visitor.get("/drops/" + later.ID)
	if p.testid("claim-wait").Length() != 1 {
		t.Fatal("a visitor does not see the wait before the opening")
	}
	open := s.openDrop(t, "For visitors", 3)
	p = visitor.get("/drops/" + open.ID)
	if href := attr(p.testid("claim-login"), "href"); href != "/login?next=%2Fdrops%2F"+open.ID {
		t.Fatalf("sign-in link %q", href)
	}
	if len(visitor.cookies()) != 0 {
		t.Fatal("a visitor's look at a drop made a session")
	}
	visitor.get("/login") // a form: the visit has a CSRF token now
	p = visitor.claim(open.ID, true)
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/login?next=%2Fdrops%2F"+open.ID {
		t.Fatalf("a visitor's claim: %d to %q", p.status, p.header.Get("Location"))
	}
	login := visitor.get(p.header.Get("Location"))
	wantText(t, "flash", login.testid("flash"), "Sign in")
	p = visitor.post("/login", url.Values{"email": {demo.CustomerEmail}, "password": {demo.CustomerPassword}, "next": {"/drops/" + open.ID}})
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/drops/"+open.ID {
		t.Fatalf("after signing in: %d to %q", p.status, p.header.Get("Location"))
	}
	if p = visitor.get("/drops/" + open.ID); p.testid("claim-button").Length() != 1 {
		t.Fatal("back on the drop, signed in, there is no Claim button")
	}
}

// The count fragment sets no cookie, reads no session and, once this
// replica knows the drop, sends DynamoDB nothing. The pages' requests per
// view are measured (and logged) here too.
func TestDropCountFragmentNeedsNoSessionNorDynamoDB(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	d := s.openDrop(t, "Counted", 10)
	visitor := s.browser(t)
	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	ada.get("/") // shows the welcome flash, which saves the session

	requests := func(what string, fn func()) int {
		t.Helper()
		s.env.Counter.Reset()
		fn()
		n := s.env.Counter.Total()
		t.Logf("%s: %d DynamoDB requests %v", what, n, s.env.Counter.Ops())
		return n
	}
	count := func(b *browser) page {
		t.Helper()
		p := b.get("/drops/"+d.ID+"/count", "HX-Request", "true")
		wantStatus(t, "count", p, http.StatusOK)
		if c := p.header.Get("Set-Cookie"); c != "" {
			t.Fatalf("the count fragment set a cookie: %s", c)
		}
		return p
	}
	requests("first view of the count (the gate reads the drop)", func() { count(visitor) })
	for _, b := range []*browser{visitor, ada} {
		if n := requests("count, again", func() {
			for range 3 {
				p := count(b)
				wantText(t, "left", p.testid("drop-left"), "10")
			}
		}); n != 0 {
			t.Fatalf("three views of the count sent %d DynamoDB requests, want 0", n)
		}
	}
	if len(visitor.cookies()) != 0 {
		t.Fatal("the visitor has a cookie")
	}
	if p := count(visitor); attr(p.testid("drop-live"), "hx-trigger") != "every 1s" {
		t.Fatal("the fragment stops polling an open drop")
	}

	// Measured: what each page costs.
	if n := requests("/drops/:id, visitor", func() { wantStatus(t, "drop", visitor.get("/drops/"+d.ID), 200) }); n != 0 {
		t.Errorf("a visitor's view of a drop the gate knows sent %d requests, want 0", n)
	}
	if n := requests("/drops/:id, customer", func() { wantStatus(t, "drop", ada.get("/drops/"+d.ID), 200) }); n != 2 {
		t.Errorf("a customer's view of a drop sent %d requests, want 2 (session, ticket)", n)
	}
	if n := requests("/drops, visitor", func() { wantStatus(t, "drops", visitor.get("/drops"), 200) }); n > 2 {
		t.Errorf("a visitor's view of /drops sent %d requests", n)
	}
	if n := requests("/drops, visitor, again", func() { wantStatus(t, "drops", visitor.get("/drops"), 200) }); n > 1 {
		t.Errorf("a visitor's second view of /drops sent %d requests, want at most 1 (the list, once its second is over)", n)
	}
	if n := requests("/drops, customer", func() { wantStatus(t, "drops", ada.get("/drops"), 200) }); n > 2 {
		t.Errorf("a customer's view of /drops sent %d requests, want at most 2 (session, the list once its second is over)", n)
	}
	if n := requests("/tickets, customer", func() { wantStatus(t, "tickets", ada.get("/tickets"), 200) }); n != 2 {
		t.Errorf("a customer's view of /tickets sent %d requests, want 2", n)
	}
	ada.get("/drops/" + d.ID)
	if n := requests("claim (the POST), customer", func() { wantStatus(t, "claim", ada.press(d.ID, false), 200) }); n != 2 {
		t.Errorf("a claim sent %d requests, want 2 (session, the claim's transaction)", n)
	}
	if n := requests("count after a claim", func() { wantText(t, "left", count(visitor).testid("drop-left"), "9") }); n != 0 {
		t.Fatalf("the count after a claim sent %d requests", n)
	}

	// An unknown or unpublished drop is a 404, with no cookie either.
	hidden := s.newDrop(t, "Not published", 5, time.Now(), time.Now().Add(time.Hour), false)
	for _, id := range []string{hidden.ID, store.NewID(), "no%20such"} {
		p := visitor.get("/drops/" + id + "/count")
		if p.status != http.StatusNotFound || p.header.Get("Set-Cookie") != "" {
			t.Fatalf("count of %s: %d, cookie %q", id, p.status, p.header.Get("Set-Cookie"))
		}
	}
	if p := ada.get("/drops/" + hidden.ID); p.status != http.StatusNotFound {
		t.Fatalf("an unpublished drop's page: %d", p.status)
	}
	wantStatus(t, "claim of an unpublished drop", ada.claim(hidden.ID, false), http.StatusNotFound)
}

// /drops lists the published drops that are open or coming, sold out
// ones marked, and neither unpublished, ended nor cancelled ones.
func TestDropsListsPublishedOpenAndUpcoming(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	now := time.Now()
	open := s.openDrop(t, "Open one", 3)
	coming := s.newDrop(t, "Coming one", 3, now.Add(time.Hour), now.Add(2*time.Hour), true)
	hidden := s.newDrop(t, "Hidden one", 3, now, now.Add(time.Hour), false)
	sold := s.openDrop(t, "Sold one", 1)
	gone := s.openDrop(t, "Gone one", 3)
	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	wantStatus(t, "claim", ada.claim(sold.ID, false), http.StatusOK)
	staff := s.staff(t)
	staff.get("/admin/drops/" + gone.ID)
	wantStatus(t, "cancel", staff.post("/admin/drops/"+gone.ID+"/cancel", url.Values{}), http.StatusSeeOther)

	p := s.browser(t).get("/drops")
	wantStatus(t, "drops", p, http.StatusOK)
	phases := map[string]string{}
	p.testid("drop-card").Each(func(_ int, c *goquerySelection) { phases[attr(c, "data-drop")] = attr(c, "data-phase") })
	for id, want := range map[string]string{open.ID: "open", coming.ID: "upcoming", sold.ID: "sold_out", hidden.ID: "", gone.ID: ""} {
		if phases[id] != want {
			t.Errorf("drop %s is listed as %q, want %q (listed: %v)", id, phases[id], want, phases)
		}
	}
	if len(phases) != 5 { // and the demo's two
		t.Errorf("%d drops listed, want 5: %v", len(phases), phases)
	}
	if got := attr(p.doc.Find(`nav a[href="/drops"]`), "data-testid"); got != "nav-drops" {
		t.Error("no Drops in the navigation")
	}
}

// More than a page of drops that have closed does not hide the one still
// open: the first page of /drops shows it, with no "show more" in front.
func TestDropsShowTheOpenDropBehindMoreThanAPageOfPastOnes(t *testing.T) {
	t.Parallel()
	now := time.Now()
	t0 := now.Add(-3 * time.Hour)
	clock := storetest.NewClock(t0, 0)
	var counter storetest.Counter
	s := newShop(t, withStore(&counter, store.WithClock(clock.Now)))
	st := store.New(s.env.Client, s.env.Table, store.WithClock(clock.Now))
	for i := range 13 { // a page is 12
		if _, err := st.CreateDrop(context.Background(), store.NewDrop{Title: fmt.Sprintf("Past %d", i), Quantity: 3,
			Opens: t0, Closes: t0.Add(time.Hour), Audience: store.DropAudienceShop, Published: true}); err != nil {
			t.Fatal(err)
		}
	}
	open, err := st.CreateDrop(context.Background(), store.NewDrop{Title: "Still open", Quantity: 3,
		Opens: t0.Add(90 * time.Minute), Closes: now.Add(24 * time.Hour), Audience: store.DropAudienceShop, Published: true})
	if err != nil {
		t.Fatal(err)
	}
	clock.Set(now)
	p := s.browser(t).get("/drops")
	wantStatus(t, "drops", p, http.StatusOK)
	if p.doc.Find(`[data-testid="drop-card"][data-drop="`+open.ID+`"]`).Length() != 1 {
		t.Fatalf("the open drop is not on the first page of /drops:\n%s", p.testid("drops").Text())
	}
	if n := p.doc.Find(`[data-testid="drop-card"]`).Length(); n != 3 { // and the demo's two
		t.Errorf("%d drops on the first page, want 3", n)
	}
}

// /tickets lists the customer's own tickets only, newest first, a page of
// 20 at a time with "show more".
func TestTicketsListOnlyTheCustomersOwn(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	ada, adaID := s.newCustomer(t, "Ada Tickets")
	bo, _ := s.newCustomer(t, "Bo Tickets")
	var adaDrops []store.Drop
	for i := range 22 {
		d := s.openDrop(t, fmt.Sprintf("Drop %02d", i), 5)
		adaDrops = append(adaDrops, d)
		if _, err := s.env.Store.Claim(ctx, store.ClaimRequest{DropID: d.ID, Client: adaID, CustomerID: adaID, DropTitle: d.Title}, false); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond) // distinct claim times
	}
	bos := s.openDrop(t, "Bo's drop", 5)
	wantStatus(t, "Bo claims", bo.claim(bos.ID, false), http.StatusOK)

	p := ada.get("/tickets")
	wantStatus(t, "tickets", p, http.StatusOK)
	rows := p.testid("ticket-row")
	if rows.Length() != 20 {
		t.Fatalf("a page of %d tickets, want 20", rows.Length())
	}
	if got := attr(rows.First(), "data-drop"); got != adaDrops[21].ID {
		t.Fatalf("the first ticket is of %s, want the newest %s", got, adaDrops[21].ID)
	}
	wantText(t, "status", rows.First().Find(`[data-testid="ticket-status"]`), "valid")
	more := attr(p.testid("tickets-more"), "hx-get")
	next := ada.get(more, "HX-Request", "true")
	if next.testid("ticket-row").Length() != 2 || attr(next.testid("ticket-row").Last(), "data-drop") != adaDrops[0].ID || next.testid("tickets-more").Length() != 0 {
		t.Fatalf("the second page:\n%s", trim(next.body))
	}
	seen := map[string]bool{}
	for _, pg := range []page{p, next} {
		pg.testid("ticket-row").Each(func(_ int, r *goquerySelection) { seen[attr(r, "data-drop")] = true })
	}
	if seen[bos.ID] || len(seen) != 22 {
		t.Fatalf("Ada's tickets: %d, Bo's among them: %v", len(seen), seen[bos.ID])
	}
	p = bo.get("/tickets")
	if p.testid("ticket-row").Length() != 1 || attr(p.testid("ticket-row"), "data-drop") != bos.ID {
		t.Fatalf("Bo's tickets:\n%s", trim(p.testid("tickets").Text()))
	}
	if p.testid("nav-tickets").Length() != 1 {
		t.Fatal("no Tickets in a customer's navigation")
	}
	if p := s.browser(t).get("/tickets"); p.status != http.StatusSeeOther || p.header.Get("Location") != "/login?next=%2Ftickets" {
		t.Fatalf("a visitor's /tickets: %d to %q", p.status, p.header.Get("Location"))
	}
	if s.browser(t).get("/drops").testid("nav-tickets").Length() != 0 {
		t.Fatal("a visitor sees Tickets in the navigation")
	}
}

// Staff create a drop; bad input is a 422 with the message at its field
// and nothing written.
func TestAdminDropCreate(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	staff := s.staff(t)
	p := staff.get("/admin/drops")
	wantStatus(t, "drops", p, http.StatusOK)
	if _, ok := p.testid("field-published").Attr("checked"); !ok {
		t.Fatal("published is not on by default")
	}
	drops := s.env.CountEntities(t, "drop")
	loc := s.env.Store.Location()
	at := func(d time.Duration) string { return time.Now().Add(d).In(loc).Format("2006-01-02T15:04") }
	form := func(title, qty, opens, closes string) url.Values {
		return url.Values{"title": {title}, "quantity": {qty}, "opens": {opens}, "closes": {closes}, "published": {"on"}}
	}
	for _, tc := range []struct {
		name, field, msg string
		form             url.Values
		htmx             bool
	}{
		{"quantity 0", "quantity", "from 1 to", form("Zero", "0", at(time.Hour), at(2*time.Hour)), false},
		{"quantity not a number", "quantity", "whole number", form("Many", "lots", at(time.Hour), at(2*time.Hour)), true},
		{"closes before opens", "closes", "close after it opens", form("Backwards", "10", at(2*time.Hour), at(time.Hour)), false},
		{"opens in the past", "opens", "in the past", form("Yesterday", "10", at(-24*time.Hour), at(time.Hour)), true},
		{"no title", "title", "title", form(" ", "10", at(time.Hour), at(2*time.Hour)), false},
		{"no opening", "opens", "when the drop opens", form("When", "10", "", at(2*time.Hour)), false},
	} {
		var p page
		if tc.htmx {
			p = staff.post("/admin/drops", tc.form, "HX-Request", "true")
		} else {
			p = staff.post("/admin/drops", tc.form)
		}
		wantStatus(t, tc.name, p, http.StatusUnprocessableEntity)
		wantText(t, tc.name, p.testid("error-"+tc.field), tc.msg)
		if tc.htmx && p.testid("drop-form").Length() != 1 {
			t.Fatalf("%s: htmx does not get the form back", tc.name)
		}
		if got := attr(p.testid("field-title"), "value"); got != strings.TrimSpace(tc.form.Get("title")) {
			t.Fatalf("%s: the form lost the title: %q", tc.name, got)
		}
	}
	// Two bad fields at once: both told.
	p = staff.post("/admin/drops", form("Both", "0", at(2*time.Hour), at(time.Hour)))
	if p.testid("error-quantity").Length() != 1 || p.testid("error-closes").Length() != 1 {
		t.Fatalf("two bad fields, errors at quantity %d, closes %d", p.testid("error-quantity").Length(), p.testid("error-closes").Length())
	}
	if n := s.env.CountEntities(t, "drop"); n != drops {
		t.Fatalf("bad forms wrote %d drops", n-drops)
	}

	// A good one, unpublished: on the staff list, not on /drops.
	f := form("Staff's drop", "25", at(time.Hour), at(3*time.Hour))
	f.Del("published")
	p = staff.post("/admin/drops", f)
	wantStatus(t, "create", p, http.StatusSeeOther)
	id := strings.TrimPrefix(p.header.Get("Location"), "/admin/drops/")
	if !store.ValidID(id) {
		t.Fatalf("created and sent to %q", p.header.Get("Location"))
	}
	d, err := s.env.Store.Drop(context.Background(), id)
	if err != nil || d.Quantity != 25 || d.Published || d.Audience != store.DropAudienceShop || d.Title != "Staff's drop" {
		t.Fatalf("stored %+v, %v", d, err)
	}
	if want := time.Now().Add(time.Hour).In(loc).Format("2006-01-02T15:04"); d.Opens.In(loc).Format("2006-01-02T15:04") != want {
		t.Fatalf("opens %v, want %s in %s", d.Opens, want, loc)
	}
	p = staff.get("/admin/drops")
	if attr(p.testid("admin-drop-row").First(), "data-drop") != id {
		t.Fatal("the new drop is not first on the staff list")
	}
	wantText(t, "claimed", p.testid("admin-drop-claimed").First(), "0 / 25")
	if s.browser(t).get("/drops").doc.Find(`[data-drop="`+id+`"]`).Length() != 0 {
		t.Fatal("an unpublished drop is on /drops")
	}
}

// Staff choose who a drop is for: the customers or one integration not
// revoked. An integration's drop is never published nor a product drop
// (the form says so at "For", writing nothing); made, it is the
// integration's alone: off /drops, a 404 to customers, reached by the
// integration's key, and its page says who it is for and who made it.
func TestAdminDropForAnIntegration(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	secret := newAPIKey(t, s.env.Store, "partner")
	newAPIKey(t, s.env.Store, "gone")
	if err := s.env.Store.RevokeIntegration(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	staff := s.staff(t)
	p := staff.get("/admin/drops")
	var options []string
	p.testid("field-audience").Find("option").Each(func(_ int, o *goquerySelection) { options = append(options, attr(o, "value")) })
	if strings.Join(options, ",") != "shop,api:partner" {
		t.Fatalf("audiences offered: %v, want the customers and partner (gone is revoked)", options)
	}
	if _, ok := p.testid("field-audience").Find(`option[value="shop"]`).Attr("selected"); !ok {
		t.Fatal("the customers are not the audience by default")
	}
	loc := s.env.Store.Location()
	at := func(d time.Duration) string { return time.Now().Add(d).In(loc).Format("2006-01-02T15:04") }
	form := func(audience string) url.Values {
		return url.Values{"title": {"For partner"}, "quantity": {"10"}, "opens": {at(time.Hour)}, "closes": {at(2 * time.Hour)}, "audience": {audience}}
	}
	drops := s.env.CountEntities(t, "drop")
	published, product, revoked, bogus, tooLong := form("api:partner"), form("api:partner"), form("api:gone"), form("partner"), form("shop")
	published.Set("published", "on")
	product.Set("product_id", "cf-light")
	product.Set("price", "9.90")
	tooLong.Set("closes", at(366*24*time.Hour))
	for _, tc := range []struct {
		name, field, msg string
		form             url.Values
	}{
		{"published", "audience", "never published to customers", published},
		{"a product drop", "audience", "never a product drop", product},
		{"a revoked integration", "audience", "does not exist or is revoked", revoked},
		{"no such audience", "audience", "customers or one integration", bogus},
		{"closing after a year", "closes", "within 365 days", tooLong},
	} {
		p := staff.post("/admin/drops", tc.form, "HX-Request", "true")
		wantStatus(t, tc.name, p, http.StatusUnprocessableEntity)
		wantText(t, tc.name, p.testid("error-"+tc.field), tc.msg)
		if n := p.testid("field-audience").Find("option").Length(); n != 2 {
			t.Fatalf("%s: the form came back with %d audiences", tc.name, n)
		}
	}
	if n := s.env.CountEntities(t, "drop"); n != drops {
		t.Fatalf("refused forms wrote %d drops", n-drops)
	}

	p = staff.post("/admin/drops", form("api:partner"))
	wantStatus(t, "create", p, http.StatusSeeOther)
	id := strings.TrimPrefix(p.header.Get("Location"), "/admin/drops/")
	d, err := s.env.Store.Drop(ctx, id)
	staffID := s.customerID(t, demo.StaffEmail)
	if err != nil || d.Audience != "api:partner" || d.Published || d.CreatedBy != "staff:"+staffID {
		t.Fatalf("stored %+v, %v", d, err)
	}
	p = staff.get("/admin/drops/" + id)
	wantText(t, "for", p.testid("admin-drop-audience"), "for integration partner")
	me, err := s.env.Store.Customer(ctx, staffID)
	if err != nil {
		t.Fatal(err)
	}
	wantText(t, "made by", p.testid("admin-drop-created-by"), "made by "+me.Name)
	list := staff.get("/admin/drops")
	wantText(t, "listed for", list.doc.Find(`[data-testid="admin-drop-row"][data-drop="`+id+`"] [data-testid="admin-drop-audience"]`), "integration partner")

	visitor := s.browser(t)
	if strings.Contains(visitor.get("/drops").body, id) {
		t.Fatal("/drops lists an integration's drop")
	}
	wantStatus(t, "the drop's page to a visitor", visitor.get("/drops/"+id), http.StatusNotFound)
	api := newAPIClient(t, s.base, secret)
	waitForKey(t, api)
	api.do(http.MethodGet, "/api/v1/drops/"+id, "").want(t, "the integration reads its drop", http.StatusOK, "")
	api.claim(id, "c1").want(t, "the integration claims on it (before it opens)", http.StatusConflict, "not_open")
	// The demo's drops are the customers', made by its staff member.
	listed, err := s.env.Store.PublishedDrops(ctx, 10, "")
	if err != nil || len(listed.Items) == 0 {
		t.Fatalf("the demo's drops: %v", err)
	}
	for _, d := range listed.Items {
		if d.Audience != store.DropAudienceShop || d.CreatedBy != "staff:"+staffID {
			t.Fatalf("a demo drop %+v", d)
		}
	}
}

// Cancelling voids every ticket and mails each customer who held one (not
// the API's clients), once, however often staff cancel; the staff page
// shows the count live, this replica's refusals, and the holders; the CSV
// has them in claim order.
func TestAdminDropCancelVoidsMailsAndExports(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	d := s.openDrop(t, "To be cancelled", 3)
	ada, adaID := s.newCustomer(t, "Ada Cancel")
	bo, boID := s.newCustomer(t, "Bo Cancel")
	cy, _ := s.newCustomer(t, "Cy Cancel")
	wantStatus(t, "Ada claims", ada.claim(d.ID, false), http.StatusOK)
	time.Sleep(2 * time.Millisecond)
	wantStatus(t, "Bo claims", bo.claim(d.ID, false), http.StatusOK)
	time.Sleep(2 * time.Millisecond)
	wantStatus(t, "Ada again", ada.claim(d.ID, false), http.StatusConflict)
	time.Sleep(2 * time.Millisecond)
	if _, err := s.env.Store.Claim(ctx, store.ClaimRequest{DropID: d.ID, Client: "partner:client-7", DropTitle: d.Title}, false); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "Cy, sold out", cy.claim(d.ID, false), http.StatusConflict)

	staff := s.staff(t)
	p := staff.get("/admin/drops/" + d.ID)
	wantStatus(t, "staff drop page", p, http.StatusOK)
	wantText(t, "claimed", p.testid("admin-drop-claimed-live"), "3")
	wantText(t, "replica", p.testid("admin-drop-replica"), "This replica's view")
	rej := map[string]string{}
	p.testid("admin-drop-rejection").Each(func(_ int, r *goquerySelection) {
		rej[attr(r, "data-reason")] = text(r.Find(`[data-testid="admin-drop-rejection-count"]`))
	})
	if rej["already_claimed"] != "1" || rej["sold_out"] != "1" {
		t.Fatalf("refusals shown: %v", rej)
	}
	clients := []string{}
	p.testid("admin-ticket-row").Each(func(_ int, r *goquerySelection) { clients = append(clients, attr(r, "data-client")) })
	if strings.Join(clients, ",") != adaID+","+boID+",partner:client-7" {
		t.Fatalf("holders %v, want Ada, Bo, the API client in claim order", clients)
	}
	live := staff.get("/admin/drops/"+d.ID+"/live", "HX-Request", "true")
	wantStatus(t, "live", live, http.StatusOK)
	if attr(live.testid("admin-drop-live"), "data-phase") != "sold_out" || attr(live.testid("admin-drop-live"), "hx-trigger") != "" {
		t.Fatalf("the live part of a sold-out drop: phase %q, trigger %q", attr(live.testid("admin-drop-live"), "data-phase"), attr(live.testid("admin-drop-live"), "hx-trigger"))
	}

	// The CSV: every holder in claim order.
	resp, err := staff.http.Get(s.base + "/admin/drops/" + d.ID + "/tickets.csv")
	if err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(resp.Body).ReadAll()
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("csv: %d %s %v", resp.StatusCode, resp.Header.Get("Content-Type"), err)
	}
	if len(records) != 4 || strings.Join(records[0], ",") != "drop_id,drop_title,claimed_at (ISO 8601, UTC),client,customer_id,status" {
		t.Fatalf("csv: %v", records)
	}
	if records[1][3] != adaID || records[1][4] != adaID || records[3][3] != "partner:client-7" || records[3][4] != "" || records[2][5] != "valid" {
		t.Fatalf("csv rows: %v", records[1:])
	}

	// Cancel: tickets void, two mails (the API client has no email here).
	p = staff.post("/admin/drops/"+d.ID+"/cancel", url.Values{})
	wantStatus(t, "cancel", p, http.StatusSeeOther)
	p = staff.get(p.header.Get("Location"))
	wantText(t, "flash", p.testid("flash"), "3 tickets void, 2 holders mailed")
	if p.testid("admin-drop-cancel").Length() != 0 || p.testid("admin-drop-close").Length() != 0 {
		t.Fatal("a cancelled drop still offers close and cancel")
	}
	p.testid("admin-ticket-row").Each(func(_ int, r *goquerySelection) {
		if attr(r, "data-status") != "void" {
			t.Errorf("ticket of %s is %s after the cancellation", attr(r, "data-client"), attr(r, "data-status"))
		}
	})
	for _, h := range []struct{ id, email string }{{adaID, "ada.cancel@example.com"}, {boID, "bo.cancel@example.com"}} {
		m, err := s.env.Store.Mail(ctx, store.DropCancelMailID(d.ID, h.id))
		if err != nil {
			t.Fatalf("no mail to %s: %v", h.email, err)
		}
		if m.To != h.email || m.Kind != store.MailDropCancelled || m.Status != store.MailPending || !strings.Contains(m.Text, "To be cancelled") || m.CustomerID != h.id {
			t.Fatalf("mail to %s: %+v", h.email, m)
		}
	}
	if n := len(outboxMails(t, s, store.MailDropCancelled, "ada.cancel@example.com")) + len(outboxMails(t, s, store.MailDropCancelled, "bo.cancel@example.com")); n != 2 {
		t.Fatalf("%d drop-cancelled mails in the outbox, want 2", n)
	}
	wantText(t, "Ada's tickets", ada.get("/tickets").testid("ticket-status"), "void")

	// Cancelling again finishes nothing new and mails nobody twice;
	// closing a cancelled drop is refused.
	wantStatus(t, "cancel again", staff.post("/admin/drops/"+d.ID+"/cancel", url.Values{}), http.StatusSeeOther)
	if n := len(outboxMails(t, s, store.MailDropCancelled, "ada.cancel@example.com")) + len(outboxMails(t, s, store.MailDropCancelled, "bo.cancel@example.com")); n != 2 {
		t.Fatalf("%d drop-cancelled mails after cancelling twice, want 2", n)
	}
	p = staff.post("/admin/drops/"+d.ID+"/close", url.Values{})
	wantStatus(t, "close a cancelled drop", p, http.StatusConflict)
	wantText(t, "close refused", p.testid("form-error"), "already closed or cancelled")
	if p := staff.post("/admin/drops/"+store.NewID()+"/cancel", url.Values{}); p.status != http.StatusNotFound {
		t.Fatalf("cancel an unknown drop: %d", p.status)
	}
}

// A customer cannot reach the staff drop pages; a visitor is sent to sign in.
func TestCustomerCannotReachAdminDrops(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	d := s.openDrop(t, "Staff only", 3)
	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	for _, path := range []string{"/admin/drops", "/admin/drops/" + d.ID, "/admin/drops/" + d.ID + "/live", "/admin/drops/" + d.ID + "/tickets.csv"} {
		if p := ada.get(path); p.status != http.StatusForbidden {
			t.Errorf("a customer's GET %s: %d", path, p.status)
		}
	}
	ada.get("/drops/" + d.ID)
	for _, path := range []string{"/admin/drops", "/admin/drops/" + d.ID + "/cancel", "/admin/drops/" + d.ID + "/close"} {
		if p := ada.post(path, url.Values{"title": {"Mine"}, "quantity": {"5"}}); p.status != http.StatusForbidden {
			t.Errorf("a customer's POST %s: %d", path, p.status)
		}
	}
	if got, err := s.env.Store.Drop(context.Background(), d.ID); err != nil || got.Status != store.DropOpen {
		t.Fatalf("the drop after a customer's tries: %+v %v", got, err)
	}
	if p := s.browser(t).get("/admin/drops"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/login") {
		t.Fatalf("a visitor's /admin/drops: %d to %q", p.status, p.header.Get("Location"))
	}
}
