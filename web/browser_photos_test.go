package web_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"shop/store/demo"
)

// Staff upload a photo in Chromium; the product page shows it from its
// srcset, in the space its width and height kept before it loaded.
func TestBrowserJourneyProductPhoto(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	j := newJourney(t, s.base)
	file := filepath.Join(t.TempDir(), "roast.jpg")
	if err := os.WriteFile(file, testJPEG(t, 1300, 650), 0o600); err != nil {
		t.Fatal(err)
	}

	j.signInAt("/admin/products/cf-light", demo.StaffEmail, demo.StaffPassword, "photo-form")
	j.do("upload a photo",
		chromedp.SetUploadFiles(sel("field-photo"), []string{file}),
		chromedp.Click(sel("photo-submit")),
		chromedp.WaitVisible(sel("flash")),
	)
	j.waitText("the photo is saved", sel("flash"), "Saved the photo (1300 × 650 pixels)")
	j.shot("photo-admin")

	j.do("product page", chromedp.Navigate(s.base+"/products/cf-light"), chromedp.WaitVisible(sel("product-picture")))
	loaded := `(() => { const i = document.querySelector('` + sel("product-picture") + `'); return i.complete && i.naturalWidth > 0 && i.currentSrc.includes('/media/photos/'); })()`
	j.waitFor("the photo loads from its srcset", loaded, 10*time.Second)
	// The box has the photo's shape (2:1) as drawn, loaded or not.
	ratio, err := chromedp.Run(j.ctx, chromedp.Evaluate[float64](`(() => { const r = document.querySelector('`+sel("product-picture")+`').getBoundingClientRect(); return r.width / r.height; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if ratio < 1.98 || ratio > 2.02 {
		t.Fatalf("the picture is drawn at %s:1, want 2:1", strconv.FormatFloat(ratio, 'f', 3, 64))
	}
	j.shot("photo-product")

	// The catalogue's cards: drawn pictures in a 4:3 box each.
	j.do("catalogue", chromedp.Navigate(s.base+"/products?category=coffee"), chromedp.WaitVisible(sel("product-card")))
	j.waitFor("the first card's picture loads", `(() => { const i = document.querySelector('`+sel("product-card")+` img'); return i.complete && i.naturalWidth > 0; })()`, 10*time.Second)
	j.shot("photo-catalogue")
}
