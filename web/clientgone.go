package web

import (
	"errors"
	"net"
	"sync/atomic"
	"syscall"
	"time"
)

// clientGone calls gone if the client closes conn while its request is
// handled, until the returned stop is called (before the answer is
// written). fasthttp does not say when a client leaves, and nobody reads
// the connection while a handler runs: a peek (MSG_PEEK, nothing is
// consumed) waits for it to turn readable. End of file or an error is the
// client gone; bytes are its next request, so it is still there. A
// connection that is not a socket is not watched.
//
// The watch begins after clientWatchAfter: most answers are written
// before that (a kept page in microseconds), and a watcher (a goroutine, a
// peek and two deadline changes) cost more than the page. No one misses
// a client gone in the first milliseconds.
func clientGone(conn net.Conn, gone func()) (stop func()) {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return func() {}
	}
	var stopped atomic.Bool
	done := make(chan struct{})
	watch := time.AfterFunc(clientWatchAfter, func() {
		defer close(done)
		raw, err := sc.SyscallConn()
		if err != nil {
			return
		}
		var b [1]byte
		_ = raw.Read(func(fd uintptr) bool {
			if stopped.Load() {
				return true
			}
			n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			switch {
			case errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EINTR):
				return false // nothing to read: wait until there is
			case n == 0 || err != nil:
				gone()
			}
			return true
		})
	})
	return func() {
		stopped.Store(true)
		if watch.Stop() {
			return // the watch never began
		}
		// Wake the waiting peek; the server sets its own deadline before
		// it reads the next request.
		_ = conn.SetReadDeadline(time.Now())
		<-done
		_ = conn.SetReadDeadline(time.Time{})
	}
}

// clientWatchAfter is how long a request runs before its connection is
// watched for the client leaving.
const clientWatchAfter = 10 * time.Millisecond
