package store_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
)

// A customer's sessions are listed in one Query with their device and
// times; a visitor's session is in no list. One is ended by its handle
// (only by its customer), the others all at once, in batches.
func TestCustomerSessions(t *testing.T) {
	t.Parallel()
	start := time.Date(2031, 5, 6, 8, 0, 0, 0, time.UTC)
	clock := storetest.NewClock(start, 0)
	env := storetest.New(t, store.WithClock(clock.Now))
	st, ctx := env.Store, ctxT(t)
	save := func(id, customer, device string) {
		t.Helper()
		err := st.SaveSession(ctx, store.Session{ID: id, Data: []byte("d"), ExpiresAt: clock.Now().Add(24 * time.Hour), CustomerID: customer, Device: device}, true)
		if err != nil {
			t.Fatal(err)
		}
	}
	save("visitor", "", "")
	save("ada-laptop", "ada", "Firefox on Linux")
	clock.Set(start.Add(time.Minute))
	save("ada-phone", "ada", "Safari on iPhone")
	save("bob-1", "bob", "Chrome on Windows")

	var list []store.Session
	var err error
	env.Once(t, "a customer's sessions", func() { list, err = st.CustomerSessions(ctx, "ada") })
	if err != nil || len(list) != 2 || list[0].ID != "ada-phone" || list[1].ID != "ada-laptop" {
		t.Fatalf("Ada's sessions: %+v, %v", list, err)
	}
	if s := list[1]; s.Device != "Firefox on Linux" || !s.SignedInAt.Equal(start) || !s.LastSeenAt.Equal(start) || s.CustomerID != "ada" {
		t.Fatalf("laptop session: %+v", s)
	}

	// Saving the session (a changed visit) and touching it move last seen.
	clock.Set(start.Add(10 * time.Minute))
	if err := st.SaveSession(ctx, store.Session{ID: "ada-laptop", Data: []byte("e"), ExpiresAt: clock.Now().Add(time.Hour)}, false); err != nil {
		t.Fatal(err)
	}
	clock.Set(start.Add(20 * time.Minute))
	env.Once(t, "touch a session", func() { err = st.TouchSession(ctx, store.Session{ID: "ada-phone", CustomerID: "ada", Device: "Other"}) })
	if err != nil {
		t.Fatal(err)
	}
	list, err = st.CustomerSessions(ctx, "ada")
	if err != nil || len(list) != 2 {
		t.Fatal(list, err)
	}
	if !list[0].LastSeenAt.Equal(start.Add(20*time.Minute)) || !list[1].LastSeenAt.Equal(start.Add(10*time.Minute)) ||
		list[0].Device != "Safari on iPhone" || list[1].Device != "Firefox on Linux" || string(list[1].Data) != "e" {
		t.Fatalf("after save and touch: %+v", list)
	}
	// Touching a revoked session does not bring it back.
	if err := st.TouchSession(ctx, store.Session{ID: "gone", CustomerID: "ada"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("touch a missing session: %v", err)
	}
	if _, err := st.Session(ctx, "gone"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the touched missing session exists: %v", err)
	}

	// A session from before sessions carried their customer joins the
	// list at its first touch.
	if err := st.SaveSession(ctx, store.Session{ID: "ada-old", Data: []byte("o"), ExpiresAt: clock.Now().Add(time.Hour)}, true); err != nil {
		t.Fatal(err)
	}
	if err := st.TouchSession(ctx, store.Session{ID: "ada-old", CustomerID: "ada", Device: "Edge on Windows"}); err != nil {
		t.Fatal(err)
	}
	list, err = st.CustomerSessions(ctx, "ada")
	if err != nil || len(list) != 3 || list[0].ID != "ada-old" || list[0].Device != "Edge on Windows" || !list[0].SignedInAt.Equal(clock.Now()) {
		t.Fatalf("after adopting an old session: %+v, %v", list, err)
	}
	if err := st.DeleteSession(ctx, "ada-old"); err != nil {
		t.Fatal(err)
	}
	list = list[1:]

	// Bob cannot end Ada's session by its handle; Ada can.
	phone := list[0].Handle()
	if err := st.EndSession(ctx, "bob", phone); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Bob ending Ada's session: %v", err)
	}
	env.Costs(t, "end one of a customer's sessions", 2, func() { err = st.EndSession(ctx, "ada", phone) })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Session(ctx, "ada-phone"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("ended session: %v", err)
	}

	// Sixty more of Ada's: ending all but the laptop takes a Query and
	// three batches of deletes.
	for i := range 60 {
		save(fmt.Sprintf("ada-%02d", i), "ada", "Chrome on Android")
	}
	var ended int
	env.Costs(t, "end all of a customer's other sessions", 4, func() { ended, err = st.EndSessions(ctx, "ada", "ada-laptop") })
	if err != nil || ended != 60 {
		t.Fatalf("ended %d, %v", ended, err)
	}
	list, err = st.CustomerSessions(ctx, "ada")
	if err != nil || len(list) != 1 || list[0].ID != "ada-laptop" {
		t.Fatalf("left: %+v, %v", list, err)
	}
	if _, err := st.Session(ctx, "visitor"); err != nil {
		t.Fatalf("the visitor's session: %v", err)
	}
	if list, err := st.CustomerSessions(ctx, "bob"); err != nil || len(list) != 1 {
		t.Fatalf("Bob's sessions: %+v, %v", list, err)
	}
	// An expired session (the TTL deletes it late) is not listed.
	clock.Set(start.Add(48 * time.Hour))
	if list, err := st.CustomerSessions(ctx, "bob"); err != nil || len(list) != 0 {
		t.Fatalf("Bob's expired session listed: %+v, %v", list, err)
	}
}
