package web

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A request's context ends at its deadline, when its parent ends, and when
// the request is answered, whether or not anything waited on it; a child
// context ends with it without a goroutine of its own.
func TestRequestContextEndsAsAContextDoes(t *testing.T) {
	t.Parallel()
	waitDone := func(t *testing.T, ctx context.Context) {
		t.Helper()
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("not done")
		}
	}
	t.Run("never waited on, past its deadline", func(t *testing.T) {
		r := newRequestContext(context.Background(), time.Now().Add(-time.Millisecond), nil)
		if !errors.Is(r.Err(), context.DeadlineExceeded) {
			t.Fatalf("Err %v", r.Err())
		}
		waitDone(t, r)
		r.end()
		if !errors.Is(r.Err(), context.DeadlineExceeded) {
			t.Fatalf("after end: Err %v, want the deadline still", r.Err())
		}
	})
	t.Run("waited on, at its deadline", func(t *testing.T) {
		r := newRequestContext(context.Background(), time.Now().Add(20*time.Millisecond), nil)
		if r.Err() != nil {
			t.Fatalf("Err %v before its deadline", r.Err())
		}
		waitDone(t, r)
		if !errors.Is(r.Err(), context.DeadlineExceeded) {
			t.Fatalf("Err %v", r.Err())
		}
		r.end()
	})
	t.Run("answered", func(t *testing.T) {
		r := newRequestContext(context.Background(), time.Now().Add(time.Hour), nil)
		done := r.Done()
		r.end()
		<-done
		if !errors.Is(r.Err(), context.Canceled) {
			t.Fatalf("Err %v", r.Err())
		}
		unwaited := newRequestContext(context.Background(), time.Now().Add(time.Hour), nil)
		unwaited.end()
		waitDone(t, unwaited)
		if !errors.Is(unwaited.Err(), context.Canceled) {
			t.Fatalf("never waited on: Err %v", unwaited.Err())
		}
	})
	t.Run("its parent ends", func(t *testing.T) {
		parent, cancel := context.WithCancel(context.Background())
		r := newRequestContext(parent, time.Now().Add(time.Hour), nil)
		cancel()
		if !errors.Is(r.Err(), context.Canceled) {
			t.Fatalf("unwaited: Err %v", r.Err())
		}
		parent2, cancel2 := context.WithCancel(context.Background())
		r2 := newRequestContext(parent2, time.Now().Add(time.Hour), nil)
		done := r2.Done()
		cancel2()
		<-done
		if !errors.Is(r2.Err(), context.Canceled) {
			t.Fatalf("waited on: Err %v", r2.Err())
		}
		r.end()
		r2.end()
	})
	t.Run("an earlier deadline of its parent's", func(t *testing.T) {
		soon := time.Now().Add(time.Minute)
		parent, cancel := context.WithDeadline(context.Background(), soon)
		defer cancel()
		r := newRequestContext(parent, time.Now().Add(time.Hour), nil)
		if d, ok := r.Deadline(); !ok || !d.Equal(soon) {
			t.Fatalf("Deadline %v, %v, want %v", d, ok, soon)
		}
		r.end()
	})
	t.Run("values", func(t *testing.T) {
		type key struct{}
		r := newRequestContext(context.WithValue(context.Background(), key{}, "v"), time.Now().Add(time.Hour), nil)
		if r.Value(key{}) != "v" {
			t.Fatal("the parent's value is lost")
		}
		r.end()
	})
	t.Run("children", func(t *testing.T) {
		r := newRequestContext(context.Background(), time.Now().Add(time.Hour), nil)
		child, cancelChild := context.WithCancel(r)
		stopped, cancelStopped := context.WithCancel(r)
		cancelStopped() // ends before its parent: its AfterFunc is stopped
		type key struct{}
		value := context.WithValue(child, key{}, 1)
		r.mu.Lock()
		registered := len(r.afters)
		r.mu.Unlock()
		if registered != 1 {
			t.Fatalf("%d functions wait for the request's end, want the live child's", registered)
		}
		r.end()
		waitDone(t, child)
		waitDone(t, value)
		if !errors.Is(child.Err(), context.Canceled) || !errors.Is(stopped.Err(), context.Canceled) {
			t.Fatalf("children: %v, %v", child.Err(), stopped.Err())
		}
		cancelChild()
		ran := make(chan struct{})
		context.AfterFunc(r, func() { close(ran) })
		select { // registered after the end: runs at once
		case <-ran:
		case <-time.After(5 * time.Second):
			t.Fatal("an AfterFunc on an ended context did not run")
		}
	})
}

// Goroutines waiting, asking and registering children while the deadline
// fires and the request is answered: each function registered runs once,
// and every child ends.
func TestRequestContextRaces(t *testing.T) {
	t.Parallel()
	for range 50 {
		r := newRequestContext(context.Background(), time.Now().Add(time.Millisecond), nil)
		var ran atomic.Int64
		var wg sync.WaitGroup
		children := make([]context.Context, 16)
		for i := range children {
			wg.Go(func() {
				_ = r.Err()
				child, cancel := context.WithCancel(r)
				children[i] = child
				_ = cancel // ended by r
				context.AfterFunc(r, func() { ran.Add(1) })
				<-r.Done()
			})
		}
		wg.Go(r.end)
		wg.Wait()
		for _, c := range children {
			<-c.Done()
		}
		deadline := time.Now().Add(5 * time.Second)
		for ran.Load() != int64(len(children)) && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if n := ran.Load(); n != int64(len(children)) {
			t.Fatalf("%d functions ran, want %d", n, len(children))
		}
		if err := r.Err(); !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Err %v", err)
		}
	}
}
