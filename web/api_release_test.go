package web_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"shop/handlers"
	"shop/jobs/webhook"
	"shop/store"
	"shop/store/storetest"
)

// Releasing tickets through the API: DELETE /api/v1/drops/{id}/tickets/{client}.

func (c *apiClient) release(dropID, client string) apiResp {
	c.t.Helper()
	return c.do(http.MethodDelete, "/api/v1/drops/"+dropID+"/tickets/"+client, "")
}

// A release answers the ticket, released; its place is claimable at once on
// this replica, by another client or the same; each refusal has a reason;
// another integration's drop is not found.
func TestAPIReleaseTicket(t *testing.T) {
	t.Parallel()
	env, c := apiShop(t)
	d := c.makeDrop(dropBody("One place", 1))
	c.claim(d.ID, "c1").want(t, "claim", http.StatusCreated, "")
	c.claim(d.ID, "c2").want(t, "sold out", http.StatusConflict, "sold_out")

	r := c.release(d.ID, "c1")
	r.want(t, "release", http.StatusOK, "")
	var tk handlers.APITicket
	if r.decode(t, &tk); tk.Status != "released" || tk.Client != "partner:c1" || tk.Drop != d.ID {
		t.Fatalf("released %+v", tk)
	}
	var shown handlers.APIDrop
	c.do(http.MethodGet, "/api/v1/drops/"+d.ID, "").decode(t, &shown)
	if shown.Claimed != 0 || shown.Status != "open" {
		t.Fatalf("after the release the drop shows %+v", shown)
	}
	c.release(d.ID, "c1").want(t, "a second release", http.StatusConflict, "released")
	c.release(d.ID, "c9").want(t, "no ticket", http.StatusNotFound, "not_found")
	c.release(d.ID, "a%20b").want(t, "not a client id", http.StatusNotFound, "not_found")
	other := newAPIClient(t, c.base, newAPIKey(t, env.Store, "other"))
	waitForKey(t, other)
	other.release(d.ID, "c1").want(t, "another integration's drop", http.StatusNotFound, "not_found")

	// The freed place: c2 takes it; c1, released, holds nothing.
	c.claim(d.ID, "c2").want(t, "a claim of the freed place", http.StatusCreated, "")
	c.claim(d.ID, "c1").want(t, "the releaser after the sell-out", http.StatusConflict, "sold_out")
	c.release(d.ID, "c2").want(t, "c2 gives it back", http.StatusOK, "")
	c.claim(d.ID, "c1").want(t, "the releaser claims again", http.StatusCreated, "")
	c.claim(d.ID, "c1").want(t, "its repeat", http.StatusOK, "")
	if got, err := env.Store.DropConsistent(t.Context(), d.ID); err != nil || got.Claimed != 1 {
		t.Fatalf("drop %+v, %v", got, err)
	}

	c.do(http.MethodPost, "/api/v1/drops/"+d.ID+"/close", "").want(t, "close", http.StatusOK, "")
	c.release(d.ID, "c1").want(t, "release on a closed drop", http.StatusConflict, "closed")
	x := c.makeDrop(dropBody("Cancelled", 2))
	c.claim(x.ID, "c1").want(t, "claim", http.StatusCreated, "")
	c.do(http.MethodPost, "/api/v1/drops/"+x.ID+"/cancel", "").want(t, "cancel", http.StatusOK, "")
	c.release(x.ID, "c1").want(t, "release of a void ticket", http.StatusConflict, "void")
}

// The release's event reaches the endpoint with the ticket as the API
// answered it.
func TestAPIReleaseSendsTicketReleased(t *testing.T) {
	t.Parallel()
	rcv := newHookReceiver(t)
	_, c := apiShop(t, withHooksTo(rcv))
	_, port, _ := net.SplitHostPort(rcv.srv.Listener.Addr().String())
	r := c.do(http.MethodPost, "/api/v1/webhooks", `{"url": "https://partner.example.com:`+port+`/shop", "events": ["ticket.released"]}`)
	r.want(t, "register", http.StatusCreated, "")
	var hook handlers.APIWebhook
	r.decode(t, &hook)
	d := c.makeDrop(dropBody("Given back", 2))
	c.claim(d.ID, "ada").want(t, "claim", http.StatusCreated, "")
	r = c.release(d.ID, "ada")
	r.want(t, "release", http.StatusOK, "")
	got, sigs := rcv.wait(t, 1)
	if err := webhook.Verify(hook.Secret, sigs[0], got[0], 5*time.Minute, time.Now()); err != nil {
		t.Fatal(err)
	}
	var ev struct {
		Type string
		Data json.RawMessage
	}
	if err := json.Unmarshal(got[0], &ev); err != nil || ev.Type != store.EventTicketReleased ||
		string(ev.Data) != strings.TrimSpace(string(r.body)) {
		t.Fatalf("event %s (%v), the API answered %s", got[0], err, r.body)
	}
}

// Two replicas on one table: a release on A is known to B's gate within a
// second or two (B had learned the sell-out), and B's claim takes the
// place. Then clients claim and release on both at once: the count never
// exceeds the quantity and ends as the number of valid tickets.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out
// the lock waits of a race like this one.
func TestAPIReleaseOnTwoApps(t *testing.T) {
	env := storetest.New(t)
	secret := newAPIKey(t, env.Store, "partner")
	baseA, _ := startApp(t, env, env.Table, [][]byte{keyA}, withRequestTimeout(time.Minute))
	baseB, _ := startApp(t, env, env.Table, [][]byte{keyA}, withRequestTimeout(time.Minute))
	a, b := newAPIClient(t, baseA, secret), newAPIClient(t, baseB, secret)
	waitForKey(t, a)
	waitForKey(t, b)

	d := a.makeDrop(dropBody("Two replicas", 1))
	a.claim(d.ID, "c1").want(t, "claim on A", http.StatusCreated, "")
	b.claim(d.ID, "c2").want(t, "B learns the sell-out", http.StatusConflict, "sold_out")
	a.release(d.ID, "c1").want(t, "release on A", http.StatusOK, "")
	released := time.Now()
	for {
		r := b.claim(d.ID, "c2")
		if r.status == http.StatusCreated {
			break
		}
		r.want(t, "B before its refresh", http.StatusConflict, "sold_out")
		if time.Since(released) > 3*time.Second {
			t.Fatal("B still refuses the freed place 3 s after the release")
		}
		time.Sleep(250 * time.Millisecond) // within the client's 5 claims a second
	}
	t.Logf("B took the freed place %v after the release", time.Since(released).Round(time.Millisecond))

	raceReleasesOnTwoApps(t, env, a, b)
}

func raceReleasesOnTwoApps(t *testing.T, env storetest.Env, a, b *apiClient) {
	qty, clients, rounds := 8, 40, 4
	if testing.Short() {
		qty, clients, rounds = 4, 16, 3
	}
	d := a.makeDrop(dropBody("Released and claimed", qty))
	apps := []*apiClient{a, b}
	var claims, releases atomic.Int64
	var over atomic.Bool
	done := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		for {
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
			if got, err := env.Store.DropConsistent(t.Context(), d.ID); err == nil && got.Claimed > qty {
				over.Store(true)
			}
		}
	}()
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := fmt.Sprintf("r%03d", i)
			for round := range rounds {
				r, err := apps[rand.N(2)].try(http.MethodPost, "/api/v1/drops/"+d.ID+"/claims", fmt.Sprintf(`{"client": %q}`, client))
				if err != nil {
					t.Errorf("claim: %v", err)
					return
				}
				if r.status != http.StatusCreated {
					if r.status != http.StatusConflict && r.status != http.StatusTooManyRequests && r.status != http.StatusServiceUnavailable {
						t.Errorf("claim of %s: %d %s", client, r.status, r.body)
					}
					time.Sleep(time.Duration(200+rand.N(300)) * time.Millisecond)
					continue
				}
				claims.Add(1)
				if round == rounds-1 || rand.N(4) == 0 {
					return // kept
				}
				time.Sleep(time.Duration(rand.N(50)) * time.Millisecond)
				r, err = apps[rand.N(2)].try(http.MethodDelete, "/api/v1/drops/"+d.ID+"/tickets/"+client, "")
				switch {
				case err != nil:
					t.Errorf("release: %v", err)
					return
				case r.status == http.StatusOK:
					releases.Add(1)
				default:
					t.Errorf("release of %s: %d %s", client, r.status, r.body)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	sampler.Wait()
	got, err := env.Store.DropConsistent(t.Context(), d.ID)
	if err != nil {
		t.Fatal(err)
	}
	valid := 0
	for _, tk := range allTickets(t, env.Store, d.ID) {
		if tk.Status == store.TicketValid {
			valid++
		}
	}
	t.Logf("%d claims, %d releases, %d of %d claimed at the end", claims.Load(), releases.Load(), got.Claimed, qty)
	switch {
	case over.Load():
		t.Fatal("the count went over the quantity")
	case got.Claimed > qty || got.Claimed != valid || int64(valid) != claims.Load()-releases.Load():
		t.Fatalf("claimed %d, %d valid tickets, %d claims - %d releases", got.Claimed, valid, claims.Load(), releases.Load())
	case releases.Load() == 0:
		t.Fatal("no release raced the claims")
	}
}
