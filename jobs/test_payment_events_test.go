package jobs_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"shop/jobs"
	"shop/store"
	"shop/store/payment"
	"shop/store/storetest"
)

// webhookReceiver stands for the shop's /webhooks/test: it checks each
// delivery's signature as the route does and keeps the events it took,
// in order; it refuses while failing > 0.
type webhookReceiver struct {
	provider *payment.TestProvider
	srv      *httptest.Server

	mu      sync.Mutex
	failing int
	tries   int
	got     []payment.Event
}

func newWebhookReceiver(t *testing.T, p *payment.TestProvider) *webhookReceiver {
	r := &webhookReceiver{provider: p}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		ev, err := p.ParseEvent(body, req.Header.Get(payment.TestSignatureHeader))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		r.tries++
		if r.failing > 0 {
			r.failing--
			http.Error(w, "down for a moment", http.StatusServiceUnavailable)
			return
		}
		r.got = append(r.got, ev)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *webhookReceiver) received() (tries int, got []payment.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tries, append([]payment.Event(nil), r.got...)
}

// eventsBench is a test provider over a table whose clock the test moves,
// a receiver, and the delivery between them.
type eventsBench struct {
	env      storetest.Env
	clock    *storetest.Clock
	provider *payment.TestProvider
	receiver *webhookReceiver
	delivery *jobs.TestPaymentEvents
}

func newEventsBench(t *testing.T) *eventsBench {
	t.Helper()
	clock := storetest.NewClock(time.Now().UTC().Truncate(time.Millisecond), 0)
	env := storetest.New(t, store.WithClock(clock.Now), store.WithListShards(4))
	p, err := payment.NewTestProvider(ctxT(t), env.Store, "http://shop.test")
	if err != nil {
		t.Fatal(err)
	}
	p.Now = clock.Now
	r := newWebhookReceiver(t, p)
	d := &jobs.TestPaymentEvents{Store: env.Store, Provider: p, URL: r.srv.URL, Log: slog.New(slog.DiscardHandler), Jitter: func() float64 { return 0 }}
	return &eventsBench{env: env, clock: clock, provider: p, receiver: r, delivery: d}
}

// paid opens a session of cents and pays it: one checkout.session.completed.
func (b *eventsBench) paid(t *testing.T, key string, cents int64) payment.CheckoutSession {
	t.Helper()
	ctx := ctxT(t)
	s, err := b.provider.StartCheckout(ctx, payment.CheckoutRequest{Mode: payment.ModePayment, Amount: store.Money{Amount: cents, Currency: "EUR"},
		SuccessURL: "http://shop.test/ok", Key: key, ExpiresAt: b.clock.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.provider.PayCheckout(ctx, s.ID, payment.CardForm{Number: payment.CardSucceeds, Expiry: "12/40", CVC: "123", Name: "Ada"}); err != nil {
		t.Fatal(err)
	}
	return s
}

func (b *eventsBench) run(t *testing.T) jobs.EventCounts {
	t.Helper()
	n, err := b.delivery.DeliverDue(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A webhook that refuses gets the event again after its backoff, signed
// anew, until it takes it; then it is no longer due.
func TestTestPaymentEventsAreRetriedUntilTaken(t *testing.T) {
	t.Parallel()
	b := newEventsBench(t)
	s := b.paid(t, "k1", 1200)
	b.receiver.failing = 2
	if n := b.run(t); n.Failed != 1 || n.Delivered != 0 {
		t.Fatalf("first run: %+v", n)
	}
	if n := b.run(t); n != (jobs.EventCounts{}) {
		t.Fatalf("run again before the backoff: %+v", n)
	}
	b.clock.Set(b.clock.Now().Add(time.Minute)) // the first retry's wait (no jitter)
	if n := b.run(t); n.Failed != 1 {
		t.Fatalf("second try: %+v", n)
	}
	b.clock.Set(b.clock.Now().Add(time.Minute))
	if n := b.run(t); n.Failed+n.Delivered != 0 {
		t.Fatalf("third try came before its two minutes: %+v", n)
	}
	b.clock.Set(b.clock.Now().Add(time.Minute))
	if n := b.run(t); n.Delivered != 1 {
		t.Fatalf("third try: %+v", n)
	}
	tries, got := b.receiver.received()
	if tries != 3 || len(got) != 1 || got[0].Type != payment.EventCheckoutCompleted || got[0].Session.ID != s.ID {
		t.Fatalf("%d tries, took %+v", tries, got)
	}
	ev, err := b.env.Store.TestPayEvent(ctxT(t), got[0].ID)
	if err != nil || ev.Attempts != 3 || ev.DeliveredAt.IsZero() || ev.LastError != "" {
		t.Fatalf("the event after: %+v, %v", ev, err)
	}
	b.clock.Set(b.clock.Now().Add(time.Hour))
	if n := b.run(t); n != (jobs.EventCounts{}) {
		t.Fatalf("a delivered event went again: %+v", n)
	}
}

// One webhook that never answers: after three days of tries the event
// is given up and leaves the due list.
func TestTestPaymentEventsAreGivenUp(t *testing.T) {
	t.Parallel()
	b := newEventsBench(t)
	b.paid(t, "k1", 1200)
	b.receiver.failing = 1 << 30
	start := b.clock.Now()
	runs := 0
	for b.clock.Now().Before(start.Add(73 * time.Hour)) {
		b.run(t)
		runs++
		b.clock.Set(b.clock.Now().Add(time.Hour))
	}
	events, _, err := b.env.Store.TestPayDue(ctxT(t), 10)
	if err != nil || len(events) != 0 {
		t.Fatalf("still due after three days: %v, %v", events, err)
	}
	tries, _ := b.receiver.received()
	if tries < 70 || tries > runs {
		t.Fatalf("%d tries in %d runs", tries, runs)
	}
}

// The tests' hook: an event held comes after the ones made later
// (reordered), one sent twice reaches the webhook twice, one dropped
// never does and is not due again.
func TestTestPaymentEventsCanBeHeldDuplicatedAndDropped(t *testing.T) {
	t.Parallel()
	b := newEventsBench(t)
	first, second, third := b.paid(t, "k1", 100), b.paid(t, "k2", 200), b.paid(t, "k3", 300)
	of := func(ev store.TestPayEvent) string {
		for _, s := range []payment.CheckoutSession{first, second, third} {
			if strings.Contains(ev.Body, s.ID) {
				return s.ID
			}
		}
		return ""
	}
	b.delivery.Filter = func(ev store.TestPayEvent) jobs.EventDelivery {
		switch of(ev) {
		case first.ID:
			return jobs.HoldEvent
		case second.ID:
			return jobs.DeliverEventTwice
		}
		return jobs.DropEvent
	}
	if n := b.run(t); n != (jobs.EventCounts{Delivered: 1, Held: 1, Dropped: 1}) {
		t.Fatalf("first run: %+v", n)
	}
	b.delivery.Filter = nil
	if n := b.run(t); n != (jobs.EventCounts{Delivered: 1}) {
		t.Fatalf("second run: %+v", n)
	}
	if n := b.run(t); n != (jobs.EventCounts{}) {
		t.Fatalf("third run: %+v", n)
	}
	_, got := b.receiver.received()
	var order []string
	for _, ev := range got {
		order = append(order, ev.Session.ID)
	}
	if len(order) != 3 || order[0] != second.ID || order[1] != second.ID || order[2] != first.ID || got[0].ID != got[1].ID {
		t.Fatalf("the webhook took %v (first %s, second %s, third %s)", order, first.ID, second.ID, third.ID)
	}
}

// A session past its time is expired by the delivery, whose next run
// delivers its checkout.session.expired.
func TestTestPaymentEventsExpireSessionsPastTheirTime(t *testing.T) {
	t.Parallel()
	b := newEventsBench(t)
	ctx := ctxT(t)
	s, err := b.provider.StartCheckout(ctx, payment.CheckoutRequest{Mode: payment.ModePayment, Amount: store.Money{Amount: 500, Currency: "EUR"},
		SuccessURL: "http://shop.test/ok", Key: "late", ExpiresAt: b.clock.Now().Add(30 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if n := b.run(t); n != (jobs.EventCounts{}) {
		t.Fatalf("before its time: %+v", n)
	}
	b.clock.Set(s.ExpiresAt)
	if n := b.run(t); n.Expired != 1 {
		t.Fatalf("at its time: %+v", n)
	}
	if n := b.run(t); n.Delivered != 1 || n.Expired != 0 {
		t.Fatalf("the run after: %+v", n)
	}
	_, got := b.receiver.received()
	if len(got) != 1 || got[0].Type != payment.EventCheckoutExpired || got[0].Session.ID != s.ID || got[0].Session.Paid {
		t.Fatalf("the webhook took %+v", got)
	}
	if _, err := b.provider.PayCheckout(ctx, s.ID, payment.CardForm{Number: payment.CardSucceeds, Expiry: "12/40", CVC: "123"}); !errors.Is(err, payment.ErrCheckoutExpired) {
		t.Fatalf("paying it after: %v", err)
	}
}

// Two replicas' schedulers deliver each event once: the job's lease lets
// one tick run at a time.
func TestTwoSchedulersDeliverEachTestPaymentEventOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("ticks for several seconds")
	}
	env := storetest.New(t, store.WithListShards(4))
	ctx := ctxT(t)
	p, err := payment.NewTestProvider(ctx, env.Store, "http://shop.test")
	if err != nil {
		t.Fatal(err)
	}
	r := newWebhookReceiver(t, p)
	for i, key := range []string{"a", "b", "c"} {
		s, err := p.StartCheckout(ctx, payment.CheckoutRequest{Mode: payment.ModePayment, Amount: store.Money{Amount: int64(100 * (i + 1)), Currency: "EUR"},
			SuccessURL: "http://shop.test/ok", Key: key})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.PayCheckout(ctx, s.ID, payment.CardForm{Number: payment.CardSucceeds, Expiry: "12/40", CVC: "123"}); err != nil {
			t.Fatal(err)
		}
	}
	gw := payment.NewTestGateway(env.Store)
	var scheds []*jobs.Scheduler
	for i := range 2 {
		replica := []string{"one", "two"}[i]
		s, err := jobs.NewScheduler(jobs.NewRunner(env.Store, gw, jobs.Config{Replica: replica}), env.Store, time.UTC,
			jobs.Schedules{Reminders: "0 6 * * *", Payments: "0 7 * * *", Reconcile: "0 0 0 1 1 *"}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		d := &jobs.TestPaymentEvents{Store: env.Store, Provider: p, URL: r.srv.URL, Log: slog.New(slog.DiscardHandler)}
		if err := s.DeliverTestPaymentEvents(d, "* * * * * *"); err != nil {
			t.Fatal(err)
		}
		s.Start()
		scheds = append(scheds, s)
	}
	time.Sleep(4 * time.Second)
	for _, s := range scheds {
		if err := s.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	tries, got := r.received()
	if tries != 3 || len(got) != 3 {
		t.Fatalf("%d deliveries of 3 events: %+v", tries, got)
	}
	if events, _, err := env.Store.TestPayDue(context.Background(), 10); err != nil || len(events) != 0 {
		t.Fatalf("still due: %v, %v", events, err)
	}
}

// An idle shop's delivery rests: after a run that found nothing due, its
// ticks take no lease and read nothing until the provider makes an event
// (Wake), which is then delivered at the next tick. Without the rest every
// tick took the lease and read every shard of the due list.
func TestIdleTestPaymentEventsRestUntilWoken(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("ticks for several seconds")
	}
	env := storetest.New(t, store.WithListShards(4))
	ctx := ctxT(t)
	p, err := payment.NewTestProvider(ctx, env.Store, "http://shop.test")
	if err != nil {
		t.Fatal(err)
	}
	r := newWebhookReceiver(t, p)
	idleFor := func(every time.Duration) (requests int, d *jobs.TestPaymentEvents, stop func()) {
		s, err := jobs.NewScheduler(jobs.NewRunner(env.Store, payment.NewTestGateway(env.Store), jobs.Config{Replica: "one"}), env.Store, time.UTC,
			jobs.Schedules{Reminders: "0 6 * * *", Payments: "0 7 * * *", Reconcile: "0 0 0 1 1 *"}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		d = &jobs.TestPaymentEvents{Store: env.Store, Provider: p, URL: r.srv.URL, Log: slog.New(slog.DiscardHandler), IdleEvery: every}
		if err := s.DeliverTestPaymentEvents(d, "* * * * * *"); err != nil {
			t.Fatal(err)
		}
		s.Start()
		// The first tick runs and finds nothing; on a loaded machine
		// gocron's first tick may come several seconds late, so the test
		// waits for it: for the rest when there is one, else for reads.
		deadline := time.Now().Add(30 * time.Second)
		for every > time.Second && !d.RestingNow() || every <= time.Second && env.Counter.Total() == 0 {
			if time.Now().After(deadline) {
				t.Fatal("no tick ran within 30 s")
			}
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(time.Second) // a tick under way when it was seen ends
		env.Counter.Reset()
		// Resting, 3 s hold three ticks; not resting, the test waits for
		// one whole tick however late gocron brings it.
		time.Sleep(3 * time.Second)
		for every <= time.Second && env.Counter.Total() < 4 && time.Now().Before(deadline.Add(30*time.Second)) {
			time.Sleep(50 * time.Millisecond)
		}
		return env.Counter.Total(), d, func() {
			if err := s.Stop(); err != nil {
				t.Error(err)
			}
		}
	}
	busy, _, stop := idleFor(time.Nanosecond) // as before: no rest
	stop()
	resting, d, stop := idleFor(time.Hour)
	defer stop()
	t.Logf("3 idle seconds of ticks: %d requests without the rest, %d with it", busy, resting)
	if busy < 4 || resting != 0 {
		t.Fatalf("idle ticks made %d requests resting (want 0), %d not (want at least one tick's 4 shards)", resting, busy)
	}
	p.OnEvent = d.Wake
	s, err := p.StartCheckout(ctx, payment.CheckoutRequest{Mode: payment.ModePayment, Amount: store.Money{Amount: 100, Currency: "EUR"}, SuccessURL: "http://shop.test/ok", Key: "wake"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.PayCheckout(ctx, s.ID, payment.CardForm{Number: payment.CardSucceeds, Expiry: "12/40", CVC: "123"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if tries, _ := r.received(); tries == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the event made while resting was not delivered within 5 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
