package jobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-co-op/gocron/v2"

	"shop/store"
	"shop/store/payment"
)

// JobTestPaymentEvents delivers the test provider's events to the shop's
// webhook (/webhooks/test) and expires its sessions past their time, as a
// real provider does on its side: in test mode, every few seconds, under
// its lease like the other jobs, but without a run record per tick.
const JobTestPaymentEvents = "test-payment-events"

// TestPaymentEventStore is what the delivery reads and writes: the test
// provider's due list (store.Store).
type TestPaymentEventStore interface {
	Now() time.Time
	TestPayDue(ctx context.Context, limit int) ([]store.TestPayEvent, []string, error)
	MarkTestPayEvent(ctx context.Context, e store.TestPayEvent) error
}

// TestPaymentSender is the test provider as the delivery needs it: its
// signature, and its sessions' expiry (payment.TestProvider).
type TestPaymentSender interface {
	Sign(body []byte, at time.Time) string
	ExpireCheckout(ctx context.Context, id string) (payment.CheckoutSession, error)
}

// EventDelivery is what happens to one due event: tests choose, to see
// the shop cope with what a real provider's webhooks do.
type EventDelivery int

const (
	// DeliverEvent posts it (what happens without a test's choice).
	DeliverEvent EventDelivery = iota
	// DeliverEventTwice posts it twice in a row, as a provider may.
	DeliverEventTwice
	// DropEvent marks it delivered without posting it: lost on the way.
	DropEvent
	// HoldEvent leaves it due and untried: it comes late, after the ones
	// behind it (reordered), when a later run delivers it.
	HoldEvent
)

// TestPaymentEvents posts the test provider's due events to the shop's
// webhook, signed, oldest due first; one not answered 2xx is tried again
// after RetryDelay (1, 2, 4 … minutes, then hourly), for up to GiveUpAfter.
type TestPaymentEvents struct {
	Store    TestPaymentEventStore
	Provider TestPaymentSender
	// URL is the webhook's: the shop's base URL and /webhooks/test.
	URL    string
	Client *http.Client // default: 10 s timeout
	Log    *slog.Logger // default slog.Default()
	Batch  int          // events per run (default 100)
	// GiveUpAfter: an event not delivered this long after it was made
	// stops being tried (default 3 days, as Stripe's).
	GiveUpAfter time.Duration
	Jitter      func() float64 // for RetryDelay; default math/rand/v2's Float64
	// Filter, when set, says what happens to each due event (tests).
	Filter func(store.TestPayEvent) EventDelivery
	// IdleEvery: once a scheduled run finds nothing due, the next ticks
	// rest (read nothing) until this long has passed, or the provider made
	// an event (Wake) (default 1 minute). Each run reads every shard of the
	// due list: 32 Queries every 5 s on an idle shop without the rest.
	IdleEvery time.Duration

	mu        sync.Mutex
	restUntil time.Time // no scheduled run before this, unless woken
	wokeAt    time.Time
}

// wakeMargin is how long after a Wake the job does not rest: the event
// is written just after Wake, and may land after a run that began.
const wakeMargin = 15 * time.Second

// Wake ends the idle rest: the provider is making an event (its OnEvent).
func (d *TestPaymentEvents) Wake() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.wokeAt, d.restUntil = time.Now(), time.Time{}
}

// resting says whether a scheduled tick at now reads nothing.
func (d *TestPaymentEvents) resting(now time.Time) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return now.Before(d.restUntil)
}

// ranIdle rests the job after a run at now that found nothing due,
// unless it was woken lately.
func (d *TestPaymentEvents) ranIdle(now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if now.Sub(d.wokeAt) > wakeMargin {
		d.restUntil = now.Add(d.IdleEvery)
	}
}

// EventCounts is what one run did.
type EventCounts struct {
	Delivered, Failed, Dropped, Held, Expired int
}

func (d *TestPaymentEvents) withDefaults() {
	if d.Client == nil {
		d.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.Batch <= 0 {
		d.Batch = 100
	}
	if d.GiveUpAfter <= 0 {
		d.GiveUpAfter = 72 * time.Hour
	}
	if d.Jitter == nil {
		d.Jitter = rand.Float64
	}
	if d.IdleEvery <= 0 {
		d.IdleEvery = time.Minute
	}
}

// DeliverDue expires the sessions past their time (each writes its
// event, delivered by the next run) and posts the due events, each once
// unless the Filter says otherwise, recording every outcome. A webhook
// that refuses or is down fails the event, never the run: err is a store
// error.
func (d *TestPaymentEvents) DeliverDue(ctx context.Context) (EventCounts, error) {
	d.withDefaults()
	var n EventCounts
	events, expired, err := d.Store.TestPayDue(ctx, d.Batch)
	if err != nil {
		return n, fmt.Errorf("test provider's due list: %w", err)
	}
	var errs []error
	for _, id := range expired {
		if _, err := d.Provider.ExpireCheckout(ctx, id); err != nil && !errors.Is(err, payment.ErrCheckoutComplete) {
			errs = append(errs, fmt.Errorf("expire session %s: %w", id, err))
			continue
		}
		n.Expired++
	}
	for _, ev := range events {
		if ctx.Err() != nil {
			break
		}
		what := DeliverEvent
		if d.Filter != nil {
			what = d.Filter(ev)
		}
		var sendErr error
		switch what {
		case HoldEvent:
			n.Held++
			continue
		case DropEvent:
			n.Dropped++
		case DeliverEventTwice:
			if sendErr = d.post(ctx, ev); sendErr == nil {
				sendErr = d.post(ctx, ev)
			}
		default:
			sendErr = d.post(ctx, ev)
		}
		ev = d.outcome(ev, sendErr)
		// Recorded even when ctx ends now: an event posted and not marked
		// would go again (harmless, the shop applies it once, but noisy).
		mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		err := d.Store.MarkTestPayEvent(mctx, ev)
		cancel()
		switch {
		case err != nil:
			errs = append(errs, err)
		case sendErr != nil:
			n.Failed++
			d.Log.Warn("test payment event not delivered", "event", ev.ID, "type", ev.Type, "attempts", ev.Attempts, "gave_up", ev.GaveUp, "err", sendErr)
		case what != DropEvent:
			n.Delivered++
		}
	}
	return n, errors.Join(errs...)
}

// post sends one event to the webhook, signed now.
func (d *TestPaymentEvents) post(ctx context.Context, ev store.TestPayEvent) error {
	body := []byte(ev.Body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(payment.TestSignatureHeader, d.Provider.Sign(body, d.Store.Now()))
	resp, err := d.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("webhook answered %s: %s", resp.Status, strings.TrimSpace(string(answer)))
	}
	return nil
}

// outcome is ev after one delivery that ended with sendErr.
func (d *TestPaymentEvents) outcome(ev store.TestPayEvent, sendErr error) store.TestPayEvent {
	now := d.Store.Now()
	ev.Attempts++
	if sendErr == nil {
		ev.DeliveredAt, ev.LastError = now, ""
		return ev
	}
	ev.LastError = sendErr.Error()
	if len(ev.LastError) > maxLastError {
		ev.LastError = strings.ToValidUTF8(ev.LastError[:maxLastError], "") + "…"
	}
	ev.NextAttemptAt = now.Add(RetryDelay(ev.Attempts, d.Jitter()))
	if ev.NextAttemptAt.After(ev.Created.Add(d.GiveUpAfter)) {
		ev.GaveUp = true
	}
	return ev
}

// DefaultTestPaymentEventsSchedule runs the delivery every five seconds.
const DefaultTestPaymentEventsSchedule = "*/5 * * * * *"

// DeliverTestPaymentEvents schedules the test provider's event delivery
// (test mode) at expr, cron with a seconds field (default every five
// seconds): each tick under the job's lease, taken through gocron's
// locker like the other jobs, so one replica delivers at a time. After a
// run that found nothing due, ticks rest (no lease, no read) for
// IdleEvery, unless the provider makes an event meanwhile (d.Wake, its
// OnEvent).
func (s *Scheduler) DeliverTestPaymentEvents(d *TestPaymentEvents, expr string) error {
	if expr == "" {
		expr = DefaultTestPaymentEventsSchedule
	}
	j, err := s.cron.NewJob(gocron.CronJob(expr, s.sched.withSeconds(expr)),
		gocron.NewTask(func(ctx context.Context) { s.deliverTestPaymentEvents(ctx, d) }),
		gocron.WithName(JobTestPaymentEvents), gocron.WithSingletonMode(gocron.LimitModeReschedule),
		gocron.WithDistributedJobLocker(leaseLocker{s}))
	if err != nil {
		return fmt.Errorf("schedule %s %q: %w", JobTestPaymentEvents, expr, err)
	}
	d.withDefaults()
	s.mu.Lock()
	s.jobs[JobTestPaymentEvents] = j
	s.resting[JobTestPaymentEvents] = d.resting
	s.mu.Unlock()
	return nil
}

func (s *Scheduler) deliverTestPaymentEvents(ctx context.Context, d *TestPaymentEvents) {
	if !s.begin() {
		return // shutting down: gocron's unlock gives the lease back
	}
	defer s.runs.Done()
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(s.halt, func() { cancel(context.Cause(s.halt)) })()
	s.mu.Lock()
	h := s.held[JobTestPaymentEvents]
	s.mu.Unlock()
	if h != nil {
		h.onLost(func() { cancel(store.ErrLeaseLost) })
	}
	started := time.Now()
	n, err := d.DeliverDue(runCtx)
	if err == nil && n == (EventCounts{}) {
		d.ranIdle(started)
	}
	switch {
	case err != nil && runCtx.Err() == nil:
		s.log.Error("test payment events", "delivered", n.Delivered, "failed", n.Failed, "expired", n.Expired, "err", err)
	case n != EventCounts{}:
		s.log.Info("test payment events", "delivered", n.Delivered, "failed", n.Failed, "expired", n.Expired, "dropped", n.Dropped, "held", n.Held)
	}
}
