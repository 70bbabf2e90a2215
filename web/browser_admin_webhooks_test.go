package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"shop/store"
	"shop/store/demo"
	"shop/web/paths"
)

// The webhooks page, with an integration's endpoint and staff's, at 1280
// and 390 px: nothing scrolls sideways; a refused registration shows its
// field errors. With SHOP_SCREENSHOTS set, kept as webhooks-*.
func TestBrowserAdminWebhooksPage(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	name := "warehouse-sync"
	newAPIKey(t, s.env.Store, name)
	if _, err := s.env.Store.CreateWebhook(ctx, name, "https://sync.example.com/shop/hooks", []string{store.EventDropCreated, store.EventDropSoldOut, store.EventTicketClaimed}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.env.Store.CreateStaffWebhook(ctx, "https://erp.fikafield.example/incoming/shop-events/with-a-rather-long-path", store.ShopEventTypes); err != nil {
		t.Fatal(err)
	}
	j := newJourney(t, s.base)
	j.signIn(demo.StaffEmail, demo.StaffPassword)
	j.do("1280 px wide", chromedp.EmulateViewport(1280, 900))
	j.do("webhooks", chromedp.Navigate(s.base+paths.AdminWebhooks), chromedp.WaitVisible(sel("webhook-form")))
	if n := j.count(sel("webhook-row")); n != 2 {
		t.Fatalf("%d rows, want 2", n)
	}
	j.tableFits("1280 px", "webhooks")
	j.shot("webhooks-01-1280")
	j.do("register nothing", chromedp.Click(sel("webhook-submit")), chromedp.WaitVisible(sel("error-events")))
	j.shot("webhooks-02-errors-1280")
	j.do("390 px wide", chromedp.EmulateViewport(390, 844))
	j.noSidewaysScroll(paths.AdminWebhooks)
	j.do("webhooks on a phone", chromedp.Navigate(s.base+paths.AdminWebhooks), chromedp.WaitVisible(sel("webhook-form")))
	j.shot("webhooks-03-390")
}
