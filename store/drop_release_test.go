package store_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
)

// A release gives the ticket back: released, the count down by one, the
// place claimable again (by the releasing client too), the event in the
// same transaction; each refusal says why.
func TestReleaseTicket(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC), time.Millisecond)
	env := storetest.New(t, store.WithClock(clock.Now))
	ctx, st := ctxT(t), env.Store
	now := clock.Now()
	d := newDrop(t, st, 2, now, now.Add(time.Hour))
	claim := func(client string) (store.Ticket, error) {
		return st.Claim(ctx, store.ClaimRequest{DropID: d.ID, Client: client, DropTitle: d.Title}, false)
	}
	claimed := func() int {
		t.Helper()
		return must(st.DropConsistent(ctx, d.ID)).Claimed
	}
	for _, c := range []string{"ada", "bo"} {
		if _, err := claim(c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := claim("cy"); !errors.Is(err, store.ErrSoldOut) {
		t.Fatalf("a third claim of two: %v", err)
	}

	ann := &store.Announcement[store.Ticket]{Integration: "partner", Endpoints: []string{"hook-1"},
		Data: func(tk store.Ticket) any { return map[string]string{"client": tk.Client, "status": string(tk.Status)} }}
	env.Counter.Reset()
	tk, err := st.ReleaseTicket(ctx, store.ReleaseRequest{DropID: d.ID, Client: "ada", Announce: ann})
	if err != nil || tk.Status != store.TicketReleased || tk.Client != "ada" {
		t.Fatalf("release: %+v, %v", tk, err)
	}
	if ops := env.Counter.Ops(); ops["TransactWriteItems"] != 1 || ops["GetItem"] != 1 || ops["Query"] != 1 || len(ops) != 3 {
		t.Fatalf("a release made %v", ops)
	}
	if n := claimed(); n != 1 {
		t.Fatalf("claimed %d after a release, want 1", n)
	}
	if got := must(st.Ticket(ctx, d.ID, "ada")); got.Status != store.TicketReleased {
		t.Fatalf("ada's ticket %+v", got)
	}
	events, err := st.DueWebhookEvents(ctx, 10)
	if err != nil || len(events) != 1 || events[0].Type != store.EventTicketReleased ||
		!strings.Contains(string(events[0].Body), `"status":"released"`) {
		t.Fatalf("events %+v, %v", events, err)
	}

	for _, tc := range []struct {
		client string
		want   error
	}{
		{"ada", store.ErrTicketReleased},
		{"zed", store.ErrNotFound},
	} {
		if _, err := st.ReleaseTicket(ctx, store.ReleaseRequest{DropID: d.ID, Client: tc.client}); !errors.Is(err, tc.want) {
			t.Errorf("release of %s: %v, want %v", tc.client, err, tc.want)
		}
	}
	// The freed place goes to whoever claims first; then ada may claim
	// again once bo gives his back, over her released ticket.
	if _, err := claim("cy"); err != nil {
		t.Fatalf("a claim of the freed place: %v", err)
	}
	if _, err := claim("ada"); !errors.Is(err, store.ErrSoldOut) {
		t.Fatalf("ada's claim of a sold-out drop: %v", err)
	}
	if _, err := st.ReleaseTicket(ctx, store.ReleaseRequest{DropID: d.ID, Client: "bo"}); err != nil {
		t.Fatal(err)
	}
	if tk, err := claim("ada"); err != nil || tk.Status != store.TicketValid {
		t.Fatalf("ada claims again: %+v, %v", tk, err)
	}
	if _, err := claim("ada"); !errors.Is(err, store.ErrAlreadyClaimed) {
		t.Fatalf("ada's repeat: %v", err)
	}
	if n := claimed(); n != 2 {
		t.Fatalf("claimed %d, want 2", n)
	}

	// Not open: closed, or past its deadline; cancelled voids the ticket.
	if err := st.SetDropStatus(ctx, d.ID, store.DropClosed); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ReleaseTicket(ctx, store.ReleaseRequest{DropID: d.ID, Client: "cy"}); !errors.Is(err, store.ErrDropClosed) {
		t.Fatalf("release on a closed drop: %v", err)
	}
	late := newDrop(t, st, 3, clock.Now(), clock.Now().Add(time.Hour))
	if _, err := st.Claim(ctx, store.ClaimRequest{DropID: late.ID, Client: "ada"}, false); err != nil {
		t.Fatal(err)
	}
	clock.Set(clock.Now().Add(time.Hour))
	if _, err := st.ReleaseTicket(ctx, store.ReleaseRequest{DropID: late.ID, Client: "ada"}); !errors.Is(err, store.ErrDropClosed) {
		t.Fatalf("release past the deadline: %v", err)
	}
	cancelled := newDrop(t, st, 3, clock.Now(), clock.Now().Add(time.Hour))
	for _, c := range []string{"ada", "bo"} {
		if _, err := st.Claim(ctx, store.ClaimRequest{DropID: cancelled.ID, Client: c}, false); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.ReleaseTicket(ctx, store.ReleaseRequest{DropID: cancelled.ID, Client: "bo"}); err != nil {
		t.Fatal(err)
	}
	// Cancelling voids (and tells) the holders, not who gave theirs back.
	if void, err := st.CancelDrop(ctx, cancelled.ID); err != nil || len(void) != 1 || void[0].Client != "ada" {
		t.Fatalf("cancel voided %+v, %v", void, err)
	}
	if tk := must(st.Ticket(ctx, cancelled.ID, "bo")); tk.Status != store.TicketReleased {
		t.Fatalf("bo's released ticket after the cancellation: %+v", tk)
	}
	if _, err := st.ReleaseTicket(ctx, store.ReleaseRequest{DropID: cancelled.ID, Client: "ada"}); !errors.Is(err, store.ErrTicketVoided) {
		t.Fatalf("release on a cancelled drop: %v", err)
	}
	if n := claimed(); n != 2 {
		t.Fatalf("claimed %d after refused releases, want 2", n)
	}
}

// A product drop's ticket in its holder's cart, or redeemed by an order
// awaiting its payment, cannot be released.
func TestReleaseRefusesATicketInACartOrAPendingPayment(t *testing.T) {
	t.Parallel()
	f := newHoldFixture(t, 5, 0)
	ctx, st := ctxT(t), f.env.Store
	req := f.adaCart(t, "hold-release")
	release := func() error {
		_, err := st.ReleaseTicket(ctx, store.ReleaseRequest{DropID: f.drop.ID, Client: "ada"})
		return err
	}
	if err := release(); !errors.Is(err, store.ErrTicketInCart) || store.ReleaseReason(err) != "in_cart" {
		t.Fatalf("release of a ticket in the cart: %v", err)
	}
	if _, err := st.HoldCheckout(ctx, req); err != nil {
		t.Fatal(err)
	}
	if err := release(); !errors.Is(err, store.ErrTicketPendingPayment) || store.ReleaseReason(err) != "pending_payment" {
		t.Fatalf("release of a ticket held by a pending payment: %v", err)
	}
	if d := must(st.DropConsistent(ctx, f.drop.ID)); d.Claimed != 1 {
		t.Fatalf("claimed %d, want 1", d.Claimed)
	}
	// Out of the cart (another product drop's ticket), it can go.
	f.claim(t, f.drop, "bo")
	if err := st.AddTicketToCart(ctx, store.CustomerOwner("bo"), f.drop, f.tea); err != nil {
		t.Fatal(err)
	}
	if err := st.RemoveTicketFromCart(ctx, store.CustomerOwner("bo"), f.drop.ID); err != nil {
		t.Fatal(err)
	}
	if tk, err := st.ReleaseTicket(ctx, store.ReleaseRequest{DropID: f.drop.ID, Client: "bo"}); err != nil || tk.Status != store.TicketReleased {
		t.Fatalf("release of a ticket out of the cart: %+v, %v", tk, err)
	}
}

// Claims race releases (each client claims, gives back, claims again, and
// now and then keeps its ticket): the count never exceeds the quantity,
// and at the end it is the number of valid tickets, on a drop with
// counters too.
// Not parallel, and over a patient client, like the other races.
func TestReleaseRacesClaims(t *testing.T) {
	for _, tc := range []struct {
		name                string
		quantity, threshold int
	}{{"one count", 6, store.DefaultCounterThreshold}, {"counters", 9, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			env := storetest.New(t, store.WithDropCounterThreshold(tc.threshold))
			env.Store = env.Patient(store.WithDropCounterThreshold(tc.threshold))
			raceReleases(t, env, tc.quantity)
		})
	}
}

func raceReleases(t *testing.T, env storetest.Env, quantity int) {
	ctx, st := ctxT(t), env.Store
	now := time.Now()
	d := newDrop(t, st, quantity, now.Add(-time.Second), now.Add(time.Hour))
	clients, rounds := 24, 5
	if testing.Short() {
		clients, rounds = 12, 3
	}
	var claims, releases atomic.Int64
	var over atomic.Bool
	done := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Add(1)
	go func() { // the count as anyone reads it, all along
		defer sampler.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			if got, err := st.DropConsistent(ctx, d.ID); err == nil && got.Claimed > quantity {
				over.Store(true)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := fmt.Sprintf("c%02d", i)
			for r := range rounds {
				if !claimOnce(t, st, d, client) {
					continue
				}
				claims.Add(1)
				if r == rounds-1 || rand.N(4) == 0 {
					return // kept: the drop ends with some places held
				}
				time.Sleep(time.Duration(rand.N(10)) * time.Millisecond)
				_, err := st.ReleaseTicket(ctx, store.ReleaseRequest{DropID: d.ID, Client: client})
				switch {
				case err == nil:
					releases.Add(1)
				case errors.Is(err, store.ErrClaimContended):
				default:
					t.Errorf("release of %s: %v", client, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	sampler.Wait()
	got := must(st.DropConsistent(ctx, d.ID))
	valid := 0
	for _, tk := range allStoreTickets(t, st, d.ID) {
		if tk.Status == store.TicketValid {
			valid++
		}
	}
	t.Logf("%d claims, %d releases, %d claimed at the end of %d", claims.Load(), releases.Load(), got.Claimed, quantity)
	switch {
	case over.Load():
		t.Fatal("the count went over the quantity")
	case got.Claimed > quantity || got.Claimed != valid || int64(valid) != claims.Load()-releases.Load():
		t.Fatalf("claimed %d, %d valid tickets, %d claims - %d releases", got.Claimed, valid, claims.Load(), releases.Load())
	case releases.Load() == 0 || claims.Load() <= int64(quantity):
		t.Fatalf("no race: %d claims, %d releases", claims.Load(), releases.Load())
	}
	for _, c := range got.Counters {
		if c.Claimed > c.Quantity || c.Claimed < 0 {
			t.Fatalf("counter %d holds %d of %d", c.N, c.Claimed, c.Quantity)
		}
	}
}

// claimOnce claims for client, on each counter in turn for a drop with
// counters, retrying contention; false when the drop had no place.
func claimOnce(t *testing.T, st *store.Store, d store.Drop, client string) bool {
	counters := []int{0}
	if len(d.Counters) > 0 {
		counters = counters[:0]
		for _, c := range d.Counters {
			counters = append(counters, c.N)
		}
	}
	for range 20 {
		full := 0
		for _, n := range counters {
			_, err := st.Claim(ctxT(t), store.ClaimRequest{DropID: d.ID, Client: client, Counter: n}, len(d.Counters) > 0)
			switch {
			case err == nil:
				return true
			case errors.Is(err, store.ErrClaimContended):
			case errors.Is(err, store.ErrCounterFull):
				if full++; full == len(counters) {
					return false
				}
			case errors.Is(err, store.ErrSoldOut):
				return false
			default:
				t.Errorf("claim of %s: %v", client, err)
				return false
			}
		}
	}
	return false
}

func allStoreTickets(t *testing.T, st *store.Store, dropID string) []store.Ticket {
	t.Helper()
	var out []store.Ticket
	cursor := ""
	for {
		p, err := st.DropTickets(ctxT(t), dropID, 100, cursor)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Items...)
		if p.Next == "" {
			return out
		}
		cursor = p.Next
	}
}
