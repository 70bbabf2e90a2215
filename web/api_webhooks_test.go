package web_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"shop/handlers"
	"shop/jobs/webhook"
	"shop/store"
	"shop/store/storetest"
	"shop/web"
)

// noLookup keeps a test app's deliverer off the network.
func noLookup(_ storetest.Env, cfg *web.Config) {
	cfg.Webhooks.Client.Lookup = func(context.Context, string) ([]netip.Addr, error) {
		return nil, &net.DNSError{Err: "no lookups in tests", IsNotFound: true}
	}
}

func TestAPIWebhooksRegisterListDelete(t *testing.T) {
	t.Parallel()
	env, c := apiShop(t, noLookup)
	for _, tc := range []struct{ body, field string }{
		{`{"url": "https://partner.example.com/h", "events": ["order.placed"]}`, "events"},
		{`{"url": "https://partner.example.com/h", "events": []}`, "events"},
		{`{"url": "https://partner.example.com/h", "events": ["ticket.claimed", "ticket.claimed"]}`, "events"},
		{`{"url": "http://partner.example.com/h", "events": ["ticket.claimed"]}`, "url"},
		{`{"url": "https://localhost/h", "events": ["ticket.claimed"]}`, "url"},
		{`{"url": "https://127.0.0.1:8443/h", "events": ["ticket.claimed"]}`, "url"},
		{`{"url": "https://169.254.169.254/latest", "events": ["ticket.claimed"]}`, "url"},
		{`{"url": "https://[::ffff:10.0.0.1]/", "events": ["ticket.claimed"]}`, "url"},
		{`{"url": "not a url", "events": ["ticket.claimed"]}`, "url"},
		{`{"url": "https://partner.example.com/h", "events": ["ticket.claimed"], "secret": "mine"}`, "secret"},
	} {
		e := c.do(http.MethodPost, "/api/v1/webhooks", tc.body).want(t, tc.body, http.StatusBadRequest, "bad_request")
		if e.Field != tc.field {
			t.Errorf("%s: field %q, want %q (%s)", tc.body, e.Field, tc.field, e.Error)
		}
	}
	r := c.do(http.MethodPost, "/api/v1/webhooks", `{"url": "https://partner.example.com/h", "events": ["ticket.claimed", "drop.created"]}`)
	r.want(t, "register", http.StatusCreated, "")
	var made handlers.APIWebhook
	r.decode(t, &made)
	if !strings.HasPrefix(made.Secret, "whsec_") || len(made.Secret) < 40 || made.URL != "https://partner.example.com/h" || len(made.Events) != 2 {
		t.Fatalf("made %+v", made)
	}
	if r.header.Get("Location") != "/api/v1/webhooks/"+made.ID {
		t.Fatalf("Location %q", r.header.Get("Location"))
	}
	r = c.do(http.MethodGet, "/api/v1/webhooks", "")
	r.want(t, "list", http.StatusOK, "")
	if strings.Contains(string(r.body), made.Secret) || strings.Contains(string(r.body), `"secret"`) {
		t.Fatalf("the list shows the secret: %s", r.body)
	}
	var list handlers.APIWebhookList
	r.decode(t, &list)
	if len(list.Webhooks) != 1 || list.Webhooks[0].ID != made.ID {
		t.Fatalf("list %+v", list)
	}

	// Another integration sees none of them and cannot delete one.
	other := newAPIClient(t, c.base, newAPIKey(t, env.Store, "other"))
	waitForKey(t, other)
	r = other.do(http.MethodGet, "/api/v1/webhooks", "")
	r.want(t, "other's list", http.StatusOK, "")
	if strings.Contains(string(r.body), made.ID) {
		t.Fatalf("another integration lists it: %s", r.body)
	}
	other.do(http.MethodDelete, "/api/v1/webhooks/"+made.ID, "").want(t, "other deletes", http.StatusNotFound, "not_found")

	c.do(http.MethodDelete, "/api/v1/webhooks/"+made.ID, "").want(t, "delete", http.StatusNoContent, "")
	c.do(http.MethodDelete, "/api/v1/webhooks/"+made.ID, "").want(t, "delete again", http.StatusNotFound, "not_found")
	c.do(http.MethodDelete, "/api/v1/webhooks/no..such", "").want(t, "a bad id", http.StatusNotFound, "not_found")

	for i := range store.MaxWebhooksPerIntegration {
		c.do(http.MethodPost, "/api/v1/webhooks", `{"url": "https://partner.example.com/h`+string(rune('a'+i))+`", "events": ["drop.created"]}`).
			want(t, "register", http.StatusCreated, "")
	}
	c.do(http.MethodPost, "/api/v1/webhooks", `{"url": "https://partner.example.com/z", "events": ["drop.created"]}`).
		want(t, "one too many", http.StatusConflict, "too_many")
}

// hookReceiver records the deliveries an integrator's https endpoint gets.
type hookReceiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got [][]byte
	sig []string
}

func newHookReceiver(t *testing.T) *hookReceiver {
	h := &hookReceiver{}
	h.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.got, h.sig = append(h.got, b), append(h.sig, r.Header.Get(webhook.SignatureHeader))
		h.mu.Unlock()
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// withHooksTo lets the app's deliverer reach h (as partner.example.com),
// and nothing else local.
func withHooksTo(h *hookReceiver) appOption {
	return func(_ storetest.Env, cfg *web.Config) {
		roots := x509.NewCertPool()
		roots.AddCert(h.srv.Certificate())
		cfg.Webhooks.Client = webhook.ClientConfig{RootCAs: roots,
			Allowed: []netip.AddrPort{netip.MustParseAddrPort(h.srv.Listener.Addr().String())},
			Lookup: func(context.Context, string) ([]netip.Addr, error) {
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			}}
		cfg.Webhooks.Every = time.Hour // a delivery within a second can only be the wake-up
	}
}

func (h *hookReceiver) wait(t *testing.T, n int) ([][]byte, []string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		h.mu.Lock()
		got, sig := append([][]byte(nil), h.got...), append([]string(nil), h.sig...)
		h.mu.Unlock()
		if len(got) >= n {
			return got, sig
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries after 5 s, want %d", len(got), n)
		}
	}
}

// A drop made and a ticket claimed through the API reach the
// integration's endpoint within a moment, signed, with the objects as the
// API answered them; the claim is still one request, its transaction one
// item more.
func TestAPIWebhooksDeliverDropCreatedAndTicketClaimed(t *testing.T) {
	t.Parallel()
	rcv := newHookReceiver(t)
	env, c := apiShop(t, withHooksTo(rcv))
	_, port, _ := net.SplitHostPort(rcv.srv.Listener.Addr().String())
	r := c.do(http.MethodPost, "/api/v1/webhooks", `{"url": "https://partner.example.com:`+port+`/shop", "events": ["drop.created", "ticket.claimed"]}`)
	r.want(t, "register", http.StatusCreated, "")
	var hook handlers.APIWebhook
	r.decode(t, &hook)

	d := c.makeDrop(dropBody("Announced", 3))
	r = c.claim(d.ID, "ada")
	r.want(t, "claim", http.StatusCreated, "")
	var ticket json.RawMessage
	r.decode(t, &ticket)
	got, sigs := rcv.wait(t, 2)

	byType := map[string]json.RawMessage{}
	for i, body := range got {
		if err := webhook.Verify(hook.Secret, sigs[i], body, 5*time.Minute, time.Now()); err != nil {
			t.Fatalf("delivery %d: %v", i, err)
		}
		var ev struct {
			ID, Type string
			Data     json.RawMessage
		}
		if err := json.Unmarshal(body, &ev); err != nil {
			t.Fatal(err)
		}
		byType[ev.Type] = ev.Data
	}
	if string(byType["ticket.claimed"]) != strings.TrimSpace(string(ticket)) {
		t.Fatalf("ticket.claimed data %s, the API answered %s", byType["ticket.claimed"], ticket)
	}
	var dropData handlers.APIDrop
	if err := json.Unmarshal(byType["drop.created"], &dropData); err != nil || dropData.ID != d.ID || dropData.Title != "Announced" {
		t.Fatalf("drop.created data %s", byType["drop.created"])
	}

	// The claim's cost with an endpoint wanting it: the same one
	// transaction, one item more (the event).
	ctx := context.Background()
	counter := &storetest.Counter{}
	client, err := store.NewClient(ctx, store.ClientConfig{Endpoint: env.Endpoint}, counter)
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(client, env.Table) // counted apart from the app's background work
	for _, tc := range []struct {
		announce *store.Announcement[store.Ticket]
		items    int
	}{
		{nil, 2},
		{&store.Announcement[store.Ticket]{Integration: "partner", Endpoints: []string{hook.ID}, Data: func(t store.Ticket) any { return t.Client }}, 3},
	} {
		counter.Reset()
		if _, err := st.Claim(ctx, store.ClaimRequest{DropID: d.ID, Client: "partner:m" + string(rune('0'+tc.items)), Announce: tc.announce}, false); err != nil {
			t.Fatal(err)
		}
		if ops := counter.Ops(); counter.Total() != 1 || ops["TransactWriteItems"] != 1 {
			t.Fatalf("a claim with %d items made %v", tc.items, ops)
		}
	}
}
