package web_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"shop/store"
	"shop/store/demo"
	"shop/store/storetest"
)

// The billing dashboard shows the subscriptions' kept totals, which the
// demo's loading counted and each change keeps: the figures now, a year of
// months as charts and as a table, at one Query per list shard and no
// subscription read.
func TestAdminBillingDashboardShowsTheKeptTotals(t *testing.T) {
	t.Parallel()
	var counter storetest.Counter
	s := newShop(t, withStore(&counter), withoutBackgroundReads)
	b := s.staff(t)
	ctx := context.Background()

	// What a count of the demo's subscriptions says.
	count := func() map[store.SubscriptionStatus]int {
		n := map[store.SubscriptionStatus]int{}
		for _, st := range store.SubscriptionStatuses {
			p, err := s.env.Store.SubscriptionsByStatus(ctx, st, 100, "")
			if err != nil {
				t.Fatal(err)
			}
			n[st] = len(p.Items)
		}
		return n
	}
	want := count()
	if want[store.SubscriptionActive] == 0 || want[store.SubscriptionPaused] == 0 || want[store.SubscriptionPastDue] == 0 {
		t.Fatalf("the demo has %v subscriptions", want)
	}

	home := b.get("/admin")
	if href := attr(home.testid("nav-billing"), "href"); href != "/admin/billing" {
		t.Fatalf("the console's navigation links billing at %q", href)
	}
	b.get("/admin/billing") // once read, the table's shard count is known
	counter.Reset()
	p := b.get("/admin/billing")
	wantStatus(t, "billing", p, http.StatusOK)
	// The staff check reads the session and the staff member's record.
	if n := counter.Total() - 2; n != store.DefaultListShards || counter.Ops()["Query"] != store.DefaultListShards {
		t.Errorf("the billing page made %d requests %v, want %d queries", n, counter.Ops(), store.DefaultListShards)
	}
	wantText(t, "active", p.testid("billing-active"), strconv.Itoa(want[store.SubscriptionActive]))
	wantText(t, "paused", p.testid("billing-paused"), strconv.Itoa(want[store.SubscriptionPaused]))
	wantText(t, "past due", p.testid("billing-past-due"), strconv.Itoa(want[store.SubscriptionPastDue]))
	totals, err := s.env.Store.BillingTotals(ctx, s.env.Store.Now())
	if err != nil {
		t.Fatal(err)
	}
	if totals.MRR[0].Amount <= 0 {
		t.Fatalf("MRR %v", totals.MRR)
	}
	wantText(t, "MRR", p.testid("billing-mrr"), totals.MRR[0].String())
	if n := p.testid("billing-month").Length(); n != store.BillingMonths {
		t.Errorf("%d months in the table, want %d", n, store.BillingMonths)
	}
	for _, chart := range []string{"billing-chart-changes", "billing-chart-dunned", "billing-chart-recovered"} {
		if p.testid(chart).Length() != 1 {
			t.Errorf("no chart %s", chart)
		}
	}
	if n := p.testid("billing-chart-changes").Find(`[data-testid="billing-bar"]`).Length(); n != 2*store.BillingMonths {
		t.Errorf("%d bars of new and cancelled, want %d", n, 2*store.BillingMonths)
	}
	// A chart of zeros says so in words; one with bars does not. The
	// demo has new subscriptions and no cancel by dunning.
	if p.testid("billing-chart-changes").Closest("figure").Find(`[data-testid="billing-chart-empty"]`).Length() != 0 {
		t.Error("the chart of new subscriptions says it has none")
	}
	wantText(t, "empty dunning chart", p.testid("billing-chart-dunned").Closest("figure").Find(`[data-testid="billing-chart-empty"]`), "None in these 12 months.")

	// Ada pauses an active subscription and cancels another: the page
	// follows, and this month counts the cancel.
	ada := s.customerID(t, demo.CustomerEmail)
	subs, err := s.env.Store.Subscriptions(ctx, ada)
	if err != nil {
		t.Fatal(err)
	}
	var changed int
	for _, sub := range subs {
		if sub.Status != store.SubscriptionActive || changed == 2 {
			continue
		}
		change := store.Pause()
		if changed == 1 {
			change = store.CancelNow()
		}
		if _, err := s.env.Store.ChangeSubscription(ctx, ada, sub.ID, sub.Version, change); err != nil {
			t.Fatal(err)
		}
		changed++
	}
	if changed != 2 {
		t.Fatalf("Ada has %d active subscriptions, want 2", changed)
	}
	month := s.env.Store.MonthOfBooks(s.env.Store.Now()).String()
	before := 0
	for _, m := range totals.Months {
		if m.Month.String() == month {
			before = m.Cancelled
		}
	}
	p = b.get("/admin/billing")
	wantText(t, "active after", p.testid("billing-active"), strconv.Itoa(want[store.SubscriptionActive]-2))
	wantText(t, "paused after", p.testid("billing-paused"), strconv.Itoa(want[store.SubscriptionPaused]+1))
	row := p.doc.Find(`[data-testid="billing-month"][data-month="` + month + `"]`)
	wantText(t, "cancelled this month", row.Find(`[data-testid="billing-month-cancelled"]`), strconv.Itoa(before+1))
	if now := count(); now[store.SubscriptionActive] != want[store.SubscriptionActive]-2 {
		t.Fatalf("a count says %v", now)
	}

	// In Korean, and staff only.
	wantText(t, "in Korean", b.get("/admin/billing?lang=ko").testid("billing-figures"), "월간 반복 매출")
	wantText(t, "in Indonesian", b.get("/admin/billing?lang=id").testid("billing-figures"), "Pendapatan berulang bulanan")
	customer := s.browser(t)
	customer.signIn(demo.CustomerEmail, demo.CustomerPassword)
	wantStatus(t, "customer at /admin/billing", customer.get("/admin/billing"), http.StatusForbidden)
	visitor := s.browser(t).get("/admin/billing")
	if visitor.status != http.StatusSeeOther || !strings.HasPrefix(visitor.header.Get("Location"), "/login") {
		t.Fatalf("visitor at /admin/billing: %d to %q, want a 303 to sign in", visitor.status, visitor.header.Get("Location"))
	}
}
