package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/web/paths"
)

// providerPayment is one payment on the test provider's ledger.
type providerPayment struct {
	Key, Status string
	Amount      int64
}

// providerPayments are the test provider's succeeded payments, by key.
func (s *shop) providerPayments(t *testing.T) map[string]providerPayment {
	t.Helper()
	out := map[string]providerPayment{}
	for _, it := range s.env.Items(t) {
		pk, _ := it["PK"].(*types.AttributeValueMemberS)
		if pk == nil || !strings.HasPrefix(pk.Value, "gwintent#") {
			continue
		}
		var p providerPayment
		if err := attributevalue.UnmarshalMap(it, &p); err != nil {
			t.Fatal(err)
		}
		if p.Status == "succeeded" {
			out[pk.Value] = p
		}
	}
	return out
}

// swapNowQuote is what a swap now to a whole month of perMonth × qty comes
// to today, by the store's rule, from the customer's receipt covering it.
func (s *shop) swapNowQuote(t *testing.T, customerID string, perMonth int64, qty int) store.SwapQuote {
	t.Helper()
	r := s.receiptOf(t, customerID)
	return store.QuoteSwapNow(r.Amount, eur(perMonth*int64(qty)), r.PeriodStart, r.PeriodEnd, s.env.Store.Today())
}

// A customer swaps the product or the quantity now: the preview (plain and
// htmx) shows the credit of the unused days, the new line's share and what
// is charged or refunded; bad input is refused at its field with nothing
// charged; a stale tab gets 409 before any charge; a charge is taken from
// the kept card once, with its receipt "Change to <line>"; a second swap
// now in the period, a refund now, a difference below the smallest charge
// and a period nobody paid (free first days) each do what they say.
func TestSwapProductOrQuantityNow(t *testing.T) {
	t.Parallel()
	s, b, ada, sub := subscribedShop(t, "")
	ctx := context.Background()
	for _, p := range []store.Product{
		{ID: "sub-green-tea", Name: "Green Tea Tin", Description: "Sencha.", Category: "coffee", Price: eur(990), Subscribable: true, MonthlyPrice: eur(1450)},
		{ID: "sub-small-tea", Name: "Small Tea", Description: "A little.", Category: "coffee", Price: eur(490), Subscribable: true, MonthlyPrice: eur(500)},
		{ID: "sub-box-plus", Name: "Box Plus", Description: "A bit more.", Category: "coffee", Price: eur(990), Subscribable: true, MonthlyPrice: eur(boxPerMon + 40)},
	} {
		if _, err := s.env.Store.CreateProduct(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	htmx := []string{"HX-Request", "true"}
	now := func(product, qty string) url.Values {
		return url.Values{"product": {product}, "quantity": {qty}, "when": {"now"}}
	}
	paid := len(s.providerPayments(t))

	for _, bad := range []struct{ name, product, qty, field, want string }{
		{"quantity 0", "sub-green-tea", "0", "quantity", "from 1 to 10"},
		{"quantity 11", "sub-green-tea", "11", "quantity", "from 1 to 10"},
		{"not subscribable", "one-off-mug", "1", "product", "cannot be subscribed to"},
		{"the same", boxID, "1", "", "Nothing to change"},
	} {
		for _, headers := range [][]string{htmx, nil} {
			p := s.act(t, b, sub, "swap", now(bad.product, bad.qty), headers...)
			wantStatus(t, bad.name, p, http.StatusUnprocessableEntity)
			if bad.field == "" {
				wantText(t, bad.name, subCard(p, sub.ID).Find(sel("sub-error")), bad.want)
				continue
			}
			wantText(t, bad.name, subCard(p, sub.ID).Find(sel("sub-error-"+bad.field)), bad.want)
		}
	}

	// The preview: what moves today, and from when.
	q := s.swapNowQuote(t, ada, 1450, 1)
	if q.Charge.Amount <= 0 {
		t.Fatalf("quote %+v: want a charge", q)
	}
	p := s.act(t, b, sub, "swap", url.Values{"product": {"sub-green-tea"}, "quantity": {"1"}, "when": {"now"}, "preview": {"1"}})
	wantStatus(t, "plain preview", p, http.StatusOK)
	card := subCard(p, sub.ID)
	wantText(t, "credit", card.Find(sel("sub-swap-credit")), "Credit for the "+itoa(q.UnusedDays)+" unused days of "+itoa(q.Days))
	wantText(t, "credit", card.Find(sel("sub-swap-credit")), q.Credit.String())
	wantText(t, "share", card.Find(sel("sub-swap-share")), "Green Tea Tin for those days: "+q.NewShare.String())
	wantText(t, "charge", card.Find(sel("sub-swap-now")), "Charged now to your card: "+q.Charge.String())
	if _, on := card.Find(sel("sub-swap-when-now")).Attr("checked"); !on {
		t.Fatal("the preview does not keep “Now” chosen")
	}
	p = b.get(paths.SubscriptionSwap(sub.ID)+"?product=sub-green-tea&quantity=1&when=now", htmx...)
	wantStatus(t, "htmx preview", p, http.StatusOK)
	wantText(t, "htmx preview", p.testid("sub-swap-now"), q.Charge.String())

	// A tab whose version is not the subscription's: 409 before anything
	// is charged.
	stale := sub
	stale.Version++
	p = s.act(t, b, stale, "swap", now("sub-green-tea", "1"), htmx...)
	wantStatus(t, "stale swap now", p, http.StatusConflict)
	if got := len(s.providerPayments(t)); got != paid {
		t.Fatalf("bad input or a stale tab charged: %d payments, want %d", got, paid)
	}

	// Confirmed: charged once, the swap written, the change's receipt.
	p = s.act(t, b, sub, "swap", now("sub-green-tea", "1"), htmx...)
	wantStatus(t, "swap now", p, http.StatusOK)
	wantText(t, "notice", subCard(p, sub.ID).Find(sel("sub-notice")), "we charged "+q.Charge.String())
	wantText(t, "product", subCard(p, sub.ID).Find(sel("sub-product")), "Green Tea Tin")
	r := s.receiptOf(t, ada)
	if r.Kind != store.ReceiptChange || r.Amount != q.Charge || !r.PeriodStart.Equal(q.From) || r.ProductName != "Green Tea Tin" {
		t.Fatalf("the change's receipt: %+v, want %v from %s", r, q.Charge, store.FormatDate(q.From))
	}
	mailed := false
	for _, m := range s.mailsOf(t, store.MailReceipt) {
		mailed = mailed || strings.Contains(m.Text, r.NumberInBooks())
	}
	if !mailed {
		t.Fatalf("no receipt mail of the change's receipt %s", r.NumberInBooks())
	}
	pays := s.providerPayments(t)
	if len(pays) != paid+1 {
		t.Fatalf("%d payments at the provider, want %d", len(pays), paid+1)
	}
	// The same form again (a double submit): 409, nothing charged.
	wantStatus(t, "double submit", s.act(t, b, sub, "swap", now("sub-green-tea", "1")), http.StatusConflict)
	// Another swap now in the same period: refused, "from the next payment" offered.
	sub = s.current(t, ada, sub.ID)
	p = s.act(t, b, sub, "swap", now("sub-green-tea", "2"), htmx...)
	wantStatus(t, "swap now again", p, http.StatusUnprocessableEntity)
	wantText(t, "swap now again", subCard(p, sub.ID).Find(sel("sub-error-when")), "changed already")
	if got := len(s.providerPayments(t)); got != paid+1 {
		t.Fatalf("%d payments at the provider after the refusals, want %d", got, paid+1)
	}
	// The receipt says what it paid.
	page := b.get(paths.Receipt(r.Number))
	wantStatus(t, "the change's receipt", page, http.StatusOK)
	wantText(t, "the change's receipt", page.testid("receipt-kind"), "Change to Green Tea Tin")

	// A cheaper product now: refunded at once to the card, on the period's receipt.
	bea, beaID := s.newCustomer(t, "Bea Test")
	bea.subscribe(boxID, itoa(s.env.Store.Today().Day()), "1")
	beaSub := s.subscriptionsOf(t, beaID)[0]
	q = s.swapNowQuote(t, beaID, 500, 1)
	p = s.act(t, bea, beaSub, "swap", url.Values{"product": {"sub-small-tea"}, "quantity": {"1"}, "when": {"now"}, "preview": {"1"}})
	wantText(t, "refund preview", subCard(p, beaSub.ID).Find(sel("sub-swap-now")), "Refunded now to your card: "+q.Refund.String())
	wantStatus(t, "refund now (plain)", s.act(t, bea, beaSub, "swap", now("sub-small-tea", "1")), http.StatusSeeOther)
	wantText(t, "refund flash", bea.get(paths.Subscriptions).testid("flash"), "we refunded "+q.Refund.String())
	if r := s.receiptOf(t, beaID); r.Refunded() != q.Refund || r.Refund.By != "change" || !strings.Contains(r.Refund.Reason, "Change to Small Tea") {
		t.Fatalf("the period's receipt after a refund now: %+v, want %v back", r.Refund, q.Refund)
	}
	if got := s.current(t, beaID, beaSub.ID); got.ProductID != "sub-small-tea" || got.Version != beaSub.Version+1 {
		t.Fatalf("after the refund now: %s v%d", got.ProductID, got.Version)
	}

	// A difference below the smallest charge: nothing moves, the swap applies.
	cy, cyID := s.newCustomer(t, "Cy Test")
	cy.subscribe(boxID, itoa(s.env.Store.Today().Day()), "1")
	cySub := s.subscriptionsOf(t, cyID)[0]
	if q := s.swapNowQuote(t, cyID, boxPerMon+40, 1); !q.BelowMinimum {
		t.Fatalf("quote %+v: want below the minimum", q)
	}
	p = s.act(t, cy, cySub, "swap", now("sub-box-plus", "1"), htmx...)
	wantStatus(t, "below the minimum", p, http.StatusOK)
	wantText(t, "below the minimum", subCard(p, cySub.ID).Find(sel("sub-notice")), "nothing to pay now")

	// Free first days: no payment covers today, so no swap now.
	dee, deeID := s.newCustomer(t, "Dee Test")
	dee.subscribe(boxID, itoa(s.env.Store.Today().AddDate(0, 0, 1).Day()), "1")
	deeSub := s.subscriptionsOf(t, deeID)[0]
	for _, headers := range [][]string{htmx, nil} {
		p = s.act(t, dee, deeSub, "swap", now("sub-green-tea", "1"), headers...)
		wantStatus(t, "free days", p, http.StatusUnprocessableEntity)
		wantText(t, "free days", subCard(p, deeSub.ID).Find(sel("sub-error-when")), "No card payment covers today")
	}
	p = dee.get(paths.SubscriptionSwap(deeSub.ID)+"?product=sub-green-tea&quantity=1&when=now", htmx...)
	wantStatus(t, "free days, htmx preview", p, http.StatusOK) // the preview alone, as for any choice
	wantText(t, "free days, htmx preview", p.testid("sub-error-when"), "No card payment covers today")
	if got := s.current(t, deeID, deeSub.ID); got.Version != deeSub.Version {
		t.Fatalf("a refused swap now wrote: v%d", got.Version)
	}
	if got := len(s.providerPayments(t)); got != paid+1+2 { // Bea's and Cy's subscribe
		t.Fatalf("%d payments at the provider, want %d", got, paid+3)
	}
}
