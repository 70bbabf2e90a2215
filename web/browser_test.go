package web_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"shop/store/demo"
)

// newChromium starts headless Chromium (Debian's) for a journey. Set
// SHOP_SCREENSHOTS to a folder to keep a picture of each step.
func newChromium(t *testing.T) (context.Context, func(name string)) {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed; .ci/run installs it")
		}
		t.Skip("chromium not installed")
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
