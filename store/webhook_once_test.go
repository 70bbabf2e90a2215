package store_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/storetest"
)

// newIntegrationDrop is an open drop of a new integration "partner".
func newIntegrationDrop(t *testing.T, st *store.Store, quantity int) store.Drop {
	t.Helper()
	ctx := ctxT(t)
	if _, _, _, err := st.CreateIntegration(ctx, "partner"); err != nil {
		t.Fatal(err)
	}
	now := st.Now()
	d, err := st.CreateDrop(ctx, store.NewDrop{Title: "Announced", Quantity: quantity, Opens: now, Closes: now.Add(time.Hour),
		Audience: store.IntegrationAudience("partner"), CreatedBy: store.IntegrationAudience("partner")})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func dropAnnouncement() *store.Announcement[store.Drop] {
	return &store.Announcement[store.Drop]{Integration: "partner", Endpoints: []string{"ep1"}, Data: func(d store.Drop) any { return d.ID }}
}

// eventsOf counts the events waiting for delivery, by type, of one drop
// (and, for tickets, by client).
func eventsOf(t *testing.T, st *store.Store, dropID string) map[string]int {
	t.Helper()
	due, err := st.DueWebhookEvents(ctxT(t), 1000)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, e := range due {
		var b struct {
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(e.Body, &b); err != nil {
			t.Fatal(err)
		}
		var data struct{ DropID, Client string }
		if json.Unmarshal(b.Data, &data) == nil && data.DropID == dropID {
			out[e.Type+" "+data.Client]++
			continue
		}
		var id string
		if json.Unmarshal(b.Data, &id) == nil && id == dropID {
			out[e.Type]++
		}
	}
	return out
}

// Many processes noticing a sell-out at once write one event: one
// conditional put wins, the others are told it was written.
func TestAnnounceDropOnceRace(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	d := newIntegrationDrop(t, env.Store, 1)
	var wrote atomic.Int32
	var wg sync.WaitGroup
	for range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := env.Store.AnnounceDropOnce(ctxT(t), d, store.EventDropSoldOut, dropAnnouncement())
			if err != nil {
				t.Error(err)
			}
			if ok {
				wrote.Add(1)
			}
		}()
	}
	wg.Wait()
	if wrote.Load() != 1 {
		t.Fatalf("%d puts wrote the event, want 1", wrote.Load())
	}
	if got := eventsOf(t, env.Store, d.ID); got[store.EventDropSoldOut] != 1 || len(got) != 1 {
		t.Fatalf("events %v", got)
	}
	// Nobody asked: nothing written.
	if ok, err := env.Store.AnnounceDropOnce(ctxT(t), d, store.EventDropClosed, nil); ok || err != nil {
		t.Fatalf("an announcement to nobody: %v %v", ok, err)
	}
}

// A drop closed after its deadline was announced closed is closed without
// a second event; a cancellation writes drop.cancelled with its status.
func TestSetDropStatusAnnouncedOnce(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := ctxT(t)
	d := newIntegrationDrop(t, env.Store, 3)
	if ok, err := env.Store.AnnounceDropOnce(ctx, d, store.EventDropClosed, dropAnnouncement()); !ok || err != nil {
		t.Fatalf("at the deadline: %v %v", ok, err)
	}
	if err := env.Store.SetDropStatusAnnounced(ctx, d.ID, store.DropClosed, dropAnnouncement()); err != nil {
		t.Fatalf("close after the deadline's event: %v", err)
	}
	if got, err := env.Store.DropConsistent(ctx, d.ID); err != nil || got.Status != store.DropClosed {
		t.Fatalf("closed: %+v %v", got.Status, err)
	}
	if got := eventsOf(t, env.Store, d.ID); got[store.EventDropClosed] != 1 || len(got) != 1 {
		t.Fatalf("events %v", got)
	}
	x, err := env.Store.CreateDrop(ctx, store.NewDrop{Title: "Off", Quantity: 3, Opens: d.Opens, Closes: d.Closes,
		Audience: d.Audience, CreatedBy: d.CreatedBy})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.CancelDropAnnounced(ctx, x.ID, store.CancelAnnouncements{Drop: dropAnnouncement()}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.CancelDropAnnounced(ctx, x.ID, store.CancelAnnouncements{Drop: dropAnnouncement()}); err != nil {
		t.Fatalf("cancel again: %v", err)
	}
	if got := eventsOf(t, env.Store, x.ID); got[store.EventDropCancelled] != 1 || len(got) != 1 {
		t.Fatalf("events %v", got)
	}
}

// A cancellation voids each ticket with its ticket.voided event, in
// batches; cancellations run at once and again write each event once.
func TestCancelDropVoidsEachTicketOnce(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := ctxT(t)
	const tickets = 60 // three batches, the last short
	d := newIntegrationDrop(t, env.Store, tickets)
	for i := range tickets {
		if _, err := env.Store.Claim(ctx, store.ClaimRequest{DropID: d.ID, Client: fmt.Sprintf("partner:c%02d", i)}, false); err != nil {
			t.Fatal(err)
		}
	}
	ann := store.CancelAnnouncements{Drop: dropAnnouncement(), Voided: &store.Announcement[store.Ticket]{Integration: "partner",
		Endpoints: []string{"ep1"}, Data: func(t store.Ticket) any {
			return map[string]string{"DropID": t.DropID, "Client": t.Client, "Status": string(t.Status)}
		}}}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := env.Store.CancelDropAnnounced(ctx, d.ID, ann); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if _, err := env.Store.CancelDropAnnounced(ctx, d.ID, ann); err != nil {
		t.Fatalf("cancel again: %v", err)
	}
	got := eventsOf(t, env.Store, d.ID)
	if len(got) != tickets+1 || got[store.EventDropCancelled] != 1 {
		t.Fatalf("%d kinds of event: %v", len(got), got)
	}
	for i := range tickets {
		if n := got[fmt.Sprintf("%s partner:c%02d", store.EventTicketVoided, i)]; n != 1 {
			t.Fatalf("ticket %d: %d events", i, n)
		}
	}
	for _, tk := range allStoreTickets(t, env.Store, d.ID) {
		if tk.Status != store.TicketVoid {
			t.Fatalf("ticket %s is %s", tk.Client, tk.Status)
		}
	}
}

// Every item an event leaves, the event and each attempt logged, expires
// with the event's retention, so delivery logs keep no answer past 30 days.
func TestWebhookAttemptsExpire(t *testing.T) {
	env := storetest.New(t)
	st := env.Store
	d := newIntegrationDrop(t, st, 3)
	if _, err := st.AnnounceDropOnce(ctxT(t), d, store.EventDropSoldOut, dropAnnouncement()); err != nil {
		t.Fatal(err)
	}
	due, err := st.DueWebhookEvents(ctxT(t), 10)
	if err != nil || len(due) != 1 {
		t.Fatalf("due events: %d, %v", len(due), err)
	}
	at := st.Now()
	if _, err := st.RecordWebhookAttempt(ctxT(t), due[0], "ep1", store.WebhookDelivery{Status: store.DeliveryDelivered},
		&store.WebhookAttempt{At: at, Status: 204, Duration: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	out, err := env.Client.Query(ctxT(t), &dynamodb.QueryInput{TableName: aws.String(env.Table), KeyConditionExpression: aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "whevent#" + due[0].ID}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Items) != 2 {
		t.Fatalf("%d items of the event, want the event and its attempt", len(out.Items))
	}
	for _, item := range out.Items {
		exp, ok := item["ExpiresAt"].(*types.AttributeValueMemberN)
		if !ok {
			t.Fatalf("item %v has no ExpiresAt", item["SK"])
		}
		n, err := strconv.ParseInt(exp.Value, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := time.Unix(n, 0); got.Before(at.Add(29*24*time.Hour)) || got.After(at.Add(31*24*time.Hour)) {
			t.Errorf("item %v expires at %v, want about 30 days after %v", item["SK"], got, at)
		}
	}
}
