package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"shop/store/demo"
)

// markPage leaves a marker on the page's window: it is gone after any
// navigation or reload.
func (j journey) markPage() {
	j.t.Helper()
	if _, err := chromedp.Run(j.ctx, chromedp.Evaluate[string](`window.dropMarker = 'same page'`)); err != nil {
		j.t.Fatal(err)
	}
}

// samePage checks that the page was not reloaded since markPage: the
// marker is there and the document was navigated to once.
func (j journey) samePage(step string) {
	j.t.Helper()
	got, err := chromedp.Run(j.ctx, chromedp.Evaluate[string](`(window.dropMarker || 'gone') + ' ' + performance.getEntriesByType('navigation').length`))
	if err != nil {
		j.t.Fatal(err)
	}
	if got != "same page 1" {
		j.t.Fatalf("%s: the page was reloaded (marker, navigations: %q)", j.step(step), got)
	}
}

// A drop opening in about four seconds: its page counts down, and at the
// opening the Claim button appears without a reload; the customer claims
// and the ticket takes the button's place, still on the same page. Not
// parallel: it times the page against the wall clock.
func TestBrowserDropCountdownTurnsIntoTheClaimButton(t *testing.T) {
	s := newShop(t)
	ada := newJourney(t, s.base)
	ada.name = "Ada"
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)

	opens := time.Now().Add(4 * time.Second)
	d := s.newDrop(t, "Four-second roast", 5, opens, opens.Add(time.Hour), true)
	ada.do("open the drop", chromedp.Navigate(s.base+"/drops/"+d.ID), chromedp.WaitVisible(sel("drop-countdown")))
	ada.markPage()
	if got := ada.text(sel("drop-countdown")); got < "00:01" || got > "00:04" {
		t.Fatalf("countdown %q, want 00:01 to 00:04", got)
	}
	if ada.text(sel("claim-wait")) == "" {
		t.Fatal("no waiting button before the opening")
	}
	ada.shot("drops-01-countdown")
	ada.waitFor("the countdown ticks", `(document.querySelector('`+sel("drop-countdown")+`')||{}).textContent < '`+ada.text(sel("drop-countdown"))+`'`, 3*time.Second)

	ada.waitFor("the Claim button appears at the opening", `!!document.querySelector('`+sel("claim-button")+`')`, 10*time.Second)
	if late := time.Since(opens); late < 0 || late > 3*time.Second {
		t.Fatalf("the button appeared %v after the opening", late)
	}
	ada.waitFor("the count replaces the countdown", `!!document.querySelector('`+sel("drop-left")+`')`, 3*time.Second)
	ada.samePage("at the opening")
	if got := ada.text(sel("drop-left")); got != "5" {
		t.Fatalf("left at the opening: %q", got)
	}
	ada.shot("drops-02-open")

	ada.do("claim", chromedp.Click(sel("claim-button")), chromedp.WaitVisible(sel("my-ticket")))
	ada.samePage("after the claim")
	if got := ada.text(sel("claim-notice")); !strings.Contains(got, "Claimed") {
		t.Fatalf("notice %q", got)
	}
	ada.waitFor("the count goes down", `(document.querySelector('`+sel("drop-left")+`')||{}).textContent === '4'`, 3*time.Second)
	ada.shot("drops-03-claimed")
}

// Two customers on a drop of one: Ada claims it (reading it is hers, not
// "Sold out") and finds the ticket under Tickets; Bo, whose page was open all along, sees it sell out without a
// reload, and a claim from a stale page is told "sold out".
func TestBrowserDropClaimTicketsAndSoldOut(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	d := s.openDrop(t, "The very last tin", 1)

	ada := newJourney(t, s.base)
	ada.name = "Ada"
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	bo := ada.tab("Bo")
	bo.signIn("henrik@fikafield.example", "customer-demo-password")

	bo.do("Bo opens the drop", chromedp.Navigate(s.base+"/drops/"+d.ID), chromedp.WaitVisible(sel("claim-button")))
	bo.markPage()

	ada.do("Ada finds the drop", chromedp.Navigate(s.base+"/drops"), chromedp.WaitVisible(sel("drops")))
	ada.shot("drops-10-list")
	ada.do("Ada opens it", chromedp.Click(`[data-drop="`+d.ID+`"] `+sel("drop-link")), chromedp.WaitVisible(sel("claim-button")))
	ada.do("Ada claims", chromedp.Click(sel("claim-button")), chromedp.WaitVisible(sel("my-ticket")))
	// She took the last one: her page says it is hers, never "Sold out"
	// beside her ticket, and stays so (the live part stops polling).
	ada.waitFor("Ada reads the last ticket is hers", `!!document.querySelector('`+sel("drop-soldout-yours")+`')`, 3*time.Second)
	time.Sleep(1500 * time.Millisecond)
	if n := ada.count(sel("drop-soldout")); n != 0 {
		t.Fatalf("Ada, who holds the last ticket, is shown %d 'Sold out'", n)
	}
	ada.shot("drops-11-claimed")
	ada.do("Ada's tickets", chromedp.Click(sel("my-tickets-link")), chromedp.WaitVisible(sel("ticket-row")))
	if got := ada.text(sel("ticket-drop")); got != d.Title {
		t.Fatalf("Ada's ticket is for %q", got)
	}
	if got := ada.text(sel("ticket-status")); got != "valid" {
		t.Fatalf("Ada's ticket is %q", got)
	}
	ada.shot("drops-12-tickets")

	bo.waitFor("Bo's page sells out", `!!document.querySelector('`+sel("claim-soldout")+`') && !!document.querySelector('`+sel("drop-soldout")+`')`, 5*time.Second)
	bo.samePage("sold out")
	if n := bo.count(sel("claim-button")); n != 0 {
		t.Fatalf("Bo still has %d Claim buttons", n)
	}
	bo.shot("drops-13-sold-out")

	// A tab opened before the sell-out, without the live part (say it was
	// asleep): its Claim answers "sold out" in place.
	bo.do("Bo opens the drop again", chromedp.Navigate(s.base+"/drops/"+d.ID), chromedp.WaitVisible(sel("claim-soldout")))
	bo.do("a stale Claim button",
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#drop-live').removeAttribute('hx-trigger');
			document.querySelector('#claim-area').insertAdjacentHTML('beforeend',
			'<form hx-post="/drops/`+d.ID+`/claim" hx-target="#claim-area" hx-swap="outerHTML"><button data-testid="stale-claim">Claim</button></form>');
			htmx.process(document.querySelector('#claim-area'))`),
		chromedp.Click(sel("stale-claim")),
		chromedp.WaitVisible(sel("claim-error")),
	)
	if got := bo.text(sel("claim-error")); !strings.Contains(got, "Sold out") {
		t.Fatalf("a stale claim says %q", got)
	}
	bo.shot("drops-14-stale-claim")

	// Staff see the drop sold out, this replica's refusals and the holder.
	ada.signOut()
	ada.signIn(demo.StaffEmail, demo.StaffPassword)
	// The list fits the console's column at 1280 px in every language,
	// its "For" column not cut off (Indonesian's words are the longest).
	for _, lang := range []string{"id", "ko", "en"} {
		ada.do("staff's drops in "+lang, chromedp.Navigate(s.base+"/admin/drops?lang="+lang), chromedp.WaitVisible(sel("admin-drops")))
		ada.tableFits(lang, "admin-drops")
		if lang == "id" {
			ada.shot("drops-20-admin-list-id")
		}
	}
	ada.shot("drops-20-admin-list")
	ada.do("staff open the drop", chromedp.Click(`[data-drop="`+d.ID+`"] `+sel("admin-drop-link")), chromedp.WaitVisible(sel("admin-drop-live")))
	if got := ada.text(sel("admin-drop-claimed-live")); got != "1" {
		t.Fatalf("staff see %q claimed", got)
	}
	if got := ada.text(sel("admin-drop-rejections")); !strings.Contains(got, "sold_out") {
		t.Fatalf("staff see refusals %q", got)
	}
	ada.shot("drops-21-admin-drop")

	// Staff give Ada's ticket back: a question first, then the row says
	// released and the count is down.
	ada.do("staff ask to release Ada's ticket", chromedp.Click(sel("admin-ticket-release")), chromedp.WaitVisible(sel("release-form")))
	ada.shot("drops-22-admin-release")
	ada.do("staff release it", chromedp.Click(sel("release-confirm")), chromedp.WaitVisible(sel("flash")))
	if got := ada.text(sel("admin-ticket-status")); !strings.Contains(got, "released") {
		t.Fatalf("the released ticket's row says %q", got)
	}
	ada.shot("drops-23-admin-released")
}
