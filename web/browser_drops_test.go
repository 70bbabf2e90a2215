package web_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"shop/store/demo"
)

// dropTab is one signed-in customer's tab in Chromium, with its own cookies
// when made with another browser context.
type dropTab struct {
	t    *testing.T
	ctx  context.Context
	base string
	name string
}

func (b dropTab) do(step string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatalf("%s: %s: %v", b.name, step, err)
	}
}

func (b dropTab) text(testid string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(sel(testid)))
	if err != nil {
		b.t.Fatalf("%s: text of %s: %v", b.name, testid, err)
	}
	return strings.Join(strings.Fields(s), " ")
}

func (b dropTab) waitFor(step, js string, within time.Duration) {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(within))); err != nil {
		b.t.Fatalf("%s: %s: %v", b.name, step, err)
	}
}

func (b dropTab) signIn(email, password string) {
	b.t.Helper()
	b.do("sign in",
		chromedp.Navigate(b.base+"/login"),
		chromedp.WaitVisible(sel("login-form")),
		chromedp.SendKeys(sel("field-email"), email),
		chromedp.SendKeys(sel("field-password"), password),
		chromedp.Click(sel("login-submit")),
		chromedp.WaitVisible(sel("viewer-name")),
	)
}

// markPage leaves a marker on the page's window: it is gone after any
// navigation or reload.
func (b dropTab) markPage() {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`window.dropMarker = 'same page'`)); err != nil {
		b.t.Fatal(err)
	}
}

// samePage checks that the page was not reloaded since markPage: the
// marker is there and the document was navigated to once.
func (b dropTab) samePage(step string) {
	b.t.Helper()
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(window.dropMarker || 'gone') + ' ' + performance.getEntriesByType('navigation').length`))
	if err != nil {
		b.t.Fatal(err)
	}
	if got != "same page 1" {
		b.t.Fatalf("%s: %s: the page was reloaded (marker, navigations: %q)", b.name, step, got)
	}
}

func (b dropTab) shot(name string) {
	dir := os.Getenv("SHOP_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	_ = os.MkdirAll(dir, 0o755)
	_ = os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
}

// A drop opening in about four seconds: its page counts down, and at the
// opening the Claim button appears without a reload; the customer claims
// and the ticket takes the button's place, still on the same page. Not
// parallel: it times the page against the wall clock.
func TestBrowserDropCountdownTurnsIntoTheClaimButton(t *testing.T) {
	s := newShop(t)
	ctx, _ := newChromium(t)
	ada := dropTab{t: t, ctx: ctx, base: s.base, name: "Ada"}
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)

	opens := time.Now().Add(4 * time.Second)
	d := s.newDrop(t, "Four-second roast", 5, opens, opens.Add(time.Hour), true)
	ada.do("open the drop", chromedp.Navigate(s.base+"/drops/"+d.ID), chromedp.WaitVisible(sel("drop-countdown")))
	ada.markPage()
	if got := ada.text("drop-countdown"); got < "00:01" || got > "00:04" {
		t.Fatalf("countdown %q, want 00:01 to 00:04", got)
	}
	if ada.text("claim-wait") == "" {
		t.Fatal("no waiting button before the opening")
	}
	ada.shot("drops-01-countdown")
	ada.waitFor("the countdown ticks", `(document.querySelector('`+sel("drop-countdown")+`')||{}).textContent < '`+ada.text("drop-countdown")+`'`, 3*time.Second)

	ada.waitFor("the Claim button appears at the opening", `!!document.querySelector('`+sel("claim-button")+`')`, 10*time.Second)
	if late := time.Since(opens); late < 0 || late > 3*time.Second {
		t.Fatalf("the button appeared %v after the opening", late)
	}
	ada.waitFor("the count replaces the countdown", `!!document.querySelector('`+sel("drop-left")+`')`, 3*time.Second)
	ada.samePage("at the opening")
	if got := ada.text("drop-left"); got != "5" {
		t.Fatalf("left at the opening: %q", got)
	}
	ada.shot("drops-02-open")

	ada.do("claim", chromedp.Click(sel("claim-button")), chromedp.WaitVisible(sel("my-ticket")))
	ada.samePage("after the claim")
	if got := ada.text("claim-notice"); !strings.Contains(got, "Claimed") {
		t.Fatalf("notice %q", got)
	}
	ada.waitFor("the count goes down", `(document.querySelector('`+sel("drop-left")+`')||{}).textContent === '4'`, 3*time.Second)
	ada.shot("drops-03-claimed")
}

// Two customers on a drop of one: Ada claims it and finds the ticket under
// Tickets; Bo, whose page was open all along, sees it sell out without a
// reload, and a claim from a stale page is told "sold out".
func TestBrowserDropClaimTicketsAndSoldOut(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx, _ := newChromium(t)
	d := s.openDrop(t, "The very last tin", 1)

	ada := dropTab{t: t, ctx: ctx, base: s.base, name: "Ada"}
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	boCtx, cancel := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	defer cancel()
	bo := dropTab{t: t, ctx: boCtx, base: s.base, name: "Bo"}
	bo.signIn("henrik@fikafield.example", "customer-demo-password")

	bo.do("Bo opens the drop", chromedp.Navigate(s.base+"/drops/"+d.ID), chromedp.WaitVisible(sel("claim-button")))
	bo.markPage()

	ada.do("Ada finds the drop", chromedp.Navigate(s.base+"/drops"), chromedp.WaitVisible(sel("drops")))
	ada.shot("drops-10-list")
	ada.do("Ada opens it", chromedp.Click(`[data-drop="`+d.ID+`"] `+sel("drop-link")), chromedp.WaitVisible(sel("claim-button")))
	ada.do("Ada claims", chromedp.Click(sel("claim-button")), chromedp.WaitVisible(sel("my-ticket")))
	ada.shot("drops-11-claimed")
	ada.do("Ada's tickets", chromedp.Click(sel("my-tickets-link")), chromedp.WaitVisible(sel("ticket-row")))
	if got := ada.text("ticket-drop"); got != d.Title {
		t.Fatalf("Ada's ticket is for %q", got)
	}
	if got := ada.text("ticket-status"); got != "valid" {
		t.Fatalf("Ada's ticket is %q", got)
	}
	ada.shot("drops-12-tickets")

	bo.waitFor("Bo's page sells out", `!!document.querySelector('`+sel("claim-soldout")+`') && !!document.querySelector('`+sel("drop-soldout")+`')`, 5*time.Second)
	bo.samePage("sold out")
	if n, err := chromedp.Run(boCtx, chromedp.Evaluate[int](`document.querySelectorAll('`+sel("claim-button")+`').length`)); err != nil || n != 0 {
		t.Fatalf("Bo still has %d Claim buttons (%v)", n, err)
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
	if got := bo.text("claim-error"); !strings.Contains(got, "Sold out") {
		t.Fatalf("a stale claim says %q", got)
	}
	bo.shot("drops-14-stale-claim")

	// Staff see the drop sold out, this replica's refusals and the holder.
	ada.do("sign out", chromedp.Click(sel("logout")), chromedp.WaitVisible(sel("nav-login")))
	ada.signIn(demo.StaffEmail, demo.StaffPassword)
	ada.do("staff's drops", chromedp.Navigate(s.base+"/admin/drops"), chromedp.WaitVisible(sel("admin-drops")))
	ada.shot("drops-20-admin-list")
	ada.do("staff open the drop", chromedp.Click(`[data-drop="`+d.ID+`"] `+sel("admin-drop-link")), chromedp.WaitVisible(sel("admin-drop-live")))
	if got := ada.text("admin-drop-claimed-live"); got != "1" {
		t.Fatalf("staff see %q claimed", got)
	}
	if got := ada.text("admin-drop-rejections"); !strings.Contains(got, "sold_out") {
		t.Fatalf("staff see refusals %q", got)
	}
	ada.shot("drops-21-admin-drop")
}
