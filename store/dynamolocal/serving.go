package dynamolocal

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"
)

// Running is the address in endpointFile if an engine answers there, else
// "". A serving shop notes its engine's address in that file (Serve), so
// the shop's commands on the same data dir use that engine rather than
// start a second one on the same files.
func Running(endpointFile string) string {
	b, err := os.ReadFile(endpointFile)
	if err != nil {
		return ""
	}
	ep := strings.TrimSpace(string(b))
	u, err := url.Parse(ep)
	if err != nil || u.Host == "" {
		return ""
	}
	conn, err := net.DialTimeout("tcp", u.Host, time.Second)
	if err != nil {
		return "" // left behind by a shop that did not stop cleanly
	}
	conn.Close()
	return ep
}

// Serving is a shop's own engine while the shop serves: its address noted
// in a file for the shop's commands (Running), and a Watcher restarting it
// on the same port, so the shop's client keeps its endpoint.
type Serving struct {
	Watcher *Watcher
	// Lost receives why the watcher gave up restarting the engine (once
	// opts.Down has been told): the shop then stops, for its supervisor to
	// start it afresh.
	Lost         <-chan error
	endpointFile string
	stopWatching context.CancelFunc
	watched      <-chan struct{}
}

// Serve notes e's address in endpointFile (none if "") and watches e
// until Stop. On an error e is stopped. The watch outlives ctx's
// cancellation (a signal to the shop): only Stop ends it, once the shop
// has shut down.
func Serve(ctx context.Context, e *Engine, endpointFile string, opts WatchOptions) (*Serving, error) {
	if endpointFile != "" {
		if err := os.WriteFile(endpointFile, []byte(e.Endpoint+"\n"), 0o600); err != nil {
			e.Stop()
			return nil, fmt.Errorf("note the engine's address: %w", err)
		}
	}
	down := opts.Down
	if down == nil {
		down = func(error) {}
	}
	lost := make(chan error, 1)
	watched := make(chan struct{})
	watchCtx, stopWatching := context.WithCancel(context.WithoutCancel(ctx))
	s := &Serving{Watcher: Watch(e, opts), Lost: lost, endpointFile: endpointFile, stopWatching: stopWatching, watched: watched}
	go func() {
		defer close(watched)
		if err := s.Watcher.Run(watchCtx); err != nil {
			down(err)
			lost <- err
		}
	}()
	return s, nil
}

// Stop ends the watch, removes the address file (no command should find
// an engine that is going) and stops the engine running now.
func (s *Serving) Stop() error {
	s.stopWatching()
	<-s.watched
	if s.endpointFile != "" {
		_ = os.Remove(s.endpointFile) // gone already is as good
	}
	return s.Watcher.Stop()
}
