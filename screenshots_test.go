package main

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The README's pictures, taken by headless Chromium from the demo shop
// (the shop binary on a free port, a data directory of its own), so they
// show the shop as it is: go tool task screenshots. Not part of the suite.
var screenshotsDir = flag.String("screenshots", "", "write the README's screenshots into this folder (go tool task screenshots)")

const (
	shotWidth, shotHeight   = 1280, 900 // the viewport, not the full page: small files
	phoneWidth, phoneHeight = 390, 844
)

func TestScreenshots(t *testing.T) {
	if *screenshotsDir == "" {
		t.Skip("screenshots are taken only when asked: go tool task screenshots")
	}
	if err := os.MkdirAll(*screenshotsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	sh := startShopBinary(t, t.TempDir())
	ctx := screenshotBrowser(t)
	shot := func(ctx context.Context, name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(*screenshotsDir, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s.png: %d KB", name, len(png)/1024)
	}
	do := func(ctx context.Context, step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	testid := func(id string) string { return `[data-testid="` + id + `"]` }

	// A visitor browses and fills a cart; the customer signs in (the cart
	// comes along) and opens the checkout.
	do(ctx, "storefront", chromedp.EmulateViewport(shotWidth, shotHeight), chromedp.Navigate(sh.base+"/"), chromedp.WaitVisible("main"))
	shot(ctx, "storefront")
	for _, product := range []string{"cf-gbg-dark", "bk-fjord"} {
		do(ctx, "add "+product,
			chromedp.Navigate(sh.base+"/products/"+product),
			chromedp.WaitVisible(testid("add-submit")),
			chromedp.Click(testid("add-submit")),
			chromedp.WaitVisible(testid("added")),
		)
	}
	do(ctx, "cart", chromedp.Navigate(sh.base+"/cart"), chromedp.WaitVisible(testid("cart-total")))
	shot(ctx, "cart")
	do(ctx, "sign in",
		chromedp.Navigate(sh.base+"/login?next=/checkout"),
		chromedp.WaitVisible(testid("login-form")),
		chromedp.SendKeys(testid("field-email"), "ada@fikafield.example"),
		chromedp.SendKeys(testid("field-password"), "customer-demo-password"),
		chromedp.Click(testid("login-submit")),
		chromedp.WaitVisible(testid("checkout-form")),
	)
	shot(ctx, "checkout")
	do(ctx, "phone", chromedp.EmulateViewport(phoneWidth, phoneHeight, chromedp.EmulateMobile), chromedp.Navigate(sh.base+"/cart"), chromedp.WaitVisible(testid("cart-total")))
	shot(ctx, "phone")

	// Ada's subscriptions in each language, chosen by the footer's switcher
	// (a link): the README shows one picture per language.
	for _, l := range []string{"en", "ko", "id"} {
		do(ctx, "subscriptions in "+l,
			chromedp.EmulateViewport(shotWidth, shotHeight),
			chromedp.Navigate(sh.base+"/subscriptions"),
			chromedp.WaitVisible(testid("lang-"+l)),
			chromedp.Click(testid("lang-"+l)),
			chromedp.WaitVisible(`html[lang="`+l+`"] main`),
		)
		shot(ctx, "language-"+l)
	}

	// The header as staff see it, wide: for a look, not for the README.
	staff, cancel := chromedp.NewContext(ctx, chromedp.WithNewBrowserContext())
	defer cancel()
	do(staff, "staff sign in",
		chromedp.EmulateViewport(shotWidth, shotHeight),
		chromedp.Navigate(sh.base+"/login"),
		chromedp.WaitVisible(testid("login-form")),
		chromedp.SendKeys(testid("field-email"), "staff@fikafield.example"),
		chromedp.SendKeys(testid("field-password"), "staff-demo-password"),
		chromedp.Click(testid("login-submit")),
		chromedp.WaitVisible(testid("viewer-name")),
		chromedp.Navigate(sh.base+"/products"),
		chromedp.WaitVisible("main"),
	)
	dir := filepath.Join(os.TempDir(), "shop-header")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	header := func(ctx context.Context, name string, w int64, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		do(ctx, name, append([]chromedp.Action[chromedp.Void]{chromedp.EmulateViewport(w, 400), chromedp.Sleep(200 * time.Millisecond)}, actions...)...)
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, name+"-"+strconv.FormatInt(w, 10)+".png")
		if err := os.WriteFile(file, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("the header: %s", file)
	}
	for _, w := range []int64{1280, 1440, 1600} {
		header(staff, "staff", w)
	}
	header(staff, "staff-menu", 1280, chromedp.Click(testid("nav-menu-toggle")), chromedp.WaitVisible(testid("nav-admin")))
	header(ctx, "customer", 1280, chromedp.Navigate(sh.base+"/products"), chromedp.WaitVisible("main"))
}

// screenshotBrowser starts headless Chromium (Debian's) with no background
// traffic: this machine's network is closed.
func screenshotBrowser(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium is not installed (Debian: apt-get install chromium)")
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.WindowSize(shotWidth, shotHeight),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
	)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return ctx
}
