package web_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"shop/handlers"
	"shop/store"
	"shop/store/storetest"
)

// A change made before the replica's first load of the endpoints waits
// for that load and is written with its events: before, it went without
// them, and no endpoint ever heard of it.
func TestEventsBeforeTheFirstLoadWaitForIt(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := context.Background()
	hook, err := env.Store.CreateStaffWebhook(ctx, "https://hooks.example.com/shop", []string{store.EventOrderPlaced})
	if err != nil {
		t.Fatal(err)
	}
	keys := handlers.NewAPIKeys(env.Store, time.Hour, nil)
	loaded := make(chan error, 1)
	go func() {
		time.Sleep(200 * time.Millisecond) // the replica's first moments
		loaded <- keys.Load(ctx)
	}()
	got := keys.Subscribed(store.StaffWebhooks, store.EventOrderPlaced)
	if err := <-loaded; err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{hook.ID}) {
		t.Fatalf("endpoints wanting order.placed before the first load: %v, want [%s]", got, hook.ID)
	}
	if got := keys.Subscribed(store.StaffWebhooks, store.EventOrderRefunded); len(got) != 0 {
		t.Fatalf("endpoints wanting order.refunded: %v, want none", got)
	}
}
