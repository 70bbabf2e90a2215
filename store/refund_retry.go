package store

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

// Card refunds the gateway has not confirmed. An order's refund whose card
// part failed, and a receipt's refund the gateway did not answer, carry the
// keys of the Attention index's pending-card-refunds partition while they
// wait, and lose them in the write that marks them done: the retry job and
// the console read one small partition instead of scanning. Each failed
// try is counted on the refund with when to try next, so a bank that is
// down is asked less and less often, and after MaxCardRefundTries the job
// leaves the refund to staff (it stays listed, "needs a look").

// MaxCardRefundTries is how many failed tries the job makes of a card
// refund before leaving it to staff; staff's "Retry now" tries regardless.
const MaxCardRefundTries = 6

// cardRefundBackoff is the wait after the n-th failed try: 15 minutes,
// doubled each time (15 min, 30 min, 1 h, 2 h, 4 h).
func cardRefundBackoff(n int) time.Duration {
	return 15 * time.Minute << min(max(n-1, 0), 8)
}

// CardRefundProblem is what the last failed try of a card refund met, in
// words safe to show staff (the gateway's own error stays in the log).
type CardRefundProblem string

const (
	CardRefundNoAnswer CardRefundProblem = "no-answer" // the gateway did not answer, or failed: try again
	CardRefundRefused  CardRefundProblem = "refused"   // the gateway said no: a person should look
)

func cardRefundProblemOf(err error) CardRefundProblem {
	if refusedForGood(err) {
		return CardRefundRefused
	}
	return CardRefundNoAnswer
}

// CardRefundTries is the retry state of a card refund not yet confirmed.
type CardRefundTries struct {
	Count   int               // failed tries so far
	Problem CardRefundProblem // what the last one met
	LastAt  time.Time         // the last failed try
	NextAt  time.Time         // when the job tries again (zero: at once)
}

// NeedsStaff says the job has given up on it: staff retry or look into it.
func (t CardRefundTries) NeedsStaff() bool { return t.Count >= MaxCardRefundTries }

// PendingCardRefund is a card refund waiting for the gateway: an order's
// refund (OrderID and RefundID) or a receipt's (CustomerID and Number).
type PendingCardRefund struct {
	OrderID, RefundID  string
	OrderLabel         string // the order's number (its id for refunds from before numbers were kept here)
	CustomerID, Number string
	Amount             Money  // the card's part
	Provider           string // the provider it goes back through ("": the test provider, ProviderOf)
	At                 time.Time
	Tries              CardRefundTries
}

// IsReceipt says it is a subscription receipt's refund.
func (p PendingCardRefund) IsReceipt() bool { return p.Number != "" }

// dueAt is when the job may try it: not while the request that wrote it
// may still be at the gateway, nor before its backoff ends.
func (p PendingCardRefund) dueAt() time.Time {
	at := p.At.Add(refundResumeAfter)
	if p.Tries.NextAt.After(at) {
		return p.Tries.NextAt
	}
	return at
}

// DueForRetry says the job tries it at now.
func (p PendingCardRefund) DueForRetry(now time.Time) bool {
	return !p.Tries.NeedsStaff() && !now.Before(p.dueAt())
}

// pendingRefundKeys are the Attention keys of a pending card refund: one
// partition (few refunds wait at once), oldest first.
func pendingRefundKeys(at time.Time, id string) (string, string) {
	return pendingCardRefundsList, createdKey(at, id)
}

func orderRefundListID(orderID, key string) string { return orderKey(orderID) + "#" + refundKey(key) }

// cardTriesRecord is the retry state's attributes, on a refund or receipt.
type cardTriesRecord struct {
	CardTries       int    `dynamodbav:"CardTries,omitempty"`
	CardProblem     string `dynamodbav:"CardProblem,omitempty"`
	CardTriedAt     string `dynamodbav:"CardTriedAt,omitempty"`
	CardNextTryAt   string `dynamodbav:"CardNextTryAt,omitempty"`
	AttentionListPK string `dynamodbav:"ATTN-PK,omitempty"` // pending-card-refunds while the card part waits
	AttentionListSK string `dynamodbav:"ATTN-SK,omitempty"` // <at>#<its id>
}

func (r cardTriesRecord) tries() CardRefundTries {
	return CardRefundTries{Count: r.CardTries, Problem: CardRefundProblem(r.CardProblem), LastAt: parseTime(r.CardTriedAt), NextAt: parseTime(r.CardNextTryAt)}
}

// PendingCardRefunds lists every card refund waiting for the gateway,
// oldest first: one Query of the Attention index's pending-card-refunds
// partition (a page of 1 MB is thousands; far more than ever wait).
func (s *Store) PendingCardRefunds(ctx context.Context) ([]PendingCardRefund, error) {
	items, err := s.query(ctx, querySpec{key: onAttention.pkEquals(pendingCardRefundsList)})
	if err != nil {
		return nil, err
	}
	out := make([]PendingCardRefund, 0, len(items))
	for _, item := range items {
		var head struct{ EntityType string }
		if err := attributevalue.UnmarshalMap(item, &head); err != nil {
			return nil, err
		}
		switch head.EntityType {
		case entityRefund:
			var r refundRecord
			if err := attributevalue.UnmarshalMap(item, &r); err != nil {
				return nil, err
			}
			rf := r.refund()
			out = append(out, PendingCardRefund{OrderID: rf.OrderID, OrderLabel: cmp.Or(r.OrderLabel, rf.OrderID), RefundID: rf.ID, Amount: rf.Card, Provider: rf.Provider, At: rf.At, Tries: rf.CardTries})
		case entityReceipt:
			var r receiptRecord
			if err := attributevalue.UnmarshalMap(item, &r); err != nil {
				return nil, err
			}
			rc := r.receipt()
			if rc.Refund == nil {
				continue // let go between the index's write and this read
			}
			out = append(out, PendingCardRefund{CustomerID: rc.AccountID, Number: rc.Number, Amount: rc.Refund.Amount, At: rc.Refund.RequestedAt, Tries: rc.Refund.CardTries})
		}
	}
	return out, nil
}

// OrderRefund reads one of an order's refunds, strongly consistent.
func (s *Store) OrderRefund(ctx context.Context, orderID, key string) (Refund, error) {
	if !ValidID(orderID) || !ValidID(key) {
		return Refund{}, fmt.Errorf("refund %s of order %s: %w", key, orderID, ErrNotFound)
	}
	return getItemConsistent(ctx, s, orderKey(orderID), refundKey(key), "refund "+key, refundRecord.refund)
}

// RetryCardRefund tries again the card part of an order's refund at the
// provider that took the payment, under the key of its first try (so a
// retry never refunds twice; one the provider answered pending is read
// there, not made again): the job's retries, staff's "Retry now", and a
// late payment's refund after its event. A refund done already is returned
// as it is; one still failing is ErrRefundCard, its try counted; one still
// pending at the provider is returned pending, without an error.
//
// Cost: a consistent GetItem of the refund, the provider's refund (or its
// read), and one UpdateItem (marked done, the try counted, or the
// provider's refund id kept).
func (s *Store) RetryCardRefund(ctx context.Context, orderID, key string, refunder Refunder) (Refund, error) {
	rf, err := s.OrderRefund(ctx, orderID, key)
	if err != nil {
		return Refund{}, err
	}
	return s.finishRefund(ctx, Order{ID: orderID}, rf, refunder)
}

// countCardTry records a failed try of a card refund on its item, on
// condition it is still pending (a twin that finished it wins): one
// UpdateItem. before is the tries as read; the backoff follows from them
// (twins failing at once count two tries and wait the same).
func (s *Store) countCardTry(ctx context.Context, pk, sk string, pending expression.ConditionBuilder, before CardRefundTries, cause error) CardRefundTries {
	now := s.now().UTC().Truncate(time.Millisecond)
	t := CardRefundTries{Count: before.Count + 1, Problem: cardRefundProblemOf(cause), LastAt: now}
	t.NextAt = now.Add(cardRefundBackoff(t.Count))
	err := s.updateIf(ctx, pk, sk,
		expression.Add(expression.Name("CardTries"), expression.Value(1)).
			Set(expression.Name("CardProblem"), expression.Value(string(t.Problem))).
			Set(expression.Name("CardTriedAt"), expression.Value(timestamp(now))).
			Set(expression.Name("CardNextTryAt"), expression.Value(timestamp(t.NextAt))),
		pending)
	switch {
	case isConditionFailed(err):
		return before // finished meanwhile
	case err != nil:
		// Logged, not returned: the refund's own error is what the caller
		// needs, and the next try counts again.
		slog.WarnContext(ctx, "card refund's failed try not counted", "pk", pk, "sk", sk, "err", err)
		return before
	}
	return t
}
