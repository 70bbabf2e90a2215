package webhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"shop/jobs/webhook"
	"shop/store"
	"shop/store/storetest"
)

// clock is a test clock the store and the deliverer read.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// receiver is an integrator's endpoint over TLS on 127.0.0.1.
type receiver struct {
	srv    *httptest.Server
	status atomic.Int32
	mu     sync.Mutex
	got    []received
}

type received struct {
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{}
	r.status.Store(http.StatusOK)
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{req.Header.Clone(), b})
		r.mu.Unlock()
		w.WriteHeader(int(r.status.Load()))
		fmt.Fprint(w, strings.Repeat("x", 300)) // longer than what an attempt keeps
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) received() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

func (r *receiver) port() string {
	_, p, _ := net.SplitHostPort(r.srv.Listener.Addr().String())
	return p
}

// clientFor trusts ok's certificate and lets only ok's address through;
// every name the test uses resolves to 127.0.0.1.
func clientFor(ok *receiver) *http.Client {
	roots := x509.NewCertPool()
	roots.AddCert(ok.srv.Certificate())
	return webhook.NewClient(webhook.ClientConfig{
		Lookup: func(_ context.Context, host string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		},
		Allowed: []netip.AddrPort{netip.MustParseAddrPort(ok.srv.Listener.Addr().String())},
		RootCAs: roots,
	})
}

type fixture struct {
	st    *store.Store
	clock *clock
	ctx   context.Context
}

func newFixture(t *testing.T) fixture {
	env := storetest.New(t)
	c := &clock{t: time.Now().UTC().Truncate(time.Millisecond)}
	st := store.New(env.Client, env.Table, store.WithClock(c.Now))
	ctx := context.Background()
	if _, _, _, err := st.CreateIntegration(ctx, "partner"); err != nil {
		t.Fatal(err)
	}
	return fixture{st: st, clock: c, ctx: ctx}
}

// drop makes a drop of the integration that announces drop.created to hooks.
func (f fixture) drop(t *testing.T, hooks ...string) store.Drop {
	t.Helper()
	now := f.clock.Now()
	d, err := f.st.CreateDrop(f.ctx, store.NewDrop{Title: "Hooked", Quantity: 5, Opens: now, Closes: now.Add(time.Hour),
		Audience: store.IntegrationAudience("partner"), CreatedBy: store.IntegrationAudience("partner"),
		Announce: &store.Announcement[store.Drop]{Integration: "partner", Endpoints: hooks, Data: func(d store.Drop) any {
			return map[string]any{"id": d.ID, "title": d.Title}
		}}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (f fixture) event(t *testing.T) store.WebhookEvent {
	t.Helper()
	due, err := f.st.DueWebhookEvents(f.ctx, 10)
	if err != nil || len(due) != 1 {
		t.Fatalf("due events %v, %v", due, err)
	}
	return due[0]
}

// A refused delivery is retried after 5 s, 30 s, 2 min, 10 min, 1 h, then
// every 4 hours, never before its time, each attempt logged; three days
// after its event it is failed and leaves the queue.
func TestDeliveryRetriesWithBackoffThenFails(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	rcv := newReceiver(t)
	rcv.status.Store(http.StatusInternalServerError)
	hook, err := f.st.CreateWebhook(f.ctx, "partner", "https://partner.example.com:"+rcv.port()+"/hooks", []string{store.EventDropCreated})
	if err != nil {
		t.Fatal(err)
	}
	d := webhook.New(f.st, webhook.Config{Client: clientFor(rcv), Jitter: func() float64 { return 0 }, Log: quiet})
	f.drop(t, hook.ID)
	created := f.clock.Now()
	evID := f.event(t).ID

	wantWaits := []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour, 4 * time.Hour, 4 * time.Hour}
	attempts := 0
	for {
		sent, failed, err := d.DeliverDue(f.ctx)
		if err != nil || sent != 0 || failed != 1 {
			t.Fatalf("attempt %d: sent %d failed %d, %v", attempts+1, sent, failed, err)
		}
		attempts++
		ev, err := f.st.WebhookEvent(f.ctx, evID)
		if err != nil {
			t.Fatal(err)
		}
		dl := ev.Deliveries[hook.ID]
		if dl.Attempts != attempts {
			t.Fatalf("attempts %d, want %d", dl.Attempts, attempts)
		}
		if dl.Status == store.DeliveryFailed {
			break
		}
		if attempts <= len(wantWaits) {
			if wait := dl.NextAt.Sub(f.clock.Now()); wait != wantWaits[attempts-1] {
				t.Fatalf("after attempt %d the next is in %v, want %v", attempts, wait, wantWaits[attempts-1])
			}
		}
		// Not before its time: a second before, nothing is due.
		f.clock.Set(dl.NextAt.Add(-time.Second))
		if sent, failed, err := d.DeliverDue(f.ctx); sent+failed != 0 || err != nil {
			t.Fatalf("delivered before its time: %d %d %v", sent, failed, err)
		}
		f.clock.Set(dl.NextAt)
		if attempts > 40 {
			t.Fatal("never failed")
		}
	}
	if last := f.clock.Now(); last.After(created.Add(72*time.Hour)) || last.Before(created.Add(68*time.Hour)) {
		t.Fatalf("last attempt %v after the event, want within three days and near their end", last.Sub(created))
	}
	if got := len(rcv.received()); got != attempts {
		t.Fatalf("the endpoint got %d POSTs for %d attempts", got, attempts)
	}
	t.Logf("failed after %d attempts over %v", attempts, f.clock.Now().Sub(created))
	if due, err := f.st.DueWebhookEvents(f.ctx, 10); err != nil || len(due) != 0 {
		t.Fatalf("a failed event is still due: %v %v", due, err)
	}
	log, err := f.st.WebhookAttempts(f.ctx, hook.ID, 100, "")
	if err != nil || len(log.Items) != attempts {
		t.Fatalf("logged %d attempts, want %d: %v", len(log.Items), attempts, err)
	}
	a := log.Items[0]
	if a.Status != http.StatusInternalServerError || len(a.Answer) != webhook.AnswerBytes || a.Duration <= 0 || !a.At.Equal(f.clock.Now()) {
		t.Fatalf("attempt logged as %+v", a)
	}
}

// Delivered over https to the allowed test server, signed so that an
// integrator's few lines verify it; refused without a connection to
// localhost, a name resolving to 127.0.0.1 and the metadata address, on
// the same client (only the test server's address is allowed).
func TestDeliverySignedAndSSRFRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.clock.Set(time.Now().UTC().Truncate(time.Millisecond)) // the integrator checks against its own clock
	ok, other := newReceiver(t), newReceiver(t)
	good, err := f.st.CreateWebhook(f.ctx, "partner", "https://partner.example.com:"+ok.port()+"/hooks", []string{store.EventDropCreated})
	if err != nil {
		t.Fatal(err)
	}
	// Endpoints the API would refuse, made as if a name changed where it
	// points since it was registered.
	var bad []store.WebhookEndpoint
	for _, u := range []string{"https://localhost:" + other.port() + "/", "https://rebound.example.com:" + other.port() + "/", "https://169.254.169.254/latest/meta-data/"} {
		e, err := f.st.CreateWebhook(f.ctx, "partner", u, []string{store.EventDropCreated})
		if err != nil {
			t.Fatal(err)
		}
		bad = append(bad, e)
	}
	d := webhook.New(f.st, webhook.Config{Client: clientFor(ok), Jitter: func() float64 { return 0 }, Log: quiet})
	ids := []string{good.ID}
	for _, e := range bad {
		ids = append(ids, e.ID)
	}
	drop := f.drop(t, ids...)
	sent, failed, err := d.DeliverDue(f.ctx)
	if err != nil || sent != 1 || failed != 3 {
		t.Fatalf("sent %d failed %d, %v", sent, failed, err)
	}
	if n := len(other.received()); n != 0 {
		t.Fatalf("the refused server got %d requests", n)
	}
	for _, e := range bad {
		log, err := f.st.WebhookAttempts(f.ctx, e.ID, 10, "")
		if err != nil || len(log.Items) != 1 || log.Items[0].Status != 0 || !strings.Contains(log.Items[0].Answer, "not a public address") {
			t.Fatalf("%s: attempts %+v, %v", e.URL, log.Items, err)
		}
	}

	got := ok.received()
	if len(got) != 1 {
		t.Fatalf("the endpoint got %d requests", len(got))
	}
	// As an integrator verifies it, with nothing of the shop's code.
	if err := verifyAsIntegrator(good.Secret, got[0].header.Get("Shop-Signature"), got[0].body, 5*time.Minute); err != nil {
		t.Fatalf("signature: %v (%s)", err, got[0].header.Get("Shop-Signature"))
	}
	if err := verifyAsIntegrator("whsec_wrong", got[0].header.Get("Shop-Signature"), got[0].body, 5*time.Minute); err == nil {
		t.Fatal("a wrong secret verifies")
	}
	var ev struct {
		ID, Type string
		Created  time.Time
		Data     struct{ ID, Title string }
	}
	if err := json.Unmarshal(got[0].body, &ev); err != nil || ev.Type != store.EventDropCreated || !strings.HasPrefix(ev.ID, "evt_") ||
		ev.Data.ID != drop.ID || ev.Data.Title != "Hooked" || ev.Created.IsZero() || got[0].header.Get("Content-Type") != "application/json" {
		t.Fatalf("event %+v, %v: %s", ev, err, got[0].body)
	}
	// Delivered once: nothing more goes.
	if sent, _, err := d.DeliverDue(f.ctx); sent != 0 || err != nil {
		t.Fatalf("again: sent %d, %v", sent, err)
	}
}

// verifyAsIntegrator is docs/api.md's check (Webhooks), written out.
func verifyAsIntegrator(secret, header string, body []byte, tolerance time.Duration) error {
	var ts, sig string
	for _, part := range strings.Split(header, ",") {
		if v, ok := strings.CutPrefix(part, "t="); ok {
			ts = v
		} else if v, ok := strings.CutPrefix(part, "v1="); ok {
			sig = v
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return err
	}
	if d := time.Since(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return errors.New("too old")
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := hex.EncodeToString(mac.Sum(nil))
	if !hmac.Equal([]byte(sig), []byte(want)) {
		return errors.New("bad signature")
	}
	return nil
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))
