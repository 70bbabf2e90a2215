package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
)

// claimProduct claims a product drop's ticket as the shop's pages do: with
// the drop's RedeemWithin, so its unit's entry goes in the list.
func (f productDropFixture) claimProduct(t *testing.T, d store.Drop, customer string) store.Ticket {
	t.Helper()
	tk, err := f.env.Store.Claim(ctxT(t), store.ClaimRequest{DropID: d.ID, Client: customer, CustomerID: customer, DropTitle: d.Title,
		RedeemWithin: d.TicketRedeemWithin()}, false)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// returnDue runs what the ticket stock job runs once: every entry due,
// each given back if owed. It returns the outcomes by client.
func returnDue(t *testing.T, st *store.Store) map[string]store.TicketReturnOutcome {
	t.Helper()
	ctx := ctxT(t)
	due, err := st.TicketReturnsDue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]store.TicketReturnOutcome{}
	for _, r := range due {
		o, err := st.ReturnTicketUnit(ctx, r)
		if err != nil {
			t.Fatalf("return %s: %v", r.Client, err)
		}
		out[r.Client] = o
	}
	return out
}

func (f productDropFixture) ticket(t *testing.T, d store.Drop, client string) store.Ticket {
	t.Helper()
	tk, err := f.env.Store.TicketConsistent(ctxT(t), d.ID, client)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// A ticket that expires unused gives its unit back once it is past its
// redeem time (and the grace), not before; one redeemed by a paid order
// does not; the stock goes up by one in the warehouse the drop set most
// aside in, logged, and the drop counts it while its claimed count stays.
func TestExpiredTicketReturnsItsUnit(t *testing.T) {
	t.Parallel()
	f := newProductDropFixture(t, 5, 2)
	ctx := ctxT(t)
	d, err := f.teaDrop(t, 4) // w1 4
	if err != nil {
		t.Fatal(err)
	}
	f.claimProduct(t, d, "ada")
	f.claimProduct(t, d, "bob")
	if _, err := f.pay.Checkout(ctx, ticketCheckout(f, "bob-1", "bob", d, false)); err != nil {
		t.Fatal(err)
	}
	f.clock.Set(f.clock.Now().Add(store.DefaultRedeemWithin)) // past RedeemBy, within the grace
	if got := returnDue(t, f.env.Store); len(got) != 0 {
		t.Fatalf("within the grace: %v, want nothing due", got)
	}
	f.clock.Set(f.clock.Now().Add(10 * time.Minute))
	got := returnDue(t, f.env.Store)
	if got["ada"] != store.TicketUnitReturned || got["bob"] != store.TicketUnitNotOwed || len(got) != 2 {
		t.Fatalf("outcomes %v, want ada returned, bob not owed", got)
	}
	if s := f.stock(t); s["w1"] != 2 || s["w2"] != 2 {
		t.Fatalf("stock %v, want w1 1+1, w2 2", s)
	}
	adj := f.adjustments(t, "w1")
	if len(adj) != 2 || adj[0].Delta != 1 || adj[0].Reason != "returned from a ticket (expired unused) of drop Tea drop" {
		t.Fatalf("w1 adjustments %+v", adj)
	}
	if tk := f.ticket(t, d, "ada"); !tk.UnitReturned || tk.Status != store.TicketValid {
		t.Fatalf("ada's ticket %+v", tk)
	}
	stored, err := f.env.Store.DropConsistent(ctx, d.ID)
	if err != nil || stored.UnitsReturned != 1 || stored.Claimed != 2 {
		t.Fatalf("drop %+v, %v: want 1 returned, claimed 2", stored, err)
	}
	// The list is empty now: a run again gives nothing back twice.
	if got := returnDue(t, f.env.Store); len(got) != 0 {
		t.Fatalf("second run: %v", got)
	}
	// A returned ticket is neither redeemed nor released.
	if _, err := f.env.Store.ReleaseTicket(ctx, store.ReleaseRequest{DropID: d.ID, Client: "ada"}); store.ReleaseReason(err) != "expired" {
		t.Fatalf("release of a returned ticket: %v", err)
	}
}

// A cancel voids the tickets: each unit a voided ticket held goes back at
// the next run (the unclaimed ones went back with the cancel), also one
// whose redeem time is far off.
func TestVoidedTicketReturnsItsUnit(t *testing.T) {
	t.Parallel()
	f := newProductDropFixture(t, 3, 0)
	ctx := ctxT(t)
	d, err := f.teaDrop(t, 3)
	if err != nil {
		t.Fatal(err)
	}
	f.claimProduct(t, d, "ada")
	f.claimProduct(t, d, "bob")
	if _, err := f.env.Store.CancelDrop(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	if s := f.stock(t); s["w1"] != 1 {
		t.Fatalf("stock after the cancel %v, want the unclaimed 1 back", s)
	}
	got := returnDue(t, f.env.Store)
	if got["ada"] != store.TicketUnitReturned || got["bob"] != store.TicketUnitReturned {
		t.Fatalf("outcomes %v", got)
	}
	if s := f.stock(t); s["w1"] != 3 {
		t.Fatalf("stock %v, want all 3 back", s)
	}
	if tk := f.ticket(t, d, "ada"); !tk.UnitReturned || tk.Status != store.TicketVoid {
		t.Fatalf("ada's ticket %+v", tk)
	}
	// Cancelling again (finishing a cut-short cancel) puts the entries back
	// for nothing: the next run drops them, the stock stays.
	if _, err := f.env.Store.CancelDrop(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	returnDue(t, f.env.Store)
	if s := f.stock(t); s["w1"] != 3 {
		t.Fatalf("stock after a second cancel %v", s)
	}
}

// A ticket in an order awaiting its payment keeps its unit while the
// payment may come: the run skips it. Once the payment expires the ticket
// is valid again, past its time, and its unit goes back; a ticket whose
// order was paid never gives its unit back.
func TestTicketHeldByPendingPaymentIsSkipped(t *testing.T) {
	t.Parallel()
	f := newProductDropFixture(t, 4, 0)
	ctx := ctxT(t)
	d, err := f.teaDrop(t, 2)
	if err != nil {
		t.Fatal(err)
	}
	f.claimProduct(t, d, "ada")
	f.claimProduct(t, d, "bob")
	req := ticketCheckout(f, "hold-ada", "ada", d, false)
	req.HoldFor = time.Hour
	held, err := f.env.Store.HoldCheckout(ctx, req)
	if err != nil || held.Status != store.OrderAwaitingPayment {
		t.Fatalf("hold: %+v, %v", held, err)
	}
	if _, err := f.pay.Checkout(ctx, ticketCheckout(f, "pay-bob", "bob", d, false)); err != nil {
		t.Fatal(err)
	}
	f.clock.Set(f.clock.Now().Add(store.DefaultRedeemWithin + time.Hour))
	// Ada's payment page is still open (a provider's page outlives the
	// hold's deadline until the reconcile step expires it).
	if got := returnDue(t, f.env.Store); got["ada"] != store.TicketUnitHeld || got["bob"] != store.TicketUnitNotOwed {
		t.Fatalf("while ada's payment waits: %v, want ada held, bob not owed", got)
	}
	if got := returnDue(t, f.env.Store); got["ada"] != store.TicketUnitHeld || len(got) != 1 {
		t.Fatalf("a run again while it waits: %v", got)
	}
	if _, err := f.env.Store.ReleaseHeldOrder(ctx, held.ID, store.ReleaseExpired, "", ""); err != nil {
		t.Fatal(err)
	}
	if got := returnDue(t, f.env.Store); got["ada"] != store.TicketUnitReturned || len(got) != 1 {
		t.Fatalf("after ada's payment expired: %v, want ada returned", got)
	}
	if s := f.stock(t); s["w1"] != 3 {
		t.Fatalf("stock %v, want 2 + ada's 1", s)
	}
	if got := returnDue(t, f.env.Store); len(got) != 0 {
		t.Fatalf("a run after: %v", got)
	}
}

// The race: four stores (as four replicas) each run the job twice at
// once over the same expired and voided tickets: the stock goes up exactly
// once per ticket, each ticket is returned once, and the drop counts each
// once.
func TestTicketReturnRace(t *testing.T) {
	f := newProductDropFixture(t, 30, 0)
	ctx := ctxT(t)
	expired, err := f.teaDrop(t, 12)
	if err != nil {
		t.Fatal(err)
	}
	cancelled, err := f.teaDrop(t, 8)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		f.claimProduct(t, expired, fmt.Sprintf("c%02d", i))
	}
	for i := range 8 {
		f.claimProduct(t, cancelled, fmt.Sprintf("v%02d", i))
	}
	if _, err := f.env.Store.CancelDrop(ctx, cancelled.ID); err != nil {
		t.Fatal(err)
	}
	f.clock.Set(f.clock.Now().Add(store.DefaultRedeemWithin + time.Hour))
	stores := []*store.Store{f.env.Store}
	for range 3 {
		stores = append(stores, store.New(f.env.Client, f.env.Table, store.WithClock(f.clock.Now)))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	returned := 0
	for i := range 2 * len(stores) {
		wg.Add(1)
		go func(st *store.Store) {
			defer wg.Done()
			due, err := st.TicketReturnsDue(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			for _, r := range due {
				o, err := st.ReturnTicketUnit(context.WithoutCancel(ctx), r)
				if err != nil {
					t.Error(err)
					return
				}
				if o == store.TicketUnitReturned {
					mu.Lock()
					returned++
					mu.Unlock()
				}
			}
		}(stores[i%len(stores)])
	}
	wg.Wait()
	if returned != 20 {
		t.Fatalf("%d returns reported, want 20", returned)
	}
	if s := f.stock(t); s["w1"] != 30 {
		t.Fatalf("stock %v, want all 30 back", s)
	}
	for _, d := range []store.Drop{expired, cancelled} {
		stored, err := f.env.Store.DropConsistent(ctx, d.ID)
		if err != nil || stored.UnitsReturned != d.Quantity {
			t.Fatalf("drop %s: %d returned, %v; want %d", d.Title, stored.UnitsReturned, err, d.Quantity)
		}
	}
}

// A cancel voids a ticket already in an order awaiting its payment: the
// unit waits for the payment; the order expiring leaves the ticket void
// (not the order's to give back any more), and its unit then goes back,
// on condition the order is still expired.
func TestVoidedTicketOfAnExpiredOrderReturnsItsUnit(t *testing.T) {
	t.Parallel()
	f := newProductDropFixture(t, 2, 0)
	ctx := ctxT(t)
	d, err := f.teaDrop(t, 2)
	if err != nil {
		t.Fatal(err)
	}
	f.claimProduct(t, d, "ada")
	req := ticketCheckout(f, "hold-ada", "ada", d, false)
	req.HoldFor = time.Hour
	held, err := f.env.Store.HoldCheckout(ctx, req)
	if err != nil || held.Status != store.OrderAwaitingPayment {
		t.Fatalf("hold: %+v, %v", held, err)
	}
	if _, err := f.env.Store.CancelDrop(ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	if got := returnDue(t, f.env.Store); got["ada"] != store.TicketUnitHeld {
		t.Fatalf("while the payment waits: %v", got)
	}
	if _, err := f.env.Store.ReleaseHeldOrder(ctx, held.ID, store.ReleaseExpired, "", ""); err != nil {
		t.Fatal(err)
	}
	if tk := f.ticket(t, d, "ada"); tk.Status != store.TicketVoid || tk.OrderID != held.ID {
		t.Fatalf("ticket after the order expired: %+v", tk)
	}
	if got := returnDue(t, f.env.Store); got["ada"] != store.TicketUnitReturned {
		t.Fatalf("after the order expired: %v", got)
	}
	if s := f.stock(t); s["w1"] != 2 {
		t.Fatalf("stock %v, want the unclaimed 1 and ada's 1 back", s)
	}
}

// Tickets claimed before the list existed (no entry) are listed once by
// Migrate on a table of the older version; their units then go back like
// any other's, and a ticket already listed is left as it is.
func TestMigrateListsOlderTicketsForTheirUnits(t *testing.T) {
	t.Parallel()
	f := newProductDropFixture(t, 3, 0)
	ctx := ctxT(t)
	d, err := f.teaDrop(t, 3)
	if err != nil {
		t.Fatal(err)
	}
	f.claim(t, d, "ada") // as the older version claimed: no entry
	f.claim(t, d, "bob")
	f.claimProduct(t, d, "cat")
	if _, err := f.env.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(f.env.Table), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "meta"}, "SK": &types.AttributeValueMemberS{Value: "marker#ticket-returns-v1"},
	}}); err != nil {
		t.Fatal(err)
	}
	f.clock.Set(f.clock.Now().Add(store.DefaultRedeemWithin + time.Hour))
	if got := returnDue(t, f.env.Store); len(got) != 1 || got["cat"] != store.TicketUnitReturned {
		t.Fatalf("before the migration: %v, want only cat's", got)
	}
	for range 2 { // idempotent
		if err := f.env.Store.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got := returnDue(t, f.env.Store)
	if len(got) != 2 || got["ada"] != store.TicketUnitReturned || got["bob"] != store.TicketUnitReturned {
		t.Fatalf("after the migration: %v, want ada's and bob's", got)
	}
	if s := f.stock(t); s["w1"] != 3 {
		t.Fatalf("stock %v, want all 3 back", s)
	}
}
