package web

import (
	"context"
	"net"
	"sync"
	"time"
)

// requestContext is a request's context: it ends at the request's
// deadline (DeadlineExceeded), when the client leaves (Canceled), when
// its parent ends, or when the request is answered. Its timers start
// only when something first waits on it (Done: a DynamoDB call, a child
// context): a page answered from memory waits on nothing, and starting
// and stopping a deadline's timer and a client watch cost such a page
// more than the rest of its context did.
type requestContext struct {
	context.Context // the parent, for its values
	deadline        time.Time
	conn            net.Conn // watched for the client leaving once waited on; nil: not watched

	mu         sync.Mutex
	done       chan struct{} // made by the first Done
	err        error
	timer      *time.Timer
	stopWatch  func()
	stopParent func() bool
	afters     map[*afterFunc]struct{}
}

// afterFunc is a function AfterFunc runs once the context ends.
type afterFunc struct{ f func() }

// newRequestContext is parent's child ending at deadline; conn, if not
// nil, is watched for the client leaving. end must be called once the
// request is answered.
func newRequestContext(parent context.Context, deadline time.Time, conn net.Conn) *requestContext {
	return &requestContext{Context: parent, deadline: deadline, conn: conn}
}

func (r *requestContext) Deadline() (time.Time, bool) {
	if d, ok := r.Context.Deadline(); ok && d.Before(r.deadline) {
		return d, true
	}
	return r.deadline, true
}

// Done starts the watches the first time it is called.
func (r *requestContext) Done() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done != nil {
		return r.done
	}
	r.done = make(chan struct{})
	if r.err == nil {
		if err := r.Context.Err(); err != nil {
			r.err = err
		} else if !time.Now().Before(r.deadline) {
			r.err = context.DeadlineExceeded
		}
	}
	if r.err != nil {
		close(r.done)
		return r.done
	}
	r.timer = time.AfterFunc(time.Until(r.deadline), func() { r.cancel(context.DeadlineExceeded) })
	if r.Context.Done() != nil {
		r.stopParent = context.AfterFunc(r.Context, func() { r.cancel(r.Context.Err()) })
	}
	if r.conn != nil {
		r.stopWatch = clientGone(r.conn, func() { r.cancel(context.Canceled) })
	}
	return r.done
}

// Err is why the context ended, nil while it runs. Unwatched, it is
// found by looking: the deadline passed, or the parent ended.
func (r *requestContext) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil && r.done == nil {
		if err := r.Context.Err(); err != nil {
			r.err = err
		} else if !time.Now().Before(r.deadline) {
			r.err = context.DeadlineExceeded
		}
	}
	return r.err
}

// AfterFunc runs f in its own goroutine once the context ends, as
// context.AfterFunc does; the context package finds it on a child
// context's parent and calls it instead of starting a goroutine to wait.
func (r *requestContext) AfterFunc(f func()) (stop func() bool) {
	r.Done() // the watches run: something waits now
	a := &afterFunc{f: f}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		go f()
		return func() bool { return false }
	}
	if r.afters == nil {
		r.afters = map[*afterFunc]struct{}{}
	}
	r.afters[a] = struct{}{}
	return func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		if _, ok := r.afters[a]; !ok {
			return false // run already, or stopped
		}
		delete(r.afters, a)
		return true
	}
}

// cancel ends the context with err, if it has not ended.
func (r *requestContext) cancel(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return
	}
	r.err = err
	if r.done != nil {
		close(r.done)
	}
	for a := range r.afters {
		go a.f()
	}
	r.afters = nil
}

// end stops the watches and ends the context (Canceled): the request is
// answered. The client watch is stopped before the answer is written, as
// clientGone asks.
func (r *requestContext) end() {
	r.mu.Lock()
	timer, stopWatch, stopParent := r.timer, r.stopWatch, r.stopParent
	r.mu.Unlock()
	if timer != nil {
		timer.Stop()
	}
	if stopParent != nil {
		stopParent()
	}
	if stopWatch != nil {
		stopWatch() // waits for the watch, which may cancel: not under mu
	}
	r.cancel(context.Canceled)
}
