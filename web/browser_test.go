package web_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"golang.org/x/crypto/bcrypt"

	"shop/store"
	"shop/store/demo"
)

// newChromium starts headless Chromium (Debian's) for a journey. Set
// SHOP_SCREENSHOTS to a folder to keep a picture of each step.
func newChromium(t *testing.T) (context.Context, func(name string)) {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		// A missing browser fails the journey rather than skipping it
		// unseen; leaving the journeys out is a choice made out loud.
		if os.Getenv("SHOP_NO_BROWSER") != "" {
			t.Skip("SHOP_NO_BROWSER is set: the browser journeys do not run")
		}
		t.Fatal("chromium is not installed (Debian: apt-get install chromium; .ci/run installs it), or set SHOP_NO_BROWSER=1 to leave the browser journeys out")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.WindowSize(1280, 900),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	dir := os.Getenv("SHOP_SCREENSHOTS")
	shot := func(name string) {
		if dir == "" {
			return
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100 gives PNG
		if err != nil {
			t.Errorf("screenshot %s: %v", name, err)
			return
		}
		_ = os.MkdirAll(dir, 0o755)
		_ = os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
	}
	return ctx, shot
}

func sel(testid string) string { return `[data-testid="` + testid + `"]` }

// A new customer signs up (errors come back in place through htmx), browses
// the catalogue, loads more products, signs out; staff sign in and open a
// warehouse.
func TestBrowserJourneySignUpBrowseAndAdmin(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx, shot := newChromium(t)

	do := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		start := time.Now()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		t.Logf("%s: %v", step, time.Since(start).Round(time.Millisecond))
	}
	text := func(testid string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(sel(testid)))
		if err != nil {
			t.Fatalf("text of %s: %v", testid, err)
		}
		return s
	}
	count := func(testid string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('`+sel(testid)+`').length`))
		if err != nil {
			t.Fatalf("count %s: %v", testid, err)
		}
		return n
	}
	waitFor := func(step, js string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}

	do("open sign-up", chromedp.Navigate(s.base+"/signup"), chromedp.WaitVisible(sel("signup-form")))
	do("submit bad form",
		chromedp.SendKeys(sel("field-email"), "not-an-email"),
		chromedp.SendKeys(sel("field-name"), "Linnea"),
		chromedp.SendKeys(sel("field-password"), "short"),
		chromedp.Click(sel("signup-submit")),
		chromedp.WaitVisible(sel("error-password")),
	)
	if got := text("error-email"); !strings.Contains(got, "email address") {
		t.Fatalf("email error: %q", got)
	}
	shot("01-signup-errors")
	do("fix and submit",
		chromedp.SetValue(sel("field-email"), "linnea@example.com"),
		chromedp.SetValue(sel("field-password"), "a much longer password"),
		chromedp.Click(sel("signup-submit")),
		chromedp.WaitVisible(sel("viewer-name")),
	)
	if got := text("flash"); !strings.Contains(got, "Welcome, Linnea") {
		t.Fatalf("flash after sign-up: %q", got)
	}
	shot("02-signed-up")

	do("catalogue", chromedp.Navigate(s.base+"/products"), chromedp.WaitVisible(sel("catalogue-more")), chromedp.Click(sel("catalogue-more")))
	waitFor("second page of cards", `document.querySelectorAll('`+sel("product-card")+`').length >= 24`)
	if n := count("product-card"); n != 24 {
		t.Fatalf("after 'show more' the page has %d cards, want 24", n)
	}
	shot("03-catalogue-more")

	do("product page", chromedp.Navigate(s.base+"/products/cf-grinder"), chromedp.WaitVisible(sel("stock-total")))
	shot("04-product")

	do("sign out", chromedp.Click(sel("logout")), chromedp.WaitVisible(sel("nav-login")))

	do("staff sign in",
		chromedp.Navigate(s.base+"/admin/warehouses"),
		chromedp.WaitVisible(sel("login-form")),
		chromedp.SendKeys(sel("field-email"), demo.StaffEmail),
		chromedp.SendKeys(sel("field-password"), demo.StaffPassword),
		chromedp.Click(sel("login-submit")),
		chromedp.WaitVisible(sel("warehouses")),
	)
	shot("05-admin-warehouses")
	do("warehouse inventory",
		chromedp.Click(`[data-testid="warehouse-row"] a[href="/admin/warehouses/gbg"]`),
		chromedp.WaitVisible(sel("inventory")),
		chromedp.Click(sel("inventory-more")),
	)
	waitFor("more inventory rows", `document.querySelectorAll('`+sel("inventory-row")+`').length > 25`)
	shot("06-warehouse")
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
	ctx, shot := newChromium(t)
	do := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	text := func(testid string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(sel(testid)))
		if err != nil {
			t.Fatalf("text of %s: %v", testid, err)
		}
		return s
	}
	signIn := func(email, password string) {
		t.Helper()
		do("sign in as "+email,
			chromedp.Navigate(s.base+"/login"),
			chromedp.WaitVisible(sel("login-form")),
			chromedp.SendKeys(sel("field-email"), email),
			chromedp.SendKeys(sel("field-password"), password),
			chromedp.Click(sel("login-submit")),
			chromedp.WaitVisible(sel("viewer-name")),
		)
	}

	signIn(demo.CustomerEmail, demo.CustomerPassword)
	for _, product := range []string{"cf-grinder", "bk-fjord"} {
		do("add "+product,
			chromedp.Navigate(s.base+"/products/"+product),
			chromedp.WaitVisible(sel("add-submit")),
			chromedp.Click(sel("add-submit")),
			chromedp.WaitVisible(sel("added")), // htmx swapped the form in place
		)
	}
	shot("10-product-added")
	do("cart", chromedp.Navigate(s.base+"/cart"), chromedp.WaitVisible(sel("cart-total")))
	if got := text("cart-total"); !strings.Contains(got, "€74.80") {
		t.Fatalf("cart total %q", got)
	}
	shot("11-cart")
	do("checkout",
		chromedp.Click(sel("to-checkout")),
		chromedp.WaitVisible(sel("checkout-form")),
		chromedp.SendKeys(sel("field-street"), "Storgatan"),
		chromedp.SendKeys(sel("field-number"), "12"),
		chromedp.SendKeys(sel("field-zip"), "41101"),
		chromedp.SendKeys(sel("field-city"), "Göteborg"),
		chromedp.SendKeys(sel("field-country"), "Sweden"),
		chromedp.SendKeys(sel("field-discount"), "journey10"),
		chromedp.Click(sel("field-giftcard")), // leaving a code field refreshes the summary
		chromedp.WaitVisible(sel("summary-discount")),
		chromedp.SendKeys(sel("field-giftcard"), "gift-jour-ney1"),
		chromedp.Click(sel("field-card_number")),
		chromedp.WaitVisible(sel("summary-giftcard")),
		chromedp.SendKeys(sel("field-card_number"), "4242 4242 4242 4242"),
		chromedp.SendKeys(sel("field-expiry"), "12/30"),
		chromedp.SendKeys(sel("field-cvc"), "123"),
	)
	// €74.80 less 10 % (€7.48) is €67.32; the gift card pays €10.00.
	if got := text("summary-card"); !strings.Contains(got, "€57.32") {
		t.Fatalf("to pay by card %q, want €57.32", got)
	}
	totals, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#expected-total')].map(e => (e.closest('form') ? 'in form ' : 'outside ') + e.value)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(totals) != 1 || totals[0] != "in form 6732" {
		t.Fatalf("expected totals on the page: %q, want one in the form with 6732", totals)
	}
	if got := text("summary-giftcard"); got != "−€10.00" {
		t.Fatalf("paid by gift card %q, want −€10.00", got)
	}
	shot("12-checkout")
	do("place order", chromedp.Click(sel("place-order")), chromedp.WaitVisible(sel("order-status")))
	if got := text("flash"); !strings.Contains(got, "order is placed") {
		t.Fatalf("flash %q", got)
	}
	orderURL, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`))
	if err != nil {
		t.Fatal(err)
	}
	shot("13-order-placed")

	do("sign out", chromedp.Click(sel("logout")), chromedp.WaitVisible(sel("nav-login")))
	signIn(demo.StaffEmail, demo.StaffPassword)
	adminOrder := "/admin" + orderURL
	do("staff creates the shipment",
		chromedp.Navigate(s.base+adminOrder),
		chromedp.WaitVisible(sel("create-shipments")),
		chromedp.Click(sel("create-shipments")),
		chromedp.WaitVisible(sel("mark-shipped")),
	)
	shot("14-admin-order")
	do("staff marks it shipped",
		chromedp.Click(sel("mark-shipped")),
		chromedp.WaitVisible(sel("mark-delivered")),
	)
	do("sign out", chromedp.Click(sel("logout")), chromedp.WaitVisible(sel("nav-login")))

	signIn(demo.CustomerEmail, demo.CustomerPassword)
	do("customer sees it shipped", chromedp.Navigate(s.base+orderURL), chromedp.WaitVisible(sel("shipment")))
	if got := text("order-status"); got != "Shipped" {
		t.Fatalf("order status %q, want Shipped", got)
	}
	if got := text("shipment-status"); got != "Shipped" {
		t.Fatalf("shipment status %q", got)
	}
	shot("15-customer-sees-shipped")
}

// A customer subscribes from a product page with payment day 31, sees the
// first receipt and the next dates, changes the day, pauses, resumes and
// cancels at the end of the period; each step swaps the subscription's card
// in place.
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
	ctx, shot := newChromium(t)
	do := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	text := func(what string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(what))
		if err != nil {
			t.Fatalf("text of %s: %v", what, err)
		}
		return strings.Join(strings.Fields(s), " ")
	}
	waitText := func(step, what, want string) {
		t.Helper()
		js := `(() => { const e = document.querySelector(` + "`" + what + "`" + `); return !!e && e.innerText.includes(` + "`" + want + "`" + `); })()`
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			t.Fatalf("%s: %s never said %q (it says %q)", step, what, want, text(what))
		}
	}
	card := func(testid string) string { return `[data-testid="subscription"] ` + sel(testid) }

	do("sign in",
		chromedp.Navigate(s.base+"/login"),
		chromedp.WaitVisible(sel("login-form")),
		chromedp.SendKeys(sel("field-email"), "greta@example.com"),
		chromedp.SendKeys(sel("field-password"), "a long enough password"),
		chromedp.Click(sel("login-submit")),
		chromedp.WaitVisible(sel("nav-subscriptions")),
	)
	do("product page", chromedp.Navigate(s.base+"/products/"+boxID), chromedp.WaitVisible(sel("subscribe-form")))
	do("fill the subscribe form",
		chromedp.SetValue(sel("field-day"), "31"),
		chromedp.SendKeys(sel("field-card_number"), "4242 4242 4242 4242"),
		chromedp.SendKeys(sel("field-expiry"), "12/30"),
		chromedp.SendKeys(sel("field-cvc"), "123"),
	)
	shot("20-subscribe-form")
	do("subscribe", chromedp.Click(sel("subscribe-submit")), chromedp.WaitVisible(sel("subscription")))
	first := store.NextBillingDate(today, 1, 31)
	flash := text(sel("flash"))
	if !strings.Contains(flash, "receipt R") || !strings.Contains(flash, "€12.50") || !strings.Contains(flash, first.Format("2 Jan 2006")) {
		t.Fatalf("flash after subscribing: %q", flash)
	}
	if got := text(card("sub-next-payment")); got != first.Format("2 Jan 2006") {
		t.Fatalf("next payment %q, want %s", got, first.Format("2 Jan 2006"))
	}
	reminder := store.ReminderDate(first, today, store.DefaultReminderLead)
	if got := text(card("sub-next-reminder")); !strings.Contains(got, reminder.Format("2 Jan 2006")) {
		t.Fatalf("reminder %q, want %s", got, reminder.Format("2 Jan 2006"))
	}
	if got := text(card("sub-status")); got != "Active" {
		t.Fatalf("status %q", got)
	}
	if got := text(card("sub-day")); !strings.Contains(got, "the 31st") {
		t.Fatalf("payment day %q", got)
	}
	shot("21-subscribed")

	do("change the day",
		chromedp.Click(card("sub-change-day")+" summary"),
		chromedp.WaitVisible(card("sub-day-input")),
		chromedp.SetValue(card("sub-day-input"), "15"),
	)
	shot("22a-change-day-form")
	do("submit the day", chromedp.Click(card("sub-day-submit")))
	waitText("day changed", card("sub-notice"), "15th")
	if got := text(card("sub-day")); got != "the 15th" {
		t.Fatalf("payment day after the change %q", got)
	}
	if got := text(card("sub-next-payment") + " time"); got != first.Format("2 Jan 2006") {
		t.Fatalf("the paid period moved: next payment %q", got)
	}
	if got := text(card("sub-then")); !strings.Contains(got, store.NextBillingDate(first, 1, 15).Format("2 Jan 2006")) {
		t.Fatalf("the payment after the next: %q", got)
	}
	shot("22-day-changed")

	do("pause", chromedp.Click(card("sub-pause")))
	waitText("paused", card("sub-status"), "Paused")
	if got := text(card("sub-notice")); !strings.Contains(got, "Paused") {
		t.Fatalf("notice after pausing %q", got)
	}
	shot("23-paused")

	do("resume", chromedp.Click(card("sub-resume")))
	waitText("resumed", card("sub-status"), "Active")
	resumed, err := chromedp.Run(ctx, chromedp.Text(card("sub-next-payment")+" time"))
	if err != nil || resumed == "" {
		t.Fatalf("no next payment after resuming: %v", err)
	}

	do("cancel at the end of the period",
		chromedp.Click(card("sub-cancel")+" summary"),
		chromedp.WaitVisible(card("sub-cancel-period-end")),
		chromedp.Click(card("sub-cancel-period-end")),
	)
	waitText("ending", card("sub-status"), "Ending on "+strings.TrimSpace(resumed))
	if got := text(card("sub-ends-on")); !strings.Contains(got, strings.TrimSpace(resumed)) {
		t.Fatalf("ends on %q, want %s", got, resumed)
	}
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('`+card("sub-keep")+`').length`)); err != nil || n != 1 {
		t.Fatalf("no way to keep the subscription: %d, %v", n, err)
	}
	shot("24-ending")

	do("receipts", chromedp.Click(sel("nav-receipts")), chromedp.WaitVisible(sel("receipt-row")))
	shot("25-receipts")
	do("receipt", chromedp.Click(sel("receipt-link")), chromedp.WaitVisible(sel("receipt-number")))
	if got := text(sel("receipt-amount")); got != "€12.50" {
		t.Fatalf("receipt amount %q", got)
	}
	shot("26-receipt")

	// Printed, it is a receipt: no navigation or buttons, the shop's name
	// and address on top.
	do("print media", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
		return err
	}))
	printed, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[
		getComputedStyle(document.querySelector('body > header')).display,
		getComputedStyle(document.querySelector('body > footer')).display,
		getComputedStyle(document.querySelector('[data-testid="receipt-shop"]')).display,
		document.querySelector('[data-testid="receipt-shop"]').innerText]`))
	if err != nil {
		t.Fatal(err)
	}
	if printed[0] != "none" || printed[1] != "none" || printed[2] == "none" || !strings.Contains(printed[3], "Fika & Field") {
		t.Fatalf("printed receipt: header %s, footer %s, shop %s %q", printed[0], printed[1], printed[2], printed[3])
	}
	shot("27-receipt-printed")
}
