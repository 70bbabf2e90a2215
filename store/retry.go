package store

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go/middleware"
)

// How the shop retries DynamoDB. A throttled request (a hot partition, an
// on-demand table doubling its capacity) is retried after a random wait of
// up to retryBase·2^attempt, at most retryCap: full jitter, so replicas
// throttled together do not come back together. The SDK's default waits
// start at a second, far too long for a page; and its retry quota, which
// after a burst of throttles fails requests without trying them, is off:
// a drop's burst is exactly when the shop must keep trying.
const (
	retryAttempts = 8
	retryBase     = 25 * time.Millisecond
	retryCap      = 2 * time.Second
)

func newRetryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = retryAttempts
		o.MaxBackoff = retryCap
		o.Backoff = jitterBackoff{base: retryBase, cap: retryCap}
		o.RateLimiter = ratelimit.None
	})
}

// jitterBackoff is "full jitter": uniform in [0, min(cap, base·2^attempt)).
type jitterBackoff struct{ base, cap time.Duration }

func (b jitterBackoff) BackoffDelay(attempt int, _ error) (time.Duration, error) {
	return time.Duration(rand.Int64N(int64(b.ceiling(attempt)))), nil
}

// ceiling is the longest wait before the given attempt (1 is the first retry).
func (b jitterBackoff) ceiling(attempt int) time.Duration {
	d := b.base
	for i := 1; i < attempt && d < b.cap; i++ {
		d *= 2
	}
	return min(d, b.cap)
}

// ThrottleObserver is told of each attempt DynamoDB throttled, retries
// included: an Observer sees the operation once, whatever its retries.
type ThrottleObserver interface {
	ObserveThrottle(operation string)
}

var isThrottle = retry.IsErrorThrottles(retry.DefaultThrottles)

// throttleMiddleware sits in the Finalize step after the retry middleware,
// so it runs once per attempt.
func throttleMiddleware(o ThrottleObserver) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("ShopThrottles",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleFinalize(ctx, in)
				if err != nil && isThrottle.IsErrorThrottle(err) == aws.TrueTernary {
					o.ObserveThrottle(awsmiddleware.GetOperationName(ctx))
				}
				return out, md, err
			}), middleware.After)
	}
}
