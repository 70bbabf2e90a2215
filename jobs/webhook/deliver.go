package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"shop/store"
)

// Store is what the deliverer reads and writes: the events due, the
// endpoints (with their secrets), the outcome of each attempt, and a
// lease so that one replica at a time delivers.
type Store interface {
	Now() time.Time
	Today() time.Time
	DueWebhookEvents(ctx context.Context, limit int) ([]store.WebhookEvent, error)
	Webhook(ctx context.Context, integration, id string) (store.WebhookEndpoint, error)
	WebhookEvent(ctx context.Context, id string) (store.WebhookEvent, error)
	RecordWebhookAttempt(ctx context.Context, e store.WebhookEvent, endpoint string, d store.WebhookDelivery, a *store.WebhookAttempt) (store.WebhookEvent, error)
	MarkWebhookFailing(ctx context.Context, owner, id string, at time.Time) error
	MarkWebhookAnswering(ctx context.Context, owner, id string) error
	DisableWebhook(ctx context.Context, hook store.WebhookEndpoint, at time.Time, lastError string, mail store.Mail) (bool, error)
	AcquireLease(ctx context.Context, job string, day time.Time, owner string, ttl time.Duration) (store.Lease, error)
	RenewLease(ctx context.Context, l store.Lease, ttl time.Duration) (store.Lease, error)
	ReleaseLease(ctx context.Context, l store.Lease) error
}

// LeaseDelivery is the lease a replica holds while it delivers a batch.
const LeaseDelivery = "webhook-delivery"

// AnswerBytes is how much of an endpoint's answer an attempt keeps.
const AnswerBytes = 256

// Config configures a Deliverer; zero values take the defaults.
type Config struct {
	Client      *http.Client  // default NewClient(ClientConfig{})
	Batch       int           // events per round (default 50)
	Parallel    int           // events delivered at once (default 8)
	Replica     string        // the lease's owner (default a random id)
	LeaseTTL    time.Duration // renewed at a third of it (default 1 min)
	GiveUpAfter time.Duration // a delivery refused this long after its event is failed (default 72 h)
	// DisableAfter: an endpoint refusing everything this long is disabled
	// (default store.DisableWebhookAfter), and StaffMail is mailed.
	DisableAfter time.Duration
	StaffMail    string
	// Jitter draws from [0, 1) for RetryDelay (default math/rand/v2's
	// Float64); tests fix it.
	Jitter func() float64
	// Active says whether any endpoint exists, so that a shop without one
	// makes no request at all (nil: always).
	Active func() bool
	Log    *slog.Logger
}

// Deliverer POSTs each due event to each endpoint waiting for it, signed,
// and records every attempt.
type Deliverer struct {
	store Store
	cfg   Config
	wake  chan struct{}
}

// New returns a deliverer; Run starts it.
func New(st Store, cfg Config) *Deliverer {
	if cfg.Client == nil {
		cfg.Client = NewClient(ClientConfig{})
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 50
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = 8
	}
	if cfg.Replica == "" {
		cfg.Replica = "replica-" + store.NewID()
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = time.Minute
	}
	if cfg.GiveUpAfter <= 0 {
		cfg.GiveUpAfter = 72 * time.Hour
	}
	if cfg.DisableAfter <= 0 {
		cfg.DisableAfter = store.DisableWebhookAfter
	}
	if cfg.Jitter == nil {
		cfg.Jitter = rand.Float64
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Deliverer{store: st, cfg: cfg, wake: make(chan struct{}, 1)}
}

// Wake makes Run deliver now: this process just wrote an event.
func (d *Deliverer) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run delivers what is due every interval (default 3 s) and whenever
// woken, until ctx ends.
func (d *Deliverer) Run(ctx context.Context, every time.Duration) {
	if every <= 0 {
		every = 3 * time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if d.cfg.Active == nil || d.cfg.Active() {
			sent, failed, err := d.DeliverDue(ctx)
			switch {
			case ctx.Err() != nil:
				return
			case err != nil:
				d.cfg.Log.Error("webhook delivery", "sent", sent, "failed", failed, "err", err)
			case sent > 0 || failed > 0:
				d.cfg.Log.Info("webhook delivery", "sent", sent, "refused", failed)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-d.wake:
		}
	}
}

// DeliverDue sends a batch of the events due, under the delivery lease:
// one Query when nothing is due, and nothing more; while another replica
// holds the lease it does nothing. sent counts 2xx answers, failed the
// others; err is a store error.
func (d *Deliverer) DeliverDue(ctx context.Context) (sent, failed int, err error) {
	events, err := d.store.DueWebhookEvents(ctx, d.cfg.Batch)
	if err != nil || len(events) == 0 {
		return 0, 0, err
	}
	lease, err := d.store.AcquireLease(ctx, LeaseDelivery, d.store.Today(), d.cfg.Replica, d.cfg.LeaseTTL)
	if errors.Is(err, store.ErrLeaseHeld) || errors.Is(err, store.ErrLeaseDone) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("webhook delivery lease: %w", err)
	}
	batchCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	held := make(chan store.Lease, 1)
	go func() { held <- d.holdLease(batchCtx, cancel, lease) }()

	sent, failed, err = d.deliverAll(batchCtx, events)

	cancel(nil)
	lease = <-held
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer rcancel()
	if rerr := d.store.ReleaseLease(rctx, lease); rerr != nil && !errors.Is(rerr, store.ErrLeaseLost) {
		err = errors.Join(err, fmt.Errorf("release the webhook delivery lease: %w", rerr))
	}
	return sent, failed, err
}

// holdLease renews the lease until ctx ends; if it is lost, it cancels the
// batch, which stops before its next delivery.
func (d *Deliverer) holdLease(ctx context.Context, cancel context.CancelCauseFunc, lease store.Lease) store.Lease {
	t := time.NewTicker(d.cfg.LeaseTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return lease
		case <-t.C:
			l, err := d.store.RenewLease(ctx, lease, d.cfg.LeaseTTL)
			if err != nil {
				if ctx.Err() == nil {
					cancel(fmt.Errorf("renew the webhook delivery lease: %w", err))
				}
				return lease
			}
			lease = l
		}
	}
}

// deliverAll delivers the events, Parallel at a time; one event's
// endpoints one after the other (each saves the event's new version).
func (d *Deliverer) deliverAll(ctx context.Context, events []store.WebhookEvent) (sent, failed int, err error) {
	var mu sync.Mutex
	var errs []error
	sem := make(chan struct{}, d.cfg.Parallel)
	var wg sync.WaitGroup
	for _, e := range events {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			s, f, err := d.deliverEvent(ctx, e)
			mu.Lock()
			defer mu.Unlock()
			sent, failed = sent+s, failed+f
			if err != nil {
				errs = append(errs, err)
			}
		}()
	}
	wg.Wait()
	return sent, failed, errors.Join(errs...)
}

// deliverEvent tries each of the event's deliveries that is due.
func (d *Deliverer) deliverEvent(ctx context.Context, e store.WebhookEvent) (sent, failed int, err error) {
	endpoints := make([]string, 0, len(e.Deliveries))
	for ep := range e.Deliveries {
		endpoints = append(endpoints, ep)
	}
	slices.Sort(endpoints)
	for _, ep := range endpoints {
		dl := e.Deliveries[ep]
		if dl.Status != store.DeliveryPending || dl.NextAt.After(d.store.Now()) || ctx.Err() != nil {
			continue
		}
		dl, attempt, err := d.deliverOne(ctx, e, ep, dl)
		if err != nil {
			return sent, failed, err
		}
		if attempt != nil && dl.Attempts > e.Deliveries[ep].Attempts {
			if dl.Status == store.DeliveryDelivered {
				sent++
			} else {
				failed++
			}
		}
		// Record even when ctx ends now: a delivery made and not recorded
		// would go again.
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		e, err = d.record(rctx, e, ep, dl, attempt)
		rcancel()
		if err != nil {
			return sent, failed, err
		}
	}
	return sent, failed, nil
}

// recordPatience bounds how long record keeps at its save while resends
// keep saving the event in between. It is time, not a count of tries: a
// resend gives up after a few conflicts (store.ResendWebhookEvent), the
// deliverer, holding a POST already sent, should not, and a count of tries
// ran out in CI while a loaded machine stretched a burst of resends.
const recordPatience = 10 * time.Second

// record saves the delivery's new state and logs its attempt. When a
// resend saved the event since it was read, the attempt is logged all the
// same and the resend's state kept (the event goes again: at least once).
// Each try after a conflict waits a little longer (1, 2, 4 … 64 ms), so a
// burst of resends passes.
func (d *Deliverer) record(ctx context.Context, e store.WebhookEvent, ep string, dl store.WebhookDelivery, a *store.WebhookAttempt) (store.WebhookEvent, error) {
	giveUp := time.Now().Add(recordPatience)
	for try := 0; ; try++ {
		next, err := d.store.RecordWebhookAttempt(ctx, e, ep, dl, a)
		if !errors.Is(err, store.ErrConflict) || time.Now().After(giveUp) {
			return next, err
		}
		select {
		case <-ctx.Done():
			return e, ctx.Err()
		case <-time.After(time.Millisecond << min(try, 6)):
		}
		cur, err := d.store.WebhookEvent(ctx, e.ID)
		if err != nil {
			return e, err
		}
		if now := cur.Deliveries[ep]; !now.Since.Equal(e.Deliveries[ep].Since) {
			dl = now // resent meanwhile
		}
		e = cur
	}
}

// notSent is what a delivery to a disabled endpoint logs: it fails
// without a request, listed (and resendable) with the endpoint's attempts.
const notSent = "not sent: the endpoint is disabled"

// deliverOne makes one delivery due: dropped when its endpoint is gone,
// failed without a request when it is disabled, else POSTed; the
// endpoint's health follows the answer (health).
func (d *Deliverer) deliverOne(ctx context.Context, e store.WebhookEvent, ep string, dl store.WebhookDelivery) (store.WebhookDelivery, *store.WebhookAttempt, error) {
	hook, err := d.store.Webhook(ctx, e.Integration, ep)
	switch {
	case errors.Is(err, store.ErrNotFound): // deleted: nothing to send it to
		dl.Status = store.DeliveryDropped
		return dl, nil, nil
	case err != nil:
		return dl, nil, err
	case hook.Disabled:
		dl.Status, dl.NextAt = store.DeliveryFailed, time.Time{}
		return dl, &store.WebhookAttempt{Endpoint: ep, At: d.store.Now(), Answer: notSent}, nil
	}
	a := d.post(ctx, hook, e.Body)
	dl = d.outcome(e, dl, a)
	if dl.Status != store.DeliveryDelivered {
		d.cfg.Log.Warn("webhook refused", "event", e.ID, "endpoint", ep, "status", a.Status, "answer", a.Answer, "attempts", dl.Attempts, "next", dl.NextAt)
	}
	disabled, err := d.health(context.WithoutCancel(ctx), hook, a)
	if err != nil {
		return dl, &a, err
	}
	if disabled {
		dl.Status, dl.NextAt = store.DeliveryFailed, time.Time{}
	}
	return dl, &a, nil
}

// post sends body to the endpoint, signed now, and logs what came back.
func (d *Deliverer) post(ctx context.Context, hook store.WebhookEndpoint, body []byte) store.WebhookAttempt {
	at := d.store.Now()
	a := store.WebhookAttempt{Endpoint: hook.ID, At: at}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hook.URL, bytes.NewReader(body))
	if err != nil {
		a.Answer = clip(err.Error())
		return a
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "shop-webhooks/1")
	req.Header.Set(SignatureHeader, Sign(hook.Secret, at, body))
	start := time.Now()
	resp, err := d.cfg.Client.Do(req)
	if err != nil {
		a.Duration, a.Answer = time.Since(start), clip(err.Error())
		return a
	}
	defer resp.Body.Close()
	head, _ := io.ReadAll(io.LimitReader(resp.Body, AnswerBytes))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	a.Duration, a.Status, a.Answer = time.Since(start), resp.StatusCode, strings.ToValidUTF8(string(head), "")
	return a
}

func clip(s string) string {
	if len(s) > AnswerBytes {
		s = s[:AnswerBytes]
	}
	return strings.ToValidUTF8(s, "")
}

// outcome is a delivery after attempt a: delivered on a 2xx; else retried
// after RetryDelay, or failed when that would fall past GiveUpAfter.
func (d *Deliverer) outcome(e store.WebhookEvent, dl store.WebhookDelivery, a store.WebhookAttempt) store.WebhookDelivery {
	dl.Attempts++
	if answered(a) {
		dl.Status, dl.NextAt = store.DeliveryDelivered, time.Time{}
		return dl
	}
	dl.NextAt = a.At.Add(RetryDelay(dl.Attempts, d.cfg.Jitter()))
	since := e.CreatedAt
	if !dl.Since.IsZero() { // resent: its three days start again
		since = dl.Since
	}
	if dl.NextAt.After(since.Add(d.cfg.GiveUpAfter)) {
		dl.Status, dl.NextAt = store.DeliveryFailed, time.Time{}
	}
	return dl
}

// retryDelays are the waits after the first refusals; after the last, a
// delivery is retried every lastRetryDelay.
var retryDelays = []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour}

const lastRetryDelay = 4 * time.Hour

// RetryDelay is how long a delivery refused on its attempts-th try waits
// for the next: 5 s, 30 s, 2 min, 10 min, 1 h, then every 4 hours. jitter,
// from [0, 1), takes up to a fifth off, so deliveries refused together
// (an endpoint down) do not all come back at once.
func RetryDelay(attempts int, jitter float64) time.Duration {
	wait := lastRetryDelay
	if attempts >= 1 && attempts <= len(retryDelays) {
		wait = retryDelays[attempts-1]
	} else if attempts < 1 {
		wait = retryDelays[0]
	}
	jitter = min(max(jitter, 0), 1)
	return wait - time.Duration(jitter*float64(wait)/5)
}
