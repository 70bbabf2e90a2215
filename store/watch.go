package store

import (
	"context"
	"sync/atomic"

	"github.com/aws/smithy-go/middleware"
)

// watcher, once WatchRequests sets it, sees every request of every client
// NewClient makes for a local engine.
var watcher atomic.Pointer[func(params any)]

// WatchRequests has f see the input of every request a client for a local
// engine (ClientConfig.Endpoint) sends from now on, before it is sent, in
// any client made before or after: tests putting back a table they share
// between tests learn which keys a test wrote, whatever client wrote them.
// Clients of AWS itself are never watched.
func WatchRequests(f func(params any)) { watcher.Store(&f) }

// watchMiddleware hands each operation's input to the watcher, once per
// call (in the Initialize step, before retries).
func watchMiddleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("ShopWatch",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			if f := watcher.Load(); f != nil {
				(*f)(in.Parameters)
			}
			return next.HandleInitialize(ctx, in)
		}), middleware.Before)
}
