package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"testing"
	"time"

	"shop/handlers"
	"shop/jobs/webhook"
	"shop/store"
	"shop/store/storetest"
)

// hookEvent is a delivered event, its signature checked.
type hookEvent struct {
	ID, Type string
	Data     struct {
		ID, Drop, Client, Status string
		Claimed, Quantity        int
	}
}

// events are the deliveries so far, each verified with secret.
func (h *hookReceiver) events(t *testing.T, secret string) []hookEvent {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []hookEvent
	for i, body := range h.got {
		if err := webhook.Verify(secret, h.sig[i], body, 5*time.Minute, time.Now()); err != nil {
			t.Fatalf("delivery %d: %v", i, err)
		}
		var ev hookEvent
		if err := json.Unmarshal(body, &ev); err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

// exactly waits for n deliveries, then a while more, and fails on more.
func (h *hookReceiver) exactly(t *testing.T, secret string, n int, more time.Duration) []hookEvent {
	t.Helper()
	h.wait(t, n)
	time.Sleep(more)
	evs := h.events(t, secret)
	if len(evs) != n {
		t.Fatalf("%d deliveries, want %d: %+v", len(evs), n, evs)
	}
	return evs
}

// registerHook registers an endpoint at the receiver for events.
func registerHook(t *testing.T, c *apiClient, rcv *hookReceiver, events string) handlers.APIWebhook {
	t.Helper()
	_, port, _ := net.SplitHostPort(rcv.srv.Listener.Addr().String())
	r := c.do(http.MethodPost, "/api/v1/webhooks", `{"url": "https://partner.example.com:`+port+`/shop", "events": [`+events+`]}`)
	r.want(t, "register", http.StatusCreated, "")
	var hook handlers.APIWebhook
	r.decode(t, &hook)
	return hook
}

func kinds(evs []hookEvent) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Type+" "+e.Data.Status)
	}
	sort.Strings(out)
	return out
}

// Closing and cancelling through the API write drop.closed and
// drop.cancelled with the change, and a cancellation ticket.voided per
// ticket; doing either again announces nothing more.
func TestAPIWebhooksDropClosedCancelledAndTicketsVoided(t *testing.T) {
	t.Parallel()
	rcv := newHookReceiver(t)
	_, c := apiShop(t, withHooksTo(rcv))
	hook := registerHook(t, c, rcv, `"drop.closed", "drop.cancelled", "ticket.voided"`)

	d := c.makeDrop(dropBody("Closed early", 3))
	c.do(http.MethodPost, "/api/v1/drops/"+d.ID+"/close", "").want(t, "close", http.StatusOK, "")
	c.do(http.MethodPost, "/api/v1/drops/"+d.ID+"/close", "").want(t, "close again", http.StatusOK, "")
	evs := rcv.exactly(t, hook.Secret, 1, 300*time.Millisecond)
	if e := evs[0]; e.Type != store.EventDropClosed || e.Data.ID != d.ID || e.Data.Status != "closed" {
		t.Fatalf("closed: %+v", e)
	}

	x := c.makeDrop(dropBody("Called off", 5))
	for _, who := range []string{"ada", "bo", "cy"} {
		c.claim(x.ID, who).want(t, "claim", http.StatusCreated, "")
	}
	c.do(http.MethodPost, "/api/v1/drops/"+x.ID+"/cancel", "").want(t, "cancel", http.StatusOK, "")
	c.do(http.MethodPost, "/api/v1/drops/"+x.ID+"/cancel", "").want(t, "cancel again", http.StatusOK, "")
	evs = rcv.exactly(t, hook.Secret, 5, 500*time.Millisecond)[1:]
	want := []string{"drop.cancelled cancelled", "ticket.voided void", "ticket.voided void", "ticket.voided void"}
	if got := kinds(evs); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	clients := map[string]bool{}
	for _, e := range evs {
		if e.Type == store.EventTicketVoided {
			clients[e.Data.Client] = e.Data.Drop == x.ID
		}
	}
	if !clients["partner:ada"] || !clients["partner:bo"] || !clients["partner:cy"] {
		t.Fatalf("voided %v", clients)
	}
}

// Staff closing, cancelling or releasing a ticket of an integration's drop
// write its events too.
func TestAdminDropCloseCancelAndReleaseAnnounced(t *testing.T) {
	t.Parallel()
	rcv := newHookReceiver(t)
	s := newShop(t, withHooksTo(rcv))
	name := "staffhooks" + store.NewID()[12:]
	c := newAPIClient(t, s.base, newAPIKey(t, s.env.Store, name))
	waitForKey(t, c)
	hook := registerHook(t, c, rcv, `"drop.closed", "drop.cancelled", "ticket.voided", "ticket.released"`)
	d := c.makeDrop(dropBody("Staff close", 3))
	x := c.makeDrop(dropBody("Staff cancel", 3))
	z := c.makeDrop(dropBody("Staff release", 3))
	c.claim(x.ID, "ada").want(t, "claim", http.StatusCreated, "")
	c.claim(z.ID, "bo").want(t, "claim", http.StatusCreated, "")

	staff := s.staff(t)
	wantStatus(t, "staff drop page", staff.get("/admin/drops/"+d.ID), http.StatusOK)
	wantStatus(t, "close", staff.post("/admin/drops/"+d.ID+"/close", url.Values{}), http.StatusSeeOther)
	wantStatus(t, "cancel", staff.post("/admin/drops/"+x.ID+"/cancel", url.Values{}), http.StatusSeeOther)
	release := attr(staff.get("/admin/drops/"+z.ID).testid("admin-ticket-release"), "href")
	wantStatus(t, "the release's question", staff.get(release), http.StatusOK)
	wantStatus(t, "release", staff.post(release, url.Values{}), http.StatusSeeOther)
	evs := rcv.exactly(t, hook.Secret, 4, 300*time.Millisecond)
	want := []string{"drop.cancelled cancelled", "drop.closed closed", "ticket.released released", "ticket.voided void"}
	if got := kinds(evs); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events %v, want %v", got, want)
	}
}

// A drop with several counters sold out by claims on two apps at once is
// announced sold out once, by whichever replica's gate saw it first.
func TestAPIWebhooksSoldOutOnceAcrossTwoApps(t *testing.T) {
	t.Parallel()
	rcv := newHookReceiver(t)
	env := storetest.New(t)
	secret := newAPIKey(t, env.Store, "partner")
	var apps []*apiClient
	for range 2 {
		base, _ := startApp(t, env, env.Table, [][]byte{keyA}, withStore(&storetest.Counter{}, store.WithDropCounterThreshold(2)),
			withHooksTo(rcv), withAPIKeysEvery(200*time.Millisecond), withRequestTimeout(time.Minute))
		apps = append(apps, newAPIClient(t, base, secret))
	}
	waitForKey(t, apps[1])
	hook := registerHook(t, apps[0], rcv, `"drop.sold_out"`)
	time.Sleep(500 * time.Millisecond) // the other app's copy knows the endpoint
	const quantity = 8                 // four counters of two
	d := apps[0].makeDrop(dropBody("Sells out", quantity))
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := range 48 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := apps[i%2].claim(d.ID, fmt.Sprintf("c%d", i))
			mu.Lock()
			defer mu.Unlock()
			if r.status == http.StatusCreated {
				won++
			}
		}()
	}
	wg.Wait()
	if won != quantity {
		t.Fatalf("%d tickets of %d", won, quantity)
	}
	// Both gates have seen it (each refreshes every second): still one.
	evs := rcv.exactly(t, hook.Secret, 1, 2500*time.Millisecond)
	if e := evs[0]; e.Type != store.EventDropSoldOut || e.Data.ID != d.ID || e.Data.Status != "sold_out" || e.Data.Claimed != quantity {
		t.Fatalf("sold out: %+v", e)
	}
}

// A drop still open at its deadline is announced closed once, by the
// first gate whose refresh sees it; closing it afterwards adds nothing.
func TestAPIWebhooksDropClosedAtDeadlineOnce(t *testing.T) {
	t.Parallel()
	rcv := newHookReceiver(t)
	env := storetest.New(t)
	secret := newAPIKey(t, env.Store, "partner")
	var apps []*apiClient
	for range 2 {
		base, _ := startApp(t, env, env.Table, [][]byte{keyA}, withHooksTo(rcv), withAPIKeysEvery(200*time.Millisecond))
		apps = append(apps, newAPIClient(t, base, secret))
	}
	waitForKey(t, apps[1])
	hook := registerHook(t, apps[0], rcv, `"drop.closed"`)
	time.Sleep(500 * time.Millisecond)
	closes := time.Now().Add(2 * time.Second).Truncate(time.Second).Add(time.Second)
	d := apps[0].makeDrop(fmt.Sprintf(`{"title": "By the clock", "quantity": 5, "opens": %q, "closes": %q}`,
		rfc3339(time.Now().Add(-10*time.Second)), rfc3339(closes)))
	apps[0].claim(d.ID, "ada").want(t, "claim", http.StatusCreated, "")
	apps[1].claim(d.ID, "bo").want(t, "claim", http.StatusCreated, "")
	time.Sleep(time.Until(closes))
	evs := rcv.exactly(t, hook.Secret, 1, 2*time.Second)
	if e := evs[0]; e.Type != store.EventDropClosed || e.Data.ID != d.ID || e.Data.Status != "closed" || e.Data.Claimed != 2 {
		t.Fatalf("closed: %+v", e)
	}
	apps[1].do(http.MethodPost, "/api/v1/drops/"+d.ID+"/close", "").want(t, "close after the deadline", http.StatusOK, "")
	rcv.exactly(t, hook.Secret, 1, 500*time.Millisecond)
}

// What noticing costs a claim: nothing, for claims that neither sell out
// nor are refused; the claim refused sold out leads to one PutItem of the
// event (once per drop on this replica), the refusals after it none.
func TestAPIWebhooksNoticeAddsNoRequestPerClaim(t *testing.T) {
	t.Parallel()
	rcv := newHookReceiver(t)
	counter := &storetest.Counter{}
	env, c := apiShop(t, withStore(counter), withoutBackgroundReads, withHooksTo(rcv))
	hook := registerHook(t, c, rcv, `"drop.sold_out", "drop.closed"`)
	d := c.makeDrop(dropBody("Counted", 4))
	c.claim(d.ID, "warm").want(t, "first claim", http.StatusCreated, "") // the gate reads the drop
	counter.Reset()
	for _, who := range []string{"a", "b", "c"} {
		c.claim(d.ID, who).want(t, "claim", http.StatusCreated, "")
	}
	if ops := counter.Ops(); counter.Total() != 3 || ops["TransactWriteItems"] != 3 {
		t.Fatalf("three claims made %v", ops)
	}
	c.claim(d.ID, "late").want(t, "sold out", http.StatusConflict, "sold_out")
	rcv.exactly(t, hook.Secret, 1, 200*time.Millisecond)
	// The event's PutItem, counted with the deliverer's requests (its lease
	// is a PutItem too): the table holds the one event.
	if _, err := env.Store.WebhookEventOf(context.Background(), store.EventDropSoldOut, d.ID, ""); err != nil {
		t.Fatalf("the sold_out event: %v", err)
	}
	t.Logf("requests of the claim refused sold out, the event's put and its delivery: %v", counter.Ops())
	counter.Reset()
	for i := range 5 {
		c.claim(d.ID, fmt.Sprintf("later%d", i)).want(t, "sold out", http.StatusConflict, "sold_out")
	}
	if ops := counter.Ops(); ops["PutItem"] != 0 || ops["TransactWriteItems"] != 0 {
		t.Fatalf("five refusals from memory made %v", ops)
	}
	t.Logf("requests of five refusals after the sell-out: %v", counter.Ops())
}

// A drop no gate holds at its deadline (nobody claimed or read it) is
// announced closed by the next list of the integration's drops, once.
func TestAPIWebhooksDropClosedNoticedByTheList(t *testing.T) {
	t.Parallel()
	rcv := newHookReceiver(t)
	_, c := apiShop(t, withoutBackgroundReads, withHooksTo(rcv))
	hook := registerHook(t, c, rcv, `"drop.closed"`)
	closes := time.Now().Add(time.Second).Truncate(time.Second).Add(time.Second)
	d := c.makeDrop(fmt.Sprintf(`{"title": "Unwatched", "quantity": 5, "opens": %q, "closes": %q}`,
		rfc3339(time.Now().Add(-10*time.Second)), rfc3339(closes)))
	time.Sleep(time.Until(closes))
	for range 3 {
		c.do(http.MethodGet, "/api/v1/drops", "").want(t, "list", http.StatusOK, "")
	}
	evs := rcv.exactly(t, hook.Secret, 1, 300*time.Millisecond)
	if e := evs[0]; e.Type != store.EventDropClosed || e.Data.ID != d.ID || e.Data.Status != "closed" {
		t.Fatalf("closed: %+v", e)
	}
}
