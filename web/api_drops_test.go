package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"shop/handlers"
	"shop/store"
)

// The drops API beyond making and claiming: repeat claims, one client's
// ticket, the key's drops, closing and cancelling, idempotent making.

// wantOps checks the DynamoDB requests since the counter's last reset.
func wantOps(t *testing.T, what string, got map[string]int, want map[string]int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: requests %v, want %v", what, got, want)
	}
	for op, n := range want {
		if got[op] != n {
			t.Fatalf("%s: requests %v, want %v", what, got, want)
		}
	}
}

func TestAPIRepeatClaimAnswersTheTicket(t *testing.T) {
	t.Parallel()
	env, c := apiShop(t, withoutBackgroundReads)
	d := c.makeDrop(dropBody("Two", 2))
	first := c.claim(d.ID, "c1")
	first.want(t, "first claim", http.StatusCreated, "")

	// Before the sell-out: the claim's transaction fails on the ticket
	// and its old image is the answer, with no read more.
	env.Counter.Reset()
	again := c.claim(d.ID, "c1")
	again.want(t, "repeat claim", http.StatusOK, "")
	if string(again.body) != string(first.body) {
		t.Fatalf("repeat answered %s, the first %s", again.body, first.body)
	}
	wantOps(t, "a repeat claim before the sell-out", env.Counter.Ops(), map[string]int{"TransactWriteItems": 1})

	c.claim(d.ID, "c2").want(t, "last ticket", http.StatusCreated, "")
	c.claim(d.ID, "c3").want(t, "after the last", http.StatusConflict, "sold_out") // the gate learns it
	// and reads who holds the drop's tickets, once, in the background:
	// then a claim without a ticket costs no request at all.
	for began := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		env.Counter.Reset()
		c.claim(d.ID, "c4").want(t, "no ticket after the sell-out", http.StatusConflict, "sold_out")
		if env.Counter.Total() == 0 {
			break
		}
		if time.Since(began) > 10*time.Second {
			t.Fatalf("a claim without a ticket still costs %v 10 s after the sell-out", env.Counter.Ops())
		}
	}

	// A holder's: one GetItem of its ticket, never a transaction.
	for _, client := range []string{"c1", "c2"} {
		env.Counter.Reset()
		r := c.claim(d.ID, client)
		r.want(t, "a holder after the sell-out", http.StatusOK, "")
		var tk handlers.APITicket
		if r.decode(t, &tk); tk.Client != "partner:"+client || tk.Status != "valid" {
			t.Fatalf("ticket %+v", tk)
		}
		wantOps(t, "a holder's claim after the sell-out", env.Counter.Ops(), map[string]int{"GetItem": 1})
	}

	// Closed: the holder still gets its ticket; cancelled: its ticket is void.
	c.do(http.MethodPost, "/api/v1/drops/"+d.ID+"/close", "").want(t, "close", http.StatusOK, "")
	c.claim(d.ID, "c1").want(t, "a holder of a closed drop", http.StatusOK, "")
	c.claim(d.ID, "c5").want(t, "no ticket of a closed drop", http.StatusConflict, "closed")
	x := c.makeDrop(dropBody("Cancelled", 3))
	c.claim(x.ID, "x1").want(t, "claim", http.StatusCreated, "")
	c.do(http.MethodPost, "/api/v1/drops/"+x.ID+"/cancel", "").want(t, "cancel", http.StatusOK, "")
	c.claim(x.ID, "x1").want(t, "a holder of a cancelled drop", http.StatusConflict, "cancelled")
	if n := len(allTickets(t, env.Store, d.ID)); n != 2 {
		t.Fatalf("%d tickets, want 2", n)
	}
}

// A client's claims at once: one transaction makes the ticket, every
// other answers it (200), none is refused.
func TestAPIRepeatClaimsAtOnce(t *testing.T) {
	t.Parallel()
	env, c := apiShop(t)
	d := c.makeDrop(dropBody("Once", 5))
	res := claimBurst(t, c, d.ID, 3, 4)
	if res.status[http.StatusCreated] != 3 || res.status[http.StatusOK]+res.reasons["rate_limited"] != 9 {
		t.Fatalf("3 clients x 4 claims: %v %v, want 3 made and 9 answered the ticket (or slowed)", res.status, res.reasons)
	}
	if n := len(allTickets(t, env.Store, d.ID)); n != 3 {
		t.Fatalf("%d tickets, want 3", n)
	}
}

func TestAPIClientTicket(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	partner := newAPIClient(t, s.base, newAPIKey(t, s.env.Store, "partner"))
	other := newAPIClient(t, s.base, newAPIKey(t, s.env.Store, "other"))
	waitForKey(t, partner)
	waitForKey(t, other)
	d := partner.makeDrop(dropBody("Ticketed", 5))
	claimed := partner.claim(d.ID, "c:1")
	claimed.want(t, "claim", http.StatusCreated, "")

	r := partner.do(http.MethodGet, "/api/v1/drops/"+d.ID+"/tickets/c:1", "")
	r.want(t, "the client's ticket", http.StatusOK, "")
	if string(r.body) != string(claimed.body) {
		t.Fatalf("ticket %s, claimed %s", r.body, claimed.body)
	}
	for _, tc := range []struct {
		name string
		c    *apiClient
		path string
	}{
		{"a client without a ticket", partner, "/api/v1/drops/" + d.ID + "/tickets/c:2"},
		{"not a client id", partner, "/api/v1/drops/" + d.ID + "/tickets/a%20b"},
		{"a client too long", partner, "/api/v1/drops/" + d.ID + "/tickets/" + strings.Repeat("x", 65)},
		{"no such drop", partner, "/api/v1/drops/no-such-drop/tickets/c:1"},
		{"another integration's drop", other, "/api/v1/drops/" + d.ID + "/tickets/c:1"},
	} {
		tc.c.do(http.MethodGet, tc.path, "").want(t, tc.name, http.StatusNotFound, "not_found")
	}
	// Another integration's client of the same name is another client.
	od := other.makeDrop(dropBody("Other's", 5))
	other.claim(od.ID, "c:1").want(t, "other's claim", http.StatusCreated, "")
	var tk handlers.APITicket
	other.do(http.MethodGet, "/api/v1/drops/"+od.ID+"/tickets/c:1", "").decode(t, &tk)
	if tk.Client != "other:c:1" {
		t.Fatalf("other's ticket %+v", tk)
	}
}

// listDrops pages through GET /api/v1/drops with query q.
func (c *apiClient) listDrops(q string, limit int) []handlers.APIDrop {
	c.t.Helper()
	var out []handlers.APIDrop
	after := ""
	for range 100 {
		r := c.do(http.MethodGet, fmt.Sprintf("/api/v1/drops?limit=%d&after=%s%s", limit, after, q), "")
		r.want(c.t, "list drops", http.StatusOK, "")
		var page handlers.APIDropList
		r.decode(c.t, &page)
		out = append(out, page.Drops...)
		if page.Next == "" {
			return out
		}
		after = page.Next
	}
	c.t.Fatal("the list does not end")
	return nil
}

func TestAPIListDrops(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	partner := newAPIClient(t, s.base, newAPIKey(t, s.env.Store, "partner"))
	other := newAPIClient(t, s.base, newAPIKey(t, s.env.Store, "other"))
	waitForKey(t, partner)
	waitForKey(t, other)

	var made []string // newest last
	mk := func(body string) handlers.APIDrop {
		d := partner.makeDrop(body)
		made = append(made, d.ID)
		time.Sleep(2 * time.Millisecond) // distinct creation times
		return d
	}
	open := mk(dropBody("Open", 5))
	soldOut := mk(dropBody("Sold out", 1))
	partner.claim(soldOut.ID, "c1").want(t, "claim", http.StatusCreated, "")
	upcoming := mk(fmt.Sprintf(`{"title": "Later", "quantity": 5, "opens": %q, "closes": %q}`,
		rfc3339(time.Now().Add(time.Hour)), rfc3339(time.Now().Add(2*time.Hour))))
	closed := mk(dropBody("Closed", 5))
	partner.do(http.MethodPost, "/api/v1/drops/"+closed.ID+"/close", "").want(t, "close", http.StatusOK, "")
	cancelled := mk(dropBody("Cancelled", 5))
	partner.do(http.MethodPost, "/api/v1/drops/"+cancelled.ID+"/cancel", "").want(t, "cancel", http.StatusOK, "")
	big := mk(dropBody("Big", 2500)) // counters: its count is read whole
	partner.claim(big.ID, "c1").want(t, "claim the big one", http.StatusCreated, "")
	for range 3 {
		mk(dropBody("More", 5))
	}
	other.makeDrop(dropBody("Other's", 5))

	all := partner.listDrops("", 2)
	var ids []string
	for _, d := range all {
		ids = append(ids, d.ID)
	}
	want := slices.Clone(made)
	slices.Reverse(want)
	if !slices.Equal(ids, want) {
		t.Fatalf("listed %v, want newest first %v", ids, want)
	}
	byID := map[string]handlers.APIDrop{}
	for _, d := range all {
		byID[d.ID] = d
	}
	if b := byID[big.ID]; b.Claimed != 1 || b.Status != "open" {
		t.Fatalf("the big drop listed %+v", b)
	}
	for status, wantIDs := range map[string][]string{
		"open": nil, "sold_out": {soldOut.ID}, "upcoming": {upcoming.ID}, "closed": {closed.ID}, "cancelled": {cancelled.ID},
	} {
		var got []string
		for _, d := range partner.listDrops("&status="+status, 1) {
			if d.Status != status {
				t.Fatalf("?status=%s listed %+v", status, d)
			}
			got = append(got, d.ID)
		}
		if status == "open" {
			if len(got) != 5 || !slices.Contains(got, open.ID) || !slices.Contains(got, big.ID) {
				t.Fatalf("open drops %v", got)
			}
			continue
		}
		if !slices.Equal(got, wantIDs) {
			t.Fatalf("?status=%s: %v, want %v", status, got, wantIDs)
		}
	}
	if got := other.listDrops("", 100); len(got) != 1 || got[0].Title != "Other's" {
		t.Fatalf("other's list %+v", got)
	}

	var page handlers.APIDropList
	partner.do(http.MethodGet, "/api/v1/drops?limit=1", "").decode(t, &page)
	for _, tc := range []struct{ name, q, field string }{
		{"a status that is none", "?status=gone", "status"},
		{"a limit too big", "?limit=101", "limit"},
		{"a limit of nothing", "?limit=0", "limit"},
		{"a cursor that is none", "?after=nope", "after"},
	} {
		r := partner.do(http.MethodGet, "/api/v1/drops"+tc.q, "")
		if e := r.want(t, tc.name, http.StatusBadRequest, "bad_request"); e.Field != tc.field {
			t.Fatalf("%s: field %q", tc.name, e.Field)
		}
	}
	other.do(http.MethodGet, "/api/v1/drops?after="+page.Next, "").want(t, "another integration's cursor", http.StatusBadRequest, "bad_request")
}

func TestAPICloseAndCancel(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	partner := newAPIClient(t, s.base, newAPIKey(t, s.env.Store, "partner"))
	other := newAPIClient(t, s.base, newAPIKey(t, s.env.Store, "other"))
	waitForKey(t, partner)
	waitForKey(t, other)
	d := partner.makeDrop(dropBody("To close", 5))
	x := partner.makeDrop(dropBody("To cancel", 5))
	for _, id := range []string{d.ID, x.ID} {
		for _, action := range []string{"close", "cancel"} {
			other.do(http.MethodPost, "/api/v1/drops/"+id+"/"+action, "").want(t, "another integration's drop: "+action, http.StatusNotFound, "not_found")
		}
	}
	partner.do(http.MethodPost, "/api/v1/drops/no-such-drop/close", "").want(t, "no such drop", http.StatusNotFound, "not_found")

	partner.claim(d.ID, "c1").want(t, "claim", http.StatusCreated, "")
	for i := range 2 { // again: the same answer
		r := partner.do(http.MethodPost, "/api/v1/drops/"+d.ID+"/close", "")
		r.want(t, "close", http.StatusOK, "")
		var got handlers.APIDrop
		if r.decode(t, &got); got.ID != d.ID || got.Status != "closed" || got.Claimed != 1 {
			t.Fatalf("close #%d: %+v", i+1, got)
		}
	}
	partner.claim(d.ID, "c2").want(t, "claim a closed drop", http.StatusConflict, "closed")
	partner.do(http.MethodPost, "/api/v1/drops/"+d.ID+"/cancel", "").want(t, "cancel a closed drop", http.StatusConflict, "closed")
	if tk, err := s.env.Store.Ticket(ctx, d.ID, "partner:c1"); err != nil || tk.Status != store.TicketValid {
		t.Fatalf("a closed drop's ticket %+v %v", tk, err)
	}

	for _, client := range []string{"c1", "c2", "c3"} {
		partner.claim(x.ID, client).want(t, "claim", http.StatusCreated, "")
	}
	for i := range 2 {
		r := partner.do(http.MethodPost, "/api/v1/drops/"+x.ID+"/cancel", "")
		r.want(t, "cancel", http.StatusOK, "")
		var got handlers.APIDrop
		if r.decode(t, &got); got.Status != "cancelled" {
			t.Fatalf("cancel #%d: %+v", i+1, got)
		}
	}
	for _, tk := range allTickets(t, s.env.Store, x.ID) {
		if tk.Status != store.TicketVoid {
			t.Fatalf("ticket %+v of a cancelled drop", tk)
		}
	}
	var tk handlers.APITicket
	partner.do(http.MethodGet, "/api/v1/drops/"+x.ID+"/tickets/c2", "").decode(t, &tk)
	if tk.Status != "void" {
		t.Fatalf("ticket %+v", tk)
	}
	partner.do(http.MethodPost, "/api/v1/drops/"+x.ID+"/close", "").want(t, "close a cancelled drop", http.StatusConflict, "cancelled")
	partner.claim(x.ID, "c9").want(t, "claim a cancelled drop", http.StatusConflict, "cancelled")
}

func TestAPIIdempotentCreate(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	secret := newAPIKey(t, s.env.Store, "partner")
	partner := newAPIClient(t, s.base, secret)
	waitForKey(t, partner)
	opens, closes := rfc3339(time.Now().Add(time.Hour)), rfc3339(time.Now().Add(2*time.Hour))
	body := fmt.Sprintf(`{"title": "Once", "quantity": 5, "opens": %q, "closes": %q}`, opens, closes)
	// The same decoded body, spaced and ordered otherwise.
	same := fmt.Sprintf(`{"closes":%q,"opens":%q,"quantity":5,"title":"Once"}`, closes, opens)

	first := partner.do(http.MethodPost, "/api/v1/drops", body, "Idempotency-Key", "k-1")
	first.want(t, "make", http.StatusCreated, "")
	var d handlers.APIDrop
	first.decode(t, &d)
	partner.claim(d.ID, "c1") // not open: the answer stays the first
	for _, b := range []string{body, same} {
		r := partner.do(http.MethodPost, "/api/v1/drops", b, "Idempotency-Key", "k-1")
		r.want(t, "repeat", http.StatusCreated, "")
		if string(r.body) != string(first.body) || r.header.Get("Location") != first.header.Get("Location") {
			t.Fatalf("repeat answered %s %v, the first %s", r.body, r.header.Get("Location"), first.body)
		}
	}
	other := fmt.Sprintf(`{"title": "Twice", "quantity": 5, "opens": %q, "closes": %q}`, opens, closes)
	partner.do(http.MethodPost, "/api/v1/drops", other, "Idempotency-Key", "k-1").want(t, "another body", http.StatusConflict, "idempotency_key_reused")
	partner.do(http.MethodPost, "/api/v1/drops", other, "Idempotency-Key", "k-2").want(t, "another key", http.StatusCreated, "")
	partner.do(http.MethodPost, "/api/v1/drops", body).want(t, "no key: another drop", http.StatusCreated, "")
	for _, bad := range []string{strings.Repeat("k", 256), "a b", "é"} {
		partner.do(http.MethodPost, "/api/v1/drops", body, "Idempotency-Key", bad).want(t, "key "+bad, http.StatusBadRequest, "bad_request")
	}

	// Scoped to the API key: another key's same words make another drop,
	// another integration's too.
	_, secret2, err := s.env.Store.IssueAPIKey(ctx, "partner")
	if err != nil {
		t.Fatal(err)
	}
	second := newAPIClient(t, s.base, secret2)
	waitForKey(t, second)
	var d2 handlers.APIDrop
	second.do(http.MethodPost, "/api/v1/drops", body, "Idempotency-Key", "k-1").decode(t, &d2)
	if d2.ID == "" || d2.ID == d.ID {
		t.Fatalf("another key's Idempotency-Key gave %+v", d2)
	}

	// Many at once with one key: one drop.
	var wg sync.WaitGroup
	var mu sync.Mutex
	ids := map[string]int{}
	race := fmt.Sprintf(`{"title": "Raced", "quantity": 5, "opens": %q, "closes": %q}`, opens, closes)
	for range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := partner.try(http.MethodPost, "/api/v1/drops", race, "Idempotency-Key", "race")
			mu.Lock()
			defer mu.Unlock()
			var got handlers.APIDrop
			if err != nil || r.status != http.StatusCreated || json.Unmarshal(r.body, &got) != nil {
				t.Errorf("raced make: %v %d %s", err, r.status, r.body)
				return
			}
			ids[got.ID]++
		}()
	}
	wg.Wait()
	var raced int
	for _, dr := range partner.listDrops("", 100) {
		if dr.Title == "Raced" {
			raced++
		}
	}
	if len(ids) != 1 || raced != 1 {
		t.Fatalf("24 makes with one key: answers %v, %d drops stored, want one", ids, raced)
	}
}
