package web_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"golang.org/x/crypto/bcrypt"

	"shop/store"
	"shop/store/demo"
	"shop/store/rules"
)

// chromium is the package's one headless Chromium (Debian's), started by
// the first journey and stopped once the tests have run (stopChromium in
// TestMain): starting a browser for each journey cost a few seconds of two
// busy cores each. Every journey gets a browser context of its own in it
// (its own cookies and storage, as a fresh browser would have), so
// journeys running side by side never see each other.
var chromium struct {
	sync.Mutex
	ctx     context.Context // the browser's first tab, never navigated
	cancel  func()
	dataDir string
}

// newChromium opens a tab for a journey in a browser context of its own,
// closed when the test ends.
func newChromium(t *testing.T) context.Context {
	t.Helper()
	browser := startChromium(t)
	ctx, cancelCtx := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx() })
	return ctx
}

// startChromium starts the package's browser, or another if the last one
// has gone away.
func startChromium(t *testing.T) context.Context {
	t.Helper()
	// Chromium's headless shell when it is there (CI installs it): the
	// same engine without the full browser's window machinery, it took
	// about a fifth less CPU over the same journeys than `chromium
	// --headless`, on a machine the tests share with DynamoDB Local.
	path, err := exec.LookPath("chromium-headless-shell")
	if err != nil {
		path, err = exec.LookPath("chromium")
	}
	if err != nil {
		// A missing browser fails the journey rather than skipping it
		// unseen; leaving the journeys out is a choice made out loud.
		if os.Getenv("SHOP_NO_BROWSER") != "" {
			t.Skip("SHOP_NO_BROWSER is set: the browser journeys do not run")
		}
		t.Fatal("chromium is not installed (Debian: apt-get install chromium-headless-shell or chromium; .ci/run installs the first), or set SHOP_NO_BROWSER=1 to leave the browser journeys out")
	}
	chromium.Lock()
	defer chromium.Unlock()
	if chromium.ctx != nil && chromium.ctx.Err() == nil {
		return chromium.ctx
	}
	stopChromiumLocked()
	dir, err := os.MkdirTemp("", "shop-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.WindowSize(1280, 900),
		chromedp.UserDataDir(dir),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	chromium.ctx, chromium.cancel, chromium.dataDir = ctx, func() { cancelCtx(); cancelAlloc() }, dir
	// Started here, with a minute to do it, rather than by the first
	// journey's first step under that journey's deadline.
	start, cancelStart := context.WithTimeout(context.Background(), time.Minute)
	defer cancelStart()
	errc := make(chan error, 1)
	go func() { errc <- chromedp.Do(ctx) }()
	select {
	case err = <-errc:
	case <-start.Done():
		err = start.Err()
	}
	if err != nil {
		stopChromiumLocked()
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// stopChromium stops the package's browser once the tests have run.
func stopChromium(code int) int {
	chromium.Lock()
	defer chromium.Unlock()
	stopChromiumLocked()
	return code
}

func stopChromiumLocked() {
	if chromium.cancel != nil {
		chromium.cancel()
		_ = os.RemoveAll(chromium.dataDir)
	}
	chromium.ctx, chromium.cancel, chromium.dataDir = nil, nil, ""
}

// journey is one tab in Chromium going through the shop: each step fails
// the test with the step's name (and the tab's, where a test has several).
type journey struct {
	t    *testing.T
	ctx  context.Context
	base string
	name string
}

// newJourney opens Chromium on the shop at base.
func newJourney(t *testing.T, base string) journey {
	t.Helper()
	return journey{t: t, ctx: newChromium(t), base: base}
}

// tab opens another tab with cookies of its own: another customer.
func (j journey) tab(name string) journey {
	ctx, cancel := chromedp.NewContext(j.ctx, chromedp.WithNewBrowserContext())
	j.t.Cleanup(cancel)
	return journey{t: j.t, ctx: ctx, base: j.base, name: name}
}

func (j journey) step(step string) string {
	if j.name == "" {
		return step
	}
	return j.name + ": " + step
}

func (j journey) do(step string, actions ...chromedp.Action[chromedp.Void]) {
	j.t.Helper()
	start := time.Now()
	if err := chromedp.Do(j.ctx, actions...); err != nil {
		j.t.Fatalf("%s: %v", j.step(step), err)
	}
	j.t.Logf("%s: %v", j.step(step), time.Since(start).Round(time.Millisecond))
}

// rawText is the element's text as the browser renders it.
func (j journey) rawText(css string) string {
	j.t.Helper()
	s, err := chromedp.Run(j.ctx, chromedp.Text(css))
	if err != nil {
		j.t.Fatalf("%s: %v", j.step("text of "+css), err)
	}
	return s
}

// text is the element's text with its white space folded to single spaces.
func (j journey) text(css string) string {
	j.t.Helper()
	return strings.Join(strings.Fields(j.rawText(css)), " ")
}

// waitText waits for the element to say want.
func (j journey) waitText(step, css, want string) {
	j.t.Helper()
	js := `(() => { const e = document.querySelector(` + "`" + css + "`" + `); return !!e && e.innerText.includes(` + "`" + want + "`" + `); })()`
	if _, err := chromedp.Run(j.ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		j.t.Fatalf("%s: %s never said %q (it says %q)", j.step(step), css, want, j.text(css))
	}
}

func (j journey) count(css string) int {
	j.t.Helper()
	n, err := chromedp.Run(j.ctx, chromedp.Evaluate[int](`document.querySelectorAll('`+css+`').length`))
	if err != nil {
		j.t.Fatalf("%s: %v", j.step("count "+css), err)
	}
	return n
}

// waitFor waits until the JavaScript js is true.
func (j journey) waitFor(step, js string, within time.Duration) {
	j.t.Helper()
	if _, err := chromedp.Run(j.ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(within))); err != nil {
		// What the page showed, so a failure on a loaded machine says more
		// than a deadline.
		seen, _ := chromedp.Run(j.ctx, chromedp.Evaluate[string](pageSeen))
		j.t.Fatalf("%s: %v; the page: %s", j.step(step), err, seen)
	}
}

// pageSeen is what a failed wait prints of the page: where it is, its
// state, the focused field, the text fields' values (aria-invalid marked
// !) and the main text without lists of options (a country list alone
// would fill it).
const pageSeen = `(() => {
	const main = (document.querySelector('main') || document.body).cloneNode(true);
	main.querySelectorAll('select, script, style').forEach(e => e.remove());
	const fields = [...document.querySelectorAll('input[type=text], input[type=email], input:not([type])')]
		.filter(e => e.value).map(e => e.name + '=' + JSON.stringify(e.value) + (e.getAttribute('aria-invalid') === 'true' ? '!' : ''));
	const focused = document.activeElement && (document.activeElement.name || document.activeElement.tagName);
	return location.pathname + ' [' + document.readyState + ', htmx ' + !!window.htmx + ', focus ' + focused + '] fields: ' +
		fields.join(' ') + '; text: ' + main.textContent.replace(/\s+/g, ' ').slice(0, 1500);
})()`

// htmxReady waits until the page's scripts ran and htmx processed it:
// Navigate waits for the load, a click that follows a link does not.
func (j journey) htmxReady(page string) {
	j.t.Helper()
	j.waitFor(page+": htmx ready", `document.readyState === 'complete' && !!window.htmx`, 30*time.Second)
}

// signInAt opens path, is sent to the login form, signs in and waits for
// the testid the page it lands on shows.
func (j journey) signInAt(path, email, password, landed string) {
	j.t.Helper()
	j.do("sign in as "+email+" at "+path,
		chromedp.Navigate(j.base+path),
		chromedp.WaitVisible(sel("login-form")),
		chromedp.SendKeys(sel("field-email"), email),
		chromedp.SendKeys(sel("field-password"), password),
		chromedp.Click(sel("login-submit")),
		chromedp.WaitVisible(sel(landed)),
	)
}

func (j journey) signIn(email, password string) {
	j.t.Helper()
	j.signInAt("/login", email, password, "viewer-name")
}

func (j journey) signOut() {
	j.t.Helper()
	j.openMenu()
	j.do("sign out", chromedp.Click(sel("logout")), chromedp.WaitVisible(sel("nav-login")))
}

// openMenu opens the header's menu where it holds the links: on a phone,
// and signed in below 1536 px (the browser tests' window is 1280).
func (j journey) openMenu() {
	j.t.Helper()
	if j.visible(sel("nav-menu-toggle")) && !j.visible(sel("logout")) {
		j.do("open the menu", chromedp.Click(sel("nav-menu-toggle")), chromedp.WaitVisible(sel("logout")))
	}
}

// shot keeps a picture of the page in the folder SHOP_SCREENSHOTS, if set.
func (j journey) shot(name string) {
	j.t.Helper()
	dir := os.Getenv("SHOP_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(j.ctx, chromedp.FullScreenshot(100)) // 100 gives PNG
	if err != nil {
		j.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	_ = os.MkdirAll(dir, 0o755)
	_ = os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
}

func sel(testid string) string { return `[data-testid="` + testid + `"]` }

// A new customer signs up (errors come back in place through htmx), browses
// the catalogue, loads more products, signs out; staff sign in and open a
// warehouse.
func TestBrowserJourneySignUpBrowseAndAdmin(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	j := newJourney(t, s.base)

	j.do("open sign-up", chromedp.Navigate(s.base+"/signup"), chromedp.WaitVisible(sel("signup-form")))
	// The form comes back in place, with its errors or signed up.
	submit := func(step, landed, testid, want string, fill ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		j.do(step, append(fill, chromedp.Click(sel("signup-submit")), chromedp.WaitVisible(sel(landed)))...)
		if got := j.rawText(sel(testid)); !strings.Contains(got, want) {
			t.Fatalf("%s: %s says %q, want %q in it", step, testid, got, want)
		}
	}
	submit("submit bad form", "error-password", "error-email", "email address",
		chromedp.SendKeys(sel("field-email"), "not-an-email"),
		chromedp.SendKeys(sel("field-name"), "Linnea"),
		chromedp.SendKeys(sel("field-password"), "short"),
	)
	j.shot("01-signup-errors")
	submit("fix and submit", "viewer-name", "flash", "Welcome, Linnea",
		chromedp.SetValue(sel("field-email"), "linnea@example.com"),
		chromedp.SetValue(sel("field-password"), "a much longer password"),
	)
	j.shot("02-signed-up")

	j.do("catalogue", chromedp.Navigate(s.base+"/products"), chromedp.WaitVisible(sel("catalogue-more")), chromedp.Click(sel("catalogue-more")))
	j.waitFor("second page of cards", `document.querySelectorAll('`+sel("product-card")+`').length >= 24`, 10*time.Second)
	if n := j.count(sel("product-card")); n != 24 {
		t.Fatalf("after 'show more' the page has %d cards, want 24", n)
	}
	j.shot("03-catalogue-more")

	j.do("product page", chromedp.Navigate(s.base+"/products/cf-grinder"), chromedp.WaitVisible(sel("stock-total")))
	j.shot("04-product")

	j.signOut()

	j.signInAt("/admin/warehouses", demo.StaffEmail, demo.StaffPassword, "warehouses")
	j.shot("05-admin-warehouses")
	j.do("warehouse inventory",
		chromedp.Click(`[data-testid="warehouse-row"] a[href="/admin/warehouses/gbg"]`),
		chromedp.WaitVisible(sel("inventory")),
	)
	j.do("the inventory by product id, a page at a time",
		chromedp.SetValue(`[data-testid="inventory-filter"] select`, "id"),
		chromedp.Click(`[data-testid="inventory-filter"] button`),
		chromedp.WaitVisible(sel("inventory-more")),
		chromedp.Click(sel("inventory-more")),
	)
	j.waitFor("more inventory rows", `document.querySelectorAll('`+sel("inventory-row")+`').length > 25`, 10*time.Second)
	j.shot("06-warehouse")
}

// The shop's main journey: a customer signs in, adds two products, checks
// out with a gift card and a card and sees the order; a staff member creates
// its shipment and marks it shipped; the customer sees it shipped.
func TestBrowserJourneyCheckoutAndShipment(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	if _, err := s.env.Store.CreateGiftCard(context.Background(), store.GiftCard{Code: "GIFT-JOUR-NEY1", Balance: store.Money{Amount: 1000, Currency: "EUR"}}); err != nil {
		t.Fatal(err)
	}
	// A discount changes the total the form must carry: the first "Place
	// order" has to go through with it (it once bounced as "a price changed").
	if _, err := s.env.Store.CreateDiscountCode(context.Background(), store.DiscountCode{Code: "JOURNEY10", Kind: store.DiscountPercent, Percent: 10, UsageLimit: 5, ExpiresAt: time.Now().Add(24 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	j := newJourney(t, s.base)

	j.signIn(demo.CustomerEmail, demo.CustomerPassword)
	for _, product := range []string{"cf-grinder", "bk-fjord"} {
		j.do("add "+product,
			chromedp.Navigate(s.base+"/products/"+product),
			chromedp.WaitVisible(sel("add-submit")),
			chromedp.Click(sel("add-submit")),
			chromedp.WaitVisible(sel("added")), // htmx swapped the form in place
		)
	}
	j.shot("10-product-added")
	j.do("cart", chromedp.Navigate(s.base+"/cart"), chromedp.WaitVisible(sel("cart-total")))
	if got := j.rawText(sel("cart-total")); !strings.Contains(got, "€74.80") {
		t.Fatalf("cart total %q", got)
	}
	j.shot("11-cart")
	j.do("checkout",
		chromedp.Click(sel("to-checkout")),
		chromedp.WaitVisible(sel("checkout-form")),
	)
	// A click's page shows before its deferred scripts run: on a loaded
	// machine a code typed then would change before htmx listens.
	j.htmxReady("checkout")
	j.do("address", storgatanAddress()...)
	j.do("discount code",
		chromedp.SendKeys(sel("field-discount"), "journey10"),
		chromedp.Click(sel("field-giftcard")), // leaving a code field refreshes the summary
	)
	j.waitFor("the summary takes the discount", `!!document.querySelector('[data-testid="summary-discount"]')`, time.Minute)
	j.do("gift card",
		chromedp.SendKeys(sel("field-giftcard"), "gift-jour-ney1"),
		chromedp.Click(sel("field-discount")),
	)
	j.waitFor("the summary takes the gift card", `!!document.querySelector('[data-testid="summary-giftcard"]')`, time.Minute)
	// €74.80 less 10 % (€7.48) is €67.32; the gift card pays €10.00.
	if got := j.rawText(sel("summary-card")); !strings.Contains(got, "€57.32") {
		t.Fatalf("to pay by card %q, want €57.32", got)
	}
	totals, err := chromedp.Run(j.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#expected-total')].map(e => (e.closest('form') ? 'in form ' : 'outside ') + e.value)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(totals) != 1 || totals[0] != "in form 6732" {
		t.Fatalf("expected totals on the page: %q, want one in the form with 6732", totals)
	}
	if got := j.rawText(sel("summary-giftcard")); got != "−€10.00" {
		t.Fatalf("paid by gift card %q, want −€10.00", got)
	}
	j.shot("12-checkout")
	// The order is held and the card typed on the test provider's page;
	// back on the order, it says the payment is being confirmed until the
	// provider's event places it (htmx polls, then loads the page again).
	j.do("place order", chromedp.Click(sel("place-order")), chromedp.WaitVisible(sel("test-payment-form")))
	if got := j.rawText(sel("test-payment-amount")); !strings.Contains(got, "€57.32") {
		t.Fatalf("the payment page asks %q, want €57.32", got)
	}
	j.payOnTestPage("Ada Lindqvist", "payment-confirming")
	j.shot("13-order-confirming-payment")
	s.deliverEvents(t, nil)
	j.do("placed by the provider's event", chromedp.WaitVisible(sel("invoice")))
	if got := j.rawText(sel("order-status")); got != "Placed, to be packed" {
		t.Fatalf("order status %q after its payment", got)
	}
	orderURL, err := chromedp.Run(j.ctx, chromedp.Evaluate[string](`location.pathname`))
	if err != nil {
		t.Fatal(err)
	}
	j.shot("13-order-placed")

	j.signOut()
	j.signIn(demo.StaffEmail, demo.StaffPassword)
	adminOrder := "/admin" + orderURL
	j.do("staff creates the shipment",
		chromedp.Navigate(s.base+adminOrder),
		chromedp.WaitVisible(sel("create-shipments")),
		chromedp.Click(sel("create-shipments")),
		chromedp.WaitVisible(sel("mark-shipped")),
	)
	j.shot("14-admin-order")
	j.shipWithTracking("postnord", "RR123456785SE")
	j.signOut()

	j.signIn(demo.CustomerEmail, demo.CustomerPassword)
	j.do("customer sees it shipped", chromedp.Navigate(s.base+orderURL), chromedp.WaitVisible(sel("shipment")))
	if got := j.rawText(sel("order-status")); got != "Shipped" {
		t.Fatalf("order status %q, want Shipped", got)
	}
	if got := j.rawText(sel("shipment-status")); got != "Shipped" {
		t.Fatalf("shipment status %q", got)
	}
	j.shot("15-customer-sees-shipped")
}

// A customer subscribes from a product page with payment day 31, types the
// card on the test payment page (one whose bank asks the holder, who
// approves), comes back to "we are confirming your payment" and, once the
// provider's event came, sees the first receipt and the next dates;
// changes the day, pauses, resumes and cancels at the end of the period;
// each step swaps the subscription's card in place.
func TestBrowserJourneySubscription(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	s.coffeeBox(t)
	hash, err := bcrypt.GenerateFromPassword([]byte("a long enough password"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.env.Store.CreateCustomer(context.Background(), store.NewCustomer{Email: "greta@example.com", Name: "Greta Journey", PasswordHash: string(hash)}); err != nil {
		t.Fatal(err)
	}
	today := s.env.Store.Today()
	j := newJourney(t, s.base)
	card := func(testid string) string { return `[data-testid="subscription"] ` + sel(testid) }

	j.signInAt("/login", "greta@example.com", "a long enough password", "nav-subscriptions")
	j.do("product page", chromedp.Navigate(s.base+"/products/"+boxID), chromedp.WaitVisible(sel("subscribe-form")))
	j.do("fill the subscribe form", chromedp.SetValue(sel("field-day"), "31"))
	if n := j.count(sel("field-card_number")); n != 0 {
		t.Fatal("the subscribe form asks for the card number")
	}
	j.shot("20-subscribe-form")
	j.do("subscribe", chromedp.Click(sel("subscribe-submit")), chromedp.WaitVisible(sel("test-payment-form")))
	j.do("the card on the test payment page",
		chromedp.SendKeys(sel("field-card_number"), "4000 0027 6000 3184"),
		chromedp.SendKeys(sel("field-expiry"), "12/40"),
		chromedp.SendKeys(sel("field-cvc"), "123"),
		chromedp.SendKeys(sel("field-name"), "Greta Journey"),
		chromedp.Click(sel("test-payment-submit")),
		chromedp.WaitVisible(sel("test-payment-challenge")),
	)
	j.shot("20b-the-bank-asks")
	j.do("approve", chromedp.Click(sel("challenge-approve")), chromedp.WaitVisible(sel("flash")))
	if flash := j.text(sel("flash")); !strings.Contains(flash, "confirming") {
		t.Fatalf("back from the payment page before the event: %q", flash)
	}
	s.deliverEvents(t, nil)
	j.do("refresh", chromedp.Reload(), chromedp.WaitVisible(sel("subscription")))
	// The first payment date on the 31st (the month's last day when it has
	// no 31st): the days up to it were paid prorated (#28).
	firstDays := rules.FirstPeriod(today, 31, 1, store.Money{Amount: boxPerMon, Currency: "EUR"})
	first := firstDays.Next
	flash := j.text(sel("flash"))
	if !strings.Contains(flash, "receipt R") || !strings.Contains(flash, "€12.50") || !strings.Contains(flash, first.Format("2 Jan 2006")) {
		t.Fatalf("flash after subscribing: %q", flash)
	}
	if got := j.text(card("sub-next-payment")); got != first.Format("2 Jan 2006") {
		t.Fatalf("next payment %q, want %s", got, first.Format("2 Jan 2006"))
	}
	reminder := rules.ReminderDate(first, today, store.DefaultReminderLead)
	if got := j.text(card("sub-next-reminder")); !strings.Contains(got, reminder.Format("2 Jan 2006")) {
		t.Fatalf("reminder %q, want %s", got, reminder.Format("2 Jan 2006"))
	}
	if got := j.text(card("sub-status")); got != "Active" {
		t.Fatalf("status %q", got)
	}
	if got := j.text(card("sub-day")); !strings.Contains(got, "the 31st") {
		t.Fatalf("payment day %q", got)
	}
	j.shot("21-subscribed")

	j.do("change the day",
		chromedp.Click(card("sub-change-day")+" summary"),
		chromedp.WaitVisible(card("sub-day-input")),
		chromedp.SetValue(card("sub-day-input"), "15"),
	)
	j.shot("22a-change-day-form")
	j.do("submit the day", chromedp.Click(card("sub-day-submit")))
	j.waitText("day changed", card("sub-notice"), "15th")
	if got := j.text(card("sub-day")); got != "the 15th" {
		t.Fatalf("payment day after the change %q", got)
	}
	if got := j.text(card("sub-next-payment") + " time"); got != first.Format("2 Jan 2006") {
		t.Fatalf("the paid period moved: next payment %q", got)
	}
	if got := j.text(card("sub-then")); !strings.Contains(got, rules.NextBillingDate(first, 1, 15).Format("2 Jan 2006")) {
		t.Fatalf("the payment after the next: %q", got)
	}
	j.shot("22-day-changed")

	j.do("pause", chromedp.Click(card("sub-pause")))
	j.waitText("paused", card("sub-status"), "Paused")
	if got := j.text(card("sub-notice")); !strings.Contains(got, "Paused") {
		t.Fatalf("notice after pausing %q", got)
	}
	j.shot("23-paused")

	j.do("resume", chromedp.Click(card("sub-resume")))
	j.waitText("resumed", card("sub-status"), "Active")
	resumed, err := chromedp.Run(j.ctx, chromedp.Text(card("sub-next-payment")+" time"))
	if err != nil || resumed == "" {
		t.Fatalf("no next payment after resuming: %v", err)
	}

	j.do("cancel at the end of the period",
		chromedp.Click(card("sub-cancel")+" summary"),
		chromedp.WaitVisible(card("sub-cancel-period-end")),
		chromedp.Click(card("sub-cancel-period-end")),
	)
	j.waitText("ending", card("sub-status"), "Ending on "+strings.TrimSpace(resumed))
	if got := j.text(card("sub-ends-on")); !strings.Contains(got, strings.TrimSpace(resumed)) {
		t.Fatalf("ends on %q, want %s", got, resumed)
	}
	if n := j.count(card("sub-keep")); n != 1 {
		t.Fatalf("no way to keep the subscription: %d", n)
	}
	j.shot("24-ending")

	j.openMenu()
	j.do("receipts", chromedp.Click(sel("nav-receipts")), chromedp.WaitVisible(sel("receipt-row")))
	j.shot("25-receipts")
	j.do("receipt", chromedp.Click(sel("receipt-link")), chromedp.WaitVisible(sel("receipt-number")))
	if got, want := j.text(sel("receipt-amount")), firstDays.Charge.String(); got != want {
		t.Fatalf("receipt amount %q, want the first days' %s", got, want)
	}
	j.shot("26-receipt")

	// Printed, it is a receipt: no navigation or buttons, the seller's
	// name and address on top.
	j.do("print media", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
		return err
	}))
	printed, err := chromedp.Run(j.ctx, chromedp.Evaluate[[]string](`[
		getComputedStyle(document.querySelector('body > header')).display,
		getComputedStyle(document.querySelector('body > footer')).display,
		getComputedStyle(document.querySelector('[data-testid="seller"]')).display,
		document.querySelector('[data-testid="seller"]').innerText]`))
	if err != nil {
		t.Fatal(err)
	}
	if printed[0] != "none" || printed[1] != "none" || printed[2] == "none" || !strings.Contains(printed[3], "Fika & Field") {
		t.Fatalf("printed receipt: header %s, footer %s, shop %s %q", printed[0], printed[1], printed[2], printed[3])
	}
	j.shot("27-receipt-printed")
}
