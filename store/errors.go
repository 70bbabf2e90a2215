package store

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Sentinel errors: callers compare with errors.Is and map them to pages.
var (
	ErrNotFound          = errors.New("not found")
	ErrConflict          = errors.New("conflict: the item changed or already exists")
	ErrEmailTaken        = errors.New("email already registered")
	ErrBadCursor         = errors.New("malformed page cursor")
	ErrInsufficientStock = errors.New("insufficient stock")
	// ErrSoldOut: a drop's every ticket is claimed (a refusal the drop's
	// page says).
	ErrSoldOut error = Refuse(Conflict, "drops.refused.sold_out", "sold out")
	// ErrRefundExceedsCharge: the refunds of a charge (or of an order) would
	// give back more than it took.
	ErrRefundExceedsCharge = errors.New("the refund is more than what is left to refund")
	ErrBadRefund           = errors.New("not a refund the shop can make")
)

// cancellationReasons returns the per-item reason codes of a cancelled
// transaction, in the order of its items, or nil for any other error.
func cancellationReasons(err error) []string {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return nil
	}
	codes := make([]string, len(tce.CancellationReasons))
	for i, r := range tce.CancellationReasons {
		if r.Code != nil {
			codes[i] = *r.Code
		}
	}
	return codes
}

func isConditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// Cancellation reason codes DynamoDB gives per transaction item.
const (
	reasonConditionFailed     = "ConditionalCheckFailed"
	reasonTransactionConflict = "TransactionConflict"
)

// transactWrite runs a transaction, retrying a few times while it is
// cancelled only because another transaction held one of its items: that is
// contention, not an answer. A condition failure is returned at once.
func (s *Store) transactWrite(ctx context.Context, in *dynamodb.TransactWriteItemsInput) error {
	const attempts = 6
	var err error
	for i := range attempts {
		_, err = s.db.TransactWriteItems(ctx, in)
		if err == nil && carriesShopEvent(in.TransactItems) {
			s.shopEventWritten() // shop_events.go
		}
		reasons := cancellationReasons(err)
		if reasons == nil || slices.Contains(reasons, reasonConditionFailed) || !slices.Contains(reasons, reasonTransactionConflict) {
			return err
		}
		backoff := time.Duration(10<<i)*time.Millisecond + rand.N(10*time.Millisecond)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
	}
	return err
}
