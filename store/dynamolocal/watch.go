package dynamolocal

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Restart policy of a Watcher.
const (
	// restartGiveUp failed restarts within restartWindow end the watch:
	// something a restart of the engine alone does not fix (the port taken,
	// the disk full, the data broken) is then for the shop's supervisor.
	restartGiveUp = 3
	restartWindow = time.Minute
	// restartHold: an engine that dies sooner than this after a restart
	// counts as a failed restart, so that a crash loop also gives up.
	restartHold = 10 * time.Second
	// The pause before a restart doubles from the first to the most; it
	// starts again from the first once an engine has held restartWindow.
	restartFirstPause = 250 * time.Millisecond
	restartMostPause  = 8 * time.Second
)

// WatchOptions says whom a Watcher tells about the engine.
type WatchOptions struct {
	// Log receives why the engine stopped and each restart; nil discards.
	Log *slog.Logger
	// Down is called when the engine's process has ended, with how.
	Down func(err error)
	// Up is called when a restarted engine listens again.
	Up func()
}

// Watcher keeps an engine running: when its process ends, it starts another
// on the same port and data dir (so clients keep their endpoint and the
// shop its data), pausing longer after each failure.
type Watcher struct {
	opts WatchOptions
	mu   sync.Mutex
	cur  *Engine
}

// Watch returns a watcher of e; Run does the watching.
func Watch(e *Engine, opts WatchOptions) *Watcher {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Down == nil {
		opts.Down = func(error) {}
	}
	if opts.Up == nil {
		opts.Up = func() {}
	}
	return &Watcher{opts: opts, cur: e}
}

// Engine is the engine running now (or the last one, while it restarts).
func (w *Watcher) Engine() *Engine {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cur
}

// Run watches until ctx ends (nil) or restarting fails restartGiveUp times
// within restartWindow (an error saying why). It does not stop the engine:
// Stop does, once Run has returned.
func (w *Watcher) Run(ctx context.Context) error {
	log := w.opts.Log
	pause := restartFirstPause
	var failed []time.Time // failed restarts within restartWindow
	fail := func(now time.Time) int {
		kept := failed[:0]
		for _, t := range failed {
			if now.Sub(t) < restartWindow {
				kept = append(kept, t)
			}
		}
		failed = append(kept, now)
		return len(failed)
	}
	restarted := false // the running engine is one this watcher started
	for {
		e := w.Engine()
		select {
		case <-ctx.Done():
			return nil
		case <-e.Exited():
		}
		if ctx.Err() != nil {
			return nil
		}
		exit := e.ExitErr()
		lived := time.Since(e.started)
		w.opts.Down(exit)
		log.Error("DynamoDB Local stopped; restarting it", "exit", fmt.Sprint(exit), "ran", lived.Round(time.Millisecond), "endpoint", e.Endpoint)
		if lived >= restartWindow {
			pause = restartFirstPause
		}
		var last error = fmt.Errorf("the engine exited (%v) %s after its restart", exit, lived.Round(time.Millisecond))
		if restarted && lived < restartHold && fail(time.Now()) >= restartGiveUp {
			return fmt.Errorf("dynamolocal: %d failed restarts within %v, the last: %w", restartGiveUp, restartWindow, last)
		}
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(pause):
			}
			pause = min(2*pause, restartMostPause)
			started := time.Now()
			ne, err := Start(ctx, e.opts)
			if ctx.Err() != nil {
				if ne != nil {
					ne.Stop()
				}
				return nil
			}
			if err != nil {
				last = err
				n := fail(time.Now())
				log.Error("DynamoDB Local did not restart", "err", err, "failed_restarts", n, "next_pause", pause)
				if n >= restartGiveUp {
					return fmt.Errorf("dynamolocal: %d failed restarts within %v, the last: %w", restartGiveUp, restartWindow, last)
				}
				continue
			}
			w.mu.Lock()
			w.cur = ne
			w.mu.Unlock()
			restarted = true
			log.Info("DynamoDB Local restarted", "endpoint", ne.Endpoint, "took", time.Since(started).Round(time.Millisecond))
			w.opts.Up()
			break
		}
	}
}

// Stop stops the engine running now; call it after Run has returned.
func (w *Watcher) Stop() error { return w.Engine().Stop() }
