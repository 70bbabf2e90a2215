package web_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"shop/store"
	"shop/store/demo"
	"shop/store/storetest/paytest"
	"shop/web/paths"
)

// bankDown is a card refunder whose bank does not answer: every refund
// fails, as a network's would, and waits for a retry.
func bankDown() store.Refunder {
	down := &paytest.Flaky{}
	down.Fail(errors.New("bank: connection reset"))
	return down
}

// A card refund the bank did not take shows on the console's home and on
// its order with its tries; "Retry now" (a POST with the CSRF token, 303
// back to the order) finishes it once the bank is back, and it leaves the
// list. Retries pressed at once refund the card once.
func TestAdminSeesAndRetriesPendingCardRefunds(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t)
	b := s.staff(t)
	m := newOrderMaker(t, s.env.Store)
	ada := s.customerID(t, demo.CustomerEmail)
	o := m.place(s.env.Store, ada, line("kt-mug", 2)) // €37.80 by card
	ctx := context.Background()
	_, err := s.env.Store.RefundOrder(ctx, store.OrderRefundRequest{OrderID: o.ID, Key: "rf-down", Reason: "Arrived chipped",
		By: store.Customer{ID: "staff", Name: "Sam", Role: store.RoleStaff}, Amount: store.Money{Amount: 500, Currency: "EUR"}}, bankDown())
	if !errors.Is(err, store.ErrRefundCard) {
		t.Fatalf("refund while the bank is down: %v", err)
	}

	home := b.get("/admin")
	if home.testid("dashboard-card-refunds").Length() != 1 {
		t.Fatal("the console's home has no card refunds block")
	}
	block := b.get(paths.AdminDashboardBlock("card-refunds"))
	wantStatus(t, "card refunds block", block, http.StatusOK)
	row := block.testid("card-refund-row")
	if row.Length() != 1 {
		t.Fatalf("%d card refunds listed, want 1", row.Length())
	}
	if got, _ := row.Attr("data-order"); got != o.ID {
		t.Fatalf("the listed refund is of order %q", got)
	}
	wantText(t, "the order, by its number", row.Find(`[data-testid="card-refund-order"]`), "Order "+o.Label())
	wantText(t, "tries", row.Find(`[data-testid="card-refund-tries"]`), "Tries: 1 of 6")
	wantText(t, "what the try met", row.Find(`[data-testid="card-refund-tries"]`), "the bank did not answer")

	orderPage := b.get(paths.AdminOrder(o.ID))
	wantStatus(t, "order page", orderPage, http.StatusOK)
	wantText(t, "refund status", orderPage.testid("order-refund-status"), "Card refund pending")
	form := orderPage.testid("card-refund-retry-form")
	if action, _ := form.Attr("action"); action != paths.AdminOrderRefundRetry(o.ID, "rf-down") {
		t.Fatalf("retry form posts to %q", action)
	}

	// Without the CSRF token: refused, nothing tried.
	if p := b.post(paths.AdminOrderRefundRetry(o.ID, "rf-down"), url.Values{"_csrf": {"forged"}}); p.status != http.StatusForbidden {
		t.Fatalf("a retry without the CSRF token: %d", p.status)
	}
	if rf, err := s.env.Store.OrderRefund(ctx, o.ID, "rf-down"); err != nil || rf.Status != store.RefundCardPending {
		t.Fatalf("after a forged retry: %+v %v", rf, err)
	}
	// An unknown refund is a 404.
	b.get(paths.AdminOrder(o.ID))
	wantStatus(t, "unknown refund", b.post(paths.AdminOrderRefundRetry(o.ID, "nope"), url.Values{}), http.StatusNotFound)

	// Retry now, pressed several times at once (the bank is back: the
	// app's own provider works).
	b.get(paths.AdminOrder(o.ID))
	before, _ := paytest.ProviderRefunds(t, s.env) // the demo's own refunds among them
	var wg sync.WaitGroup
	statuses := make([]int, 4)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = b.post(paths.AdminOrderRefundRetry(o.ID, "rf-down"), url.Values{}).status
		}()
	}
	wg.Wait()
	for i, st := range statuses {
		if st != http.StatusSeeOther {
			t.Fatalf("retry %d: %d, want 303", i, st)
		}
	}
	after := b.get(paths.AdminOrder(o.ID))
	if msg := after.testid("flash").Text(); !strings.Contains(msg, "went through") {
		t.Fatalf("flash after the retry: %q", msg)
	}
	wantText(t, "refund status after retry", after.testid("order-refund-status"), "Refunded")
	if after.testid("card-refund-retry-form").Length() != 0 {
		t.Fatal("a done refund still offers to retry")
	}
	if b.get(paths.AdminDashboardBlock("card-refunds")).testid("card-refunds-none").Length() != 1 {
		t.Fatal("a finished refund is still listed")
	}
	if refunds, _ := paytest.ProviderRefunds(t, s.env); refunds != before+1 {
		t.Fatalf("the provider made %d refunds", refunds-before)
	}
	d, err := s.env.Store.OrderDetails(ctx, o.ID)
	if err != nil || d.Order.Refunded.Amount != 500 || d.Order.RefundedCard.Amount != 500 {
		t.Fatalf("the order's sums: %+v %v", d.Order, err)
	}
}
