package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"shop/handlers"
	"shop/store/payment"
)

// The subscribe form's reads (subscriptions, trial, where it ships) are
// kept a moment under the customer and the save of their session: the
// same save reads nothing again, another save or another customer reads
// afresh, and so does the same save once the moment is over.
func TestSubscribeFormReadsAreKeptUnderTheSessionsSave(t *testing.T) {
	t.Parallel()
	s := newShop(t, withoutBackgroundReads)
	s.trialTea(t)
	_, ada := s.newCustomer(t, "Ada Facts")
	_, bo := s.newCustomer(t, "Bo Facts")
	ctx := context.Background()
	facts := handlers.NewSubscribeFacts(300 * time.Millisecond)
	reads := func(customer, saved string) int {
		t.Helper()
		st := facts.For(s.env.Store, ada, saved)
		s.env.Counter.Reset()
		if _, err := st.Subscriptions(ctx, customer); err != nil {
			t.Fatal(err)
		}
		if _, err := st.TrialTaken(ctx, customer, trialTeaID); err != nil {
			t.Fatal(err)
		}
		if _, err := st.SubscriptionShipTo(ctx, customer); err != nil {
			t.Fatal(err)
		}
		return s.env.Counter.Total()
	}
	first := reads(ada, "v1")
	if first == 0 {
		t.Fatal("the first reads made no request")
	}
	if n := reads(ada, "v1"); n != 0 {
		t.Errorf("the same save read %d times again", n)
	}
	if n := reads(ada, "v2"); n != first {
		t.Errorf("a new save made %d requests, want %d", n, first)
	}
	if n := reads(bo, "v2"); n != first {
		t.Errorf("another customer's reads through Ada's made %d requests, want %d", n, first)
	}
	time.Sleep(400 * time.Millisecond)
	if n := reads(ada, "v2"); n != first {
		t.Errorf("after the moment, %d requests, want %d", n, first)
	}
}

// With the production cache kept a minute, a customer who takes a trial
// sees at once that they had it: every change of theirs saves the session
// (its flash), and the form's reads are kept under the save.
func TestSubscribeFormShowsTheCustomersOwnChangeAtOnce(t *testing.T) {
	t.Parallel()
	s := newShop(t, withoutBackgroundReads, withSessionCache(time.Minute))
	s.trialTea(t)
	b, _ := s.newCustomer(t, "Ada Kept")
	s.env.Counter.Reset()
	wantText(t, "the trial offered", b.get("/products/"+trialTeaID).testid("subscribe-trial"), "14-day free trial")
	first := s.env.Counter.Total()
	s.env.Counter.Reset()
	wantText(t, "the trial offered again", b.get("/products/"+trialTeaID).testid("subscribe-trial"), "14-day free trial")
	// The form reads three or four times (subscriptions, trial, addresses,
	// and the last order without one); the product and its stock are the
	// shop window's, read again only when its second is over.
	const window = 2
	if n := s.env.Counter.Total(); n > window || first-n < 3 {
		t.Errorf("views made %d then %d requests (%v): the second should read the window's at most", first, n, s.env.Counter.Ops())
	}

	p := b.post("/subscriptions", b.subscribeForm(trialTeaID, itoa(s.env.Store.Today().Day()), "1"))
	wantStatus(t, "subscribe", p, http.StatusSeeOther)
	back := s.payOnPage(t, b, strings.TrimPrefix(p.header.Get("Location"), s.base), payment.CardSucceeds)
	s.deliverEvents(t, nil)
	b.get(back)
	page := b.get("/products/" + trialTeaID)
	wantText(t, "trial had", page.testid("subscribe-trial-taken"), "You have had this product's trial")
	if page.testid("subscribe-trial").Length() != 0 {
		t.Fatal("the trial is offered again from the kept reads")
	}
}
