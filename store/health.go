package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"
)

// ErrEngineDown is the answer of every store call while the engine is known
// to be down: the shop's own DynamoDB Local is restarting, or the breaker
// is open after repeated failures. It comes at once, instead of after the
// request's timeout.
var ErrEngineDown = errors.New("the database is not answering")

// Breaker settings.
type Breaker struct {
	// Failures in a row (requests with no answer, or a 5xx) open the
	// breaker; default 5.
	Failures int
	// OpenFor is how long requests then fail at once before one is let
	// through to try the engine; default 5 s.
	OpenFor time.Duration
	// AttemptTimeout is how long one attempt waits for the engine's
	// answer; default 8 s (under the pages' 10 s, above what a busy
	// machine's DynamoDB Local takes). Past it the engine does not answer, which
	// counts against it. A caller's own deadline never does: a page
	// that ran out of time (a busy replica) says nothing of the engine.
	AttemptTimeout time.Duration
	// Log receives the breaker opening and closing; nil discards.
	Log *slog.Logger
}

// Health is what the shop knows of its engine. Two things set it: the
// watcher of the shop's own DynamoDB Local (EngineDown, EngineUp), and the
// breaker every request of a client made with it goes through. While
// either says down, requests fail at once with ErrEngineDown.
type Health struct {
	cfg Breaker
	now func() time.Time

	mu        sync.Mutex
	down      error     // the watcher's reason, nil while the engine runs
	failures  int       // requests in a row that got no answer
	openUntil time.Time // the breaker is open until then
	probing   bool      // past openUntil, one request is trying the engine
}

// NewHealth returns the health of an engine thought up, with the breaker's
// settings (zero values take the defaults).
func NewHealth(cfg Breaker) *Health {
	if cfg.Failures <= 0 {
		cfg.Failures = 5
	}
	if cfg.OpenFor <= 0 {
		cfg.OpenFor = 5 * time.Second
	}
	if cfg.AttemptTimeout <= 0 {
		cfg.AttemptTimeout = 8 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Health{cfg: cfg, now: time.Now}
}

// EngineDown says the engine is gone (its process ended), and why.
func (h *Health) EngineDown(why error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.down = why
}

// EngineUp says the engine is back: the breaker starts afresh too, since
// the failures it counted were the engine being gone.
func (h *Health) EngineUp() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.down, h.failures, h.openUntil, h.probing = nil, 0, time.Time{}, false
}

// Serving is nil while the shop has an engine to serve from, else why not:
// the watcher found the engine gone and it is not back (yet). The breaker
// does not count here: a restart of the shop would not bring back an engine
// elsewhere.
func (h *Health) Serving() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.down != nil {
		return fmt.Errorf("%w: %v", ErrEngineDown, h.down)
	}
	return nil
}

// RetryAfter is when a request refused with ErrEngineDown might succeed.
func (h *Health) RetryAfter() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	if wait := h.openUntil.Sub(h.now()); h.down == nil && wait > 0 {
		return wait
	}
	return h.cfg.OpenFor // a restart takes a few seconds
}

// admit decides whether a request may go to the engine. probe is true for
// the one request that tries the engine after the breaker's open time.
func (h *Health) admit() (probe bool, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.down != nil:
		return false, fmt.Errorf("%w: %v", ErrEngineDown, h.down)
	case h.openUntil.IsZero():
		return false, nil
	case h.now().Before(h.openUntil) || h.probing:
		return false, fmt.Errorf("%w: %d requests in a row failed", ErrEngineDown, h.cfg.Failures)
	}
	h.probing = true
	return true, nil
}

// outcome of one request for the breaker.
type outcome int

const (
	answered   outcome = iota // the engine answered, whatever it said
	unanswered                // no answer in time, or an answer of 5xx
	unknown                   // the caller gave up, or the request was never sent
)

// record counts a request's outcome.
func (h *Health) record(probe bool, o outcome) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if probe {
		h.probing = false
	}
	switch o {
	case answered:
		if !h.openUntil.IsZero() {
			h.cfg.Log.Info("DynamoDB answers again: the breaker is closed")
		}
		h.failures, h.openUntil = 0, time.Time{}
	case unanswered:
		h.failures++
		if probe || (h.openUntil.IsZero() && h.failures >= h.cfg.Failures) {
			h.openUntil = h.now().Add(h.cfg.OpenFor)
			h.cfg.Log.Error("DynamoDB does not answer: requests fail at once for a while", "failures", h.failures, "for", h.cfg.OpenFor)
		}
	}
}

// attemptOutcome sorts an attempt's error for the breaker. Any answer of the
// engine, refusals included (a condition that failed, a validation error,
// throttling), is an answer: those are the shop's normal business.
func attemptOutcome(err error) outcome {
	// A failure to send is wrapped as a response error of status 0.
	var status interface{ HTTPStatusCode() int }
	switch {
	case err == nil:
		return answered
	case errors.As(err, &status) && status.HTTPStatusCode() >= 500:
		return unanswered
	case errors.As(err, &status) && status.HTTPStatusCode() > 0:
		return answered
	case errors.Is(err, context.Canceled):
		return unknown
	case errors.Is(err, context.DeadlineExceeded):
		return unanswered // the attempt's own timeout (the middleware tells the caller's apart)
	}
	var conn interface{ ConnectionError() bool }
	if errors.As(err, &conn) && conn.ConnectionError() {
		return unanswered
	}
	return unknown
}

// healthMiddleware puts every attempt of every operation (retries too,
// so a retry loop stops as soon as the engine is known down) through h.
// It sits right after the retry middleware; its refusal is not retried.
func healthMiddleware(h *Health) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		return stack.Finalize.Insert(middleware.FinalizeMiddlewareFunc("ShopEngineHealth",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				probe, err := h.admit()
				if err != nil {
					return middleware.FinalizeOutput{}, middleware.Metadata{}, err
				}
				attempt, cancel := ctx, context.CancelFunc(func() {})
				if itemOperation(awsmiddleware.GetOperationName(ctx)) {
					attempt, cancel = context.WithTimeout(ctx, h.cfg.AttemptTimeout)
				}
				out, md, err := next.HandleFinalize(attempt, in)
				cancel()
				o := attemptOutcome(err)
				if err != nil && ctx.Err() != nil {
					// The caller's deadline passed or it gave up: its
					// time, not the engine's failure. Only the attempt's
					// own timeout says the engine does not answer.
					o = unknown
				}
				h.record(probe, o)
				return out, md, err
			}), "Retry", middleware.After)
	}
}

// itemOperation tells the calls on items, which answer within milliseconds
// when the engine is well, from the table's own (CreateTable, UpdateTable,
// DescribeTable, TTL, backups), which migrate makes and which a busy
// engine may take many seconds over: those wait for their caller's
// deadline alone, or a slow start would be taken for a dead engine.
func itemOperation(op string) bool {
	switch op {
	case "GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan",
		"BatchGetItem", "BatchWriteItem", "TransactGetItems", "TransactWriteItems":
		return true
	}
	return false
}

// unansweredMiddleware marks an operation that ended, after its retries,
// without any answer from the engine (the connection refused or cut, as
// when the engine dies under a request) as ErrEngineDown, so that a page
// says 503 and "try again", not 500. A caller that gave up (its context
// done) keeps its own error.
func unansweredMiddleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("ShopEngineUnanswered",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleInitialize(ctx, in)
			if err != nil && ctx.Err() == nil && !errors.Is(err, ErrEngineDown) && attemptOutcome(err) == unanswered {
				err = fmt.Errorf("%w: %w", ErrEngineDown, err)
			}
			return out, md, err
		}), middleware.After)
}
