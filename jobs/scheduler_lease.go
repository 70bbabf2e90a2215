package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/go-co-op/gocron/v2"

	"shop/store"
)

// leaseLocker is gocron's distributed locker over the lease item: the key
// is the job's name, the lease is the job's and today's, so a slower
// replica cannot run a tick another already ran (the lease is then done).
type leaseLocker struct{ s *Scheduler }

func (l leaseLocker) Lock(ctx context.Context, job string) (gocron.Lock, error) {
	s := l.s
	s.mu.Lock()
	stopping := s.stopping
	s.mu.Unlock()
	if stopping {
		return nil, ErrShuttingDown // gocron does not run the job
	}
	s.mu.Lock()
	rest := s.resting[job]
	s.mu.Unlock()
	if rest != nil && rest(time.Now()) {
		return nil, errResting // no lease taken: no request at all
	}
	lease, err := s.store.AcquireLease(ctx, job, s.store.Today(), s.runner.cfg.Replica, s.runner.cfg.LeaseTTL)
	if err != nil {
		level, msg := tickRefused(s.runner.cfg.Replica, lease, err)
		s.log.Log(ctx, level, msg, "job", job, "owner", lease.Owner, "why", err)
		return nil, err // gocron does not run the job
	}
	h := &heldLease{store: s.store, lease: lease, ttl: s.runner.cfg.LeaseTTL, stop: make(chan struct{}), done: make(chan struct{})}
	go h.renew()
	s.mu.Lock()
	s.held[job] = h
	s.mu.Unlock()
	return lockRelease{s: s, job: job, h: h}, nil
}

type lockRelease struct {
	s   *Scheduler
	job string
	h   *heldLease
}

// Unlock stops renewing; a tick that did not run to its end gives the
// lease back at once.
func (l lockRelease) Unlock(ctx context.Context) error {
	l.s.mu.Lock()
	if l.s.held[l.job] == l.h {
		delete(l.s.held, l.job)
	}
	l.s.mu.Unlock()
	return l.h.release(ctx)
}

// heldLease is a lease this replica holds, renewed at a third of its life.
type heldLease struct {
	store Store
	ttl   time.Duration
	stop  chan struct{}
	done  chan struct{}

	mu       sync.Mutex
	lease    store.Lease
	finished bool
	released bool
	lost     func()
}

func (h *heldLease) renew() {
	defer close(h.done)
	t := time.NewTicker(h.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
			h.mu.Lock()
			l := h.lease
			h.mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), h.ttl/3)
			next, err := h.store.RenewLease(ctx, l, h.ttl)
			cancel()
			h.mu.Lock()
			if err != nil {
				if h.lost != nil {
					h.lost()
				}
				h.mu.Unlock()
				return
			}
			h.lease = next
			h.mu.Unlock()
		}
	}
}

func (h *heldLease) onLost(f func()) {
	h.mu.Lock()
	h.lost = f
	h.mu.Unlock()
}

func (h *heldLease) stopRenewing() {
	select {
	case <-h.stop:
	default:
		close(h.stop)
	}
	<-h.done
}

// finish marks the tick done: no replica runs this job and date again.
func (h *heldLease) finish(ctx context.Context) error {
	h.stopRenewing()
	h.mu.Lock()
	defer h.mu.Unlock()
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := h.store.FinishLease(wctx, h.lease); err != nil {
		return fmt.Errorf("mark the tick done: %w", err)
	}
	h.finished = true
	return nil
}

func (h *heldLease) release(ctx context.Context) error {
	h.stopRenewing()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.finished || h.released {
		return nil
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := h.store.ReleaseLease(wctx, h.lease); err != nil && !errors.Is(err, store.ErrLeaseLost) {
		return err
	}
	h.released = true
	return nil
}

// tickRefused says why a tick did not take its lease, as the log should:
// a tick this replica already ran is no news from another replica, and a
// failed request is an error, not a replica's turn.
func tickRefused(replica string, cur store.Lease, err error) (slog.Level, string) {
	switch {
	case errors.Is(err, store.ErrLeaseDone) && cur.Owner == replica:
		return slog.LevelDebug, "tick already ran on this replica"
	case errors.Is(err, store.ErrLeaseDone):
		return slog.LevelInfo, "tick already ran on another replica"
	case errors.Is(err, store.ErrLeaseHeld) && cur.Owner == replica:
		return slog.LevelInfo, "tick still running on this replica"
	case errors.Is(err, store.ErrLeaseHeld):
		return slog.LevelInfo, "tick taken by another replica"
	}
	return slog.LevelError, "tick could not take its lease"
}
