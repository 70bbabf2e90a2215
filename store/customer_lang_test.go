package store_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
)

// The customer's language is written with the account, changed in two
// requests, and refused for an account that is not there.
func TestCustomerLanguage(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	st, ctx := env.Store, ctxT(t)
	c, err := st.CreateCustomer(ctx, store.NewCustomer{Email: "minji@example.com", Name: "Kim Minji", PasswordHash: "h", Lang: "ko"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := st.Customer(ctx, c.ID); err != nil || got.Lang != "ko" {
		t.Fatalf("after sign-up: %q, %v; want ko", got.Lang, err)
	}
	env.Counter.Reset()
	if err := st.SetCustomerLanguage(ctx, c.ID, "id"); err != nil {
		t.Fatal(err)
	}
	// The Query of their subscriptions (none) and the customer's write.
	if n := env.Counter.Total(); n != 2 {
		t.Errorf("setting the language took %d requests, want 2", n)
	}
	if got, err := st.Customer(ctx, c.ID); err != nil || got.Lang != "id" {
		t.Fatalf("after the change: %q, %v; want id", got.Lang, err)
	}
	if err := st.SetCustomerLanguage(ctx, store.NewID(), "ko"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown customer's language: %v, want ErrNotFound", err)
	}
}

// langSubscription writes a subscription of customerID in status st, mailed
// in lang.
func langSubscription(t *testing.T, st *store.Store, customerID, lang string, status store.SubscriptionStatus) store.Subscription {
	t.Helper()
	due := time.Date(2026, 12, 15, 0, 0, 0, 0, time.UTC)
	sub := store.Subscription{
		ID: store.NewID(), AccountID: customerID, ProductID: "beans", ProductName: "Fika beans", Email: customerID + "@example.com", Lang: lang,
		MonthlyPrice: store.Money{Amount: 990, Currency: store.DefaultCurrency}, PeriodMonths: 1, PaymentDay: due.Day(), Status: status,
		Card: store.Card{Token: "tok", Brand: "Visa", Last4: "4242"}, CreatedAt: due.AddDate(0, -1, 0), Version: 3,
	}
	switch status {
	case store.SubscriptionActive:
		sub.NextPaymentDate, sub.NextReminderDate = due, due.AddDate(0, 0, -7)
	case store.SubscriptionPastDue:
		sub.NextPaymentDate, sub.RetryDate = due, due.AddDate(0, 0, 3)
	case store.SubscriptionPaused:
		sub.PausedOn = due.AddDate(0, 0, -20)
	case store.SubscriptionCancelled:
		sub.CancelledOn = due.AddDate(0, 0, -20)
	}
	if err := st.CreateSubscription(ctxT(t), sub); err != nil {
		t.Fatal(err)
	}
	return sub
}

// A language change reaches the customer's subscriptions that still mail
// them (active, paused, past due), with their version bumped, in two
// requests; a cancelled one keeps its language, and another customer's
// subscriptions are untouched. A job's write of a subscription read
// before the change fails instead of putting the old language back.
func TestCustomerLanguageFollowsToSubscriptions(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	st, ctx := env.Store, ctxT(t)
	minji, err := st.CreateCustomer(ctx, store.NewCustomer{Email: "minji@example.com", Name: "Kim Minji", PasswordHash: "h", Lang: "en"})
	if err != nil {
		t.Fatal(err)
	}
	other, err := st.CreateCustomer(ctx, store.NewCustomer{Email: "other@example.com", Name: "Other", PasswordHash: "h", Lang: "en"})
	if err != nil {
		t.Fatal(err)
	}
	follows := map[string]store.Subscription{}
	for _, status := range []store.SubscriptionStatus{store.SubscriptionActive, store.SubscriptionPaused, store.SubscriptionPastDue} {
		follows[string(status)] = langSubscription(t, st, minji.ID, "en", status)
	}
	cancelled := langSubscription(t, st, minji.ID, "en", store.SubscriptionCancelled)
	othersSub := langSubscription(t, st, other.ID, "en", store.SubscriptionActive)

	env.Counter.Reset()
	if err := st.SetCustomerLanguage(ctx, minji.ID, "ko"); err != nil {
		t.Fatal(err)
	}
	if n := env.Counter.Total(); n != 2 {
		t.Errorf("setting the language of a customer with subscriptions took %d requests, want 2", n)
	}
	if got, err := st.Customer(ctx, minji.ID); err != nil || got.Lang != "ko" {
		t.Fatalf("customer after the change: %q, %v; want ko", got.Lang, err)
	}
	for status, before := range follows {
		got, err := st.SubscriptionConsistent(ctx, minji.ID, before.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Lang != "ko" || got.Version != before.Version+1 {
			t.Errorf("%s subscription: lang %q version %d, want ko at %d", status, got.Lang, got.Version, before.Version+1)
		}
		if got.Status != before.Status || !got.NextPaymentDate.Equal(before.NextPaymentDate) || got.Email != before.Email {
			t.Errorf("%s subscription changed more than its language: %+v", status, got)
		}
	}
	for name, want := range map[string]store.Subscription{"cancelled": cancelled, "another customer's": othersSub} {
		got, err := st.SubscriptionConsistent(ctx, want.AccountID, want.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Lang != "en" || got.Version != want.Version {
			t.Errorf("%s subscription: lang %q version %d, want en at %d untouched", name, got.Lang, got.Version, want.Version)
		}
	}
	if got, err := st.Customer(ctx, other.ID); err != nil || got.Lang != "en" {
		t.Errorf("the other customer: %q, %v; want en", got.Lang, err)
	}

	// A job read the active one before the change: its write is refused.
	stale := follows[string(store.SubscriptionActive)]
	stale.LastReminderDate = stale.NextReminderDate
	if _, err := st.UpdateSubscription(ctx, stale); !errors.Is(err, store.ErrConflict) {
		t.Errorf("a write of the subscription as read before the change: %v, want ErrConflict", err)
	}

	// The same language again writes only the customer.
	env.Counter.Reset()
	if err := st.SetCustomerLanguage(ctx, minji.ID, "ko"); err != nil {
		t.Fatal(err)
	}
	if n := env.Counter.Total(); n != 2 {
		t.Errorf("setting the same language took %d requests, want 2", n)
	}
	if got, err := st.SubscriptionConsistent(ctx, minji.ID, stale.ID); err != nil || got.Version != stale.Version+1 {
		t.Errorf("the same language again bumped the version: %d, %v", got.Version, err)
	}
}

// Changes racing from two tabs (Korean, Indonesian, again and again)
// leave the customer and every subscription that mails them in one
// language: each change writes them all in one transaction.
func TestCustomerLanguageRaceLeavesOneLanguage(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	st, ctx := env.Store, ctxT(t)
	c, err := st.CreateCustomer(ctx, store.NewCustomer{Email: "race@example.com", Name: "Race", PasswordHash: "h", Lang: "en"})
	if err != nil {
		t.Fatal(err)
	}
	var subs []store.Subscription
	for range 3 {
		subs = append(subs, langSubscription(t, st, c.ID, "en", store.SubscriptionActive))
	}
	const changes = 16
	var wg sync.WaitGroup
	errs := make(chan error, changes)
	for i := range changes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lang := []string{"ko", "id"}[i%2]
			if err := st.SetCustomerLanguage(ctx, c.ID, lang); err != nil {
				errs <- fmt.Errorf("change to %s: %w", lang, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		failed++
		t.Log(err) // contention beyond the retries: that change is refused whole
	}
	if failed == changes {
		t.Fatal("no change went through")
	}
	cust, err := st.Customer(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if cust.Lang != "ko" && cust.Lang != "id" {
		t.Fatalf("customer's language %q", cust.Lang)
	}
	for _, s := range subs {
		got, err := st.SubscriptionConsistent(ctx, c.ID, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Lang != cust.Lang {
			t.Errorf("subscription %s in %q, its customer in %q", s.ID, got.Lang, cust.Lang)
		}
	}
}
