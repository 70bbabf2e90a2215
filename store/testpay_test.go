package store_test

import (
	"errors"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
)

// The test provider's records cost what the rows of
// docs/access-patterns.md say, and its due list holds what is due: open
// sessions until they are closed, events until they are delivered.
func TestTestPayRecordsCostWhatTheDocsSay(t *testing.T) {
	t.Parallel()
	const shards = 4
	env := storetest.New(t, store.WithListShards(shards))
	st, ctx := env.Store, ctxT(t)
	now := st.Now().UTC().Truncate(time.Millisecond)

	env.Costs(t, "the secret, made", 3, func() {
		if s, err := st.TestPaySecret(ctx); err != nil || len(s) < 40 {
			t.Fatalf("secret %q, %v", s, err)
		}
	})
	first, _ := st.TestPaySecret(ctx)
	env.Once(t, "the secret, read", func() {
		if s, err := st.TestPaySecret(ctx); err != nil || s != first {
			t.Fatalf("secret changed: %q, %v", s, err)
		}
	})

	cus := store.TestPayCustomer{ID: "cus_test_1", Key: "cus-c1", CustomerID: "c1", Email: "ada@example.com", CreatedAt: now}
	env.Once(t, "a customer", func() {
		if _, err := st.PutTestPayCustomer(ctx, cus); err != nil {
			t.Fatal(err)
		}
	})
	again := cus
	again.ID = "cus_test_2"
	env.Costs(t, "a customer's key again", 3, func() {
		if got, err := st.PutTestPayCustomer(ctx, again); !errors.Is(err, store.ErrConflict) || got.ID != cus.ID {
			t.Fatalf("key again: %+v, %v", got, err)
		}
	})
	env.Once(t, "delete a customer", func() {
		if err := st.DeleteTestPayCustomer(ctx, cus.ID); err != nil {
			t.Fatal(err)
		}
	})
	if _, err := st.TestPayCustomer(ctx, cus.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted customer: %v", err)
	}

	ses := store.TestPaySession{ID: "cs_test_1", Key: "checkout-1", Mode: "payment", Amount: eur(990), Status: "open",
		SuccessURL: "http://shop.test/ok", CreatedAt: now, OpenUntil: now.Add(time.Hour)}
	env.Once(t, "open a session", func() {
		if _, err := st.PutTestPaySession(ctx, ses); err != nil {
			t.Fatal(err)
		}
	})
	card := store.TestPayCard{Brand: "Visa", Last4: "4242", ExpMonth: 12, ExpYear: 2030, Outcome: "ok", Expires: now.AddDate(4, 0, 0)}
	done := ses
	done.Status, done.ClosedAt, done.PaymentRef, done.Card = "complete", now, "pi_test_1", &card
	pay := store.TestPayIntent{ID: "pi_test_1", Status: "succeeded", Amount: eur(990), SessionID: ses.ID, Card: &card, CreatedAt: now}
	ev := store.TestPayEvent{ID: "evt_test_1", Type: "checkout.session.completed", Created: now, Body: `{}`}
	env.Once(t, "complete a session", func() {
		if _, err := st.ChangeTestPaySession(ctx, store.TestPaySessionChange{Session: done, At: now, Payment: &pay, Event: &ev}); err != nil {
			t.Fatal(err)
		}
	})
	if got, err := st.ChangeTestPaySession(ctx, store.TestPaySessionChange{Session: done, At: now}); !errors.Is(err, store.ErrTestPaySessionClosed) || got.Status != "complete" {
		t.Fatalf("complete twice: %+v, %v", got, err)
	}
	for what, read := range map[string]func() error{
		"a session": func() error { _, err := st.TestPaySession(ctx, ses.ID); return err },
		"a payment": func() error { _, err := st.TestPayIntent(ctx, pay.ID); return err },
		"an event":  func() error { _, err := st.TestPayEvent(ctx, ev.ID); return err },
	} {
		env.Once(t, what, func() {
			if err := read(); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		})
	}

	env.Costs(t, "what is due", shards, func() {
		events, expired, err := st.TestPayDue(ctx, 10)
		if err != nil || len(events) != 1 || events[0].ID != ev.ID || len(expired) != 0 {
			t.Fatalf("due: %v %v %v", events, expired, err)
		}
	})
	delivered, _ := st.TestPayEvent(ctx, ev.ID)
	delivered.Attempts, delivered.DeliveredAt = 1, now
	env.Once(t, "mark an event delivered", func() {
		if err := st.MarkTestPayEvent(ctx, delivered); err != nil {
			t.Fatal(err)
		}
	})
	if events, _, _ := st.TestPayDue(ctx, 10); len(events) != 0 {
		t.Fatalf("a delivered event is still due: %v", events)
	}

	refund := store.TestPayRefund{ID: "re_test_1", Key: "rf-1", PaymentRef: pay.ID, Status: "succeeded", Amount: eur(990), At: now}
	env.Costs(t, "a refund", 2, func() {
		if _, err := st.PutTestPayRefund(ctx, refund, store.TestPayEvent{ID: "evt_test_2", Type: "charge.refunded", Created: now, Body: `{}`}); err != nil {
			t.Fatal(err)
		}
	})
	more := refund
	more.ID, more.Key, more.Amount = "re_test_2", "rf-2", eur(1)
	if _, err := st.PutTestPayRefund(ctx, more, store.TestPayEvent{ID: "evt_test_3", Type: "charge.refunded", Created: now, Body: `{}`}); !errors.Is(err, store.ErrRefundExceedsCharge) {
		t.Fatalf("a refund past the payment: %v", err)
	}

	open := store.TestPayIntent{ID: "pi_test_2", Key: "sub-1", Status: "requires_confirmation", Amount: eur(500), CreatedAt: now}
	env.Once(t, "create a payment", func() {
		if _, err := st.PutTestPayIntent(ctx, open); err != nil {
			t.Fatal(err)
		}
	})
	charged := open
	charged.Status = "succeeded"
	env.Once(t, "confirm a payment", func() {
		if _, err := st.MoveTestPayIntent(ctx, charged, "requires_confirmation", nil); err != nil {
			t.Fatal(err)
		}
	})
	if got, err := st.MoveTestPayIntent(ctx, charged, "requires_confirmation", nil); !errors.Is(err, store.ErrConflict) || got.Status != "succeeded" {
		t.Fatalf("confirm twice: %+v, %v", got, err)
	}

	late := store.TestPaySession{ID: "cs_test_2", Mode: "setup", Status: "open", SuccessURL: "http://shop.test/ok", CreatedAt: now, OpenUntil: now.Add(-time.Second)}
	if _, err := st.PutTestPaySession(ctx, late); err != nil {
		t.Fatal(err)
	}
	if _, expired, err := st.TestPayDue(ctx, 10); err != nil || len(expired) != 1 || expired[0] != late.ID {
		t.Fatalf("due to expire: %v, %v", expired, err)
	}
	gone := late
	gone.Status, gone.ClosedAt = "expired", now
	env.Once(t, "expire a session", func() {
		if _, err := st.ExpireTestPaySession(ctx, gone, store.TestPayEvent{ID: "evt_test_4", Type: "checkout.session.expired", Created: now, Body: `{}`}); err != nil {
			t.Fatal(err)
		}
	})
	if _, expired, _ := st.TestPayDue(ctx, 10); len(expired) != 0 {
		t.Fatalf("an expired session is still due: %v", expired)
	}
}
