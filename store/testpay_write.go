package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The test provider's reads and conditional writes; its records are in testpay.go.

func (s *Store) TestPaySecret(ctx context.Context) (string, error) {
	read := func() (string, error) {
		return getItemConsistent(ctx, s, partitionMeta, sortKeyTestPaySecret, "test provider secret",
			func(r testPaySecretRecord) string { return r.Secret })
	}
	secret, err := read()
	if !errors.Is(err, ErrNotFound) {
		return secret, err
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	err = s.putNew(ctx, testPaySecretRecord{PK: partitionMeta, SK: sortKeyTestPaySecret, EntityType: entityMeta,
		Secret: "whsec_test_" + hex.EncodeToString(b[:])}, "test provider secret")
	if err != nil && !errors.Is(err, ErrConflict) {
		return "", err
	}
	return read()
}

// txPutIf is a transaction's Put of rec on condition cond.
func (s *Store) txPutIf(rec any, cond expression.ConditionBuilder) (types.TransactWriteItem, error) {
	item, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	expr, err := expression.NewBuilder().WithCondition(cond).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(s.table), Item: item, ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}

// putTestPayNew writes rec, new, with its idempotency key's item when key
// is set (the key's sort key is kind), and more writes, in one
// transaction. A key already used answers the id it made with ErrConflict.
func (s *Store) putTestPayNew(ctx context.Context, rec any, kind, key, id, what string, more ...types.TransactWriteItem) (string, error) {
	put, err := s.txPutNew(rec)
	if err != nil {
		return "", err
	}
	items := []types.TransactWriteItem{put}
	if key != "" {
		keyPut, err := s.txPutNew(testPayKeyRecord{PK: testPayIdemKey(key), SK: kind, EntityType: entityTestPayKey, ID: id})
		if err != nil {
			return "", err
		}
		items = append(items, keyPut)
	}
	items = append(items, more...)
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	reasons := cancellationReasons(err)
	switch {
	case key != "" && reasons != nil && reasons[1] == reasonConditionFailed:
		first, rerr := getItemConsistent(ctx, s, testPayIdemKey(key), kind, what+" key", func(r testPayKeyRecord) string { return r.ID })
		if rerr != nil {
			return "", rerr
		}
		return first, fmt.Errorf("%s key %s: %w", what, key, ErrConflict)
	case reasons != nil && reasons[0] == reasonConditionFailed:
		return "", fmt.Errorf("%s %s: %w", what, id, ErrConflict)
	case err != nil:
		return "", fmt.Errorf("create %s: %w", what, err)
	}
	return id, nil
}

// PutTestPayCustomer creates a customer once per idempotency key: a key
// used before answers its first customer with ErrConflict.
func (s *Store) PutTestPayCustomer(ctx context.Context, c TestPayCustomer) (TestPayCustomer, error) {
	rec := testPayCustomerRecord{PK: testPayCustomerKey(c.ID), SK: sortKeyCustomer, EntityType: entityTestPayCustomer,
		Key: c.Key, CustomerID: c.CustomerID, Email: c.Email, Name: c.Name, CreatedAt: timestamp(c.CreatedAt)}
	first, err := s.putTestPayNew(ctx, rec, sortKeyCustomer, c.Key, c.ID, "test provider customer")
	if errors.Is(err, ErrConflict) && first != "" {
		found, rerr := s.TestPayCustomer(ctx, first)
		if rerr != nil {
			return TestPayCustomer{}, rerr
		}
		return found, err
	}
	return c, err
}

// TestPayCustomer reads a customer; ErrNotFound once deleted.
func (s *Store) TestPayCustomer(ctx context.Context, id string) (TestPayCustomer, error) {
	return getItemConsistent(ctx, s, testPayCustomerKey(id), sortKeyCustomer, "test provider customer "+id, testPayCustomerRecord.customer)
}

// DeleteTestPayCustomer deletes a customer (erasure); one gone is fine.
// Its saved cards stay, unusable: a payment checks its method's customer.
func (s *Store) DeleteTestPayCustomer(ctx context.Context, id string) error {
	return s.deleteItem(ctx, testPayCustomerKey(id), sortKeyCustomer)
}

// TestPayMethod reads a saved card.
func (s *Store) TestPayMethod(ctx context.Context, id string) (TestPayMethod, error) {
	return getItemConsistent(ctx, s, testPayMethodKey(id), sortKeyMethod, "test provider card "+id, testPayMethodRecord.method)
}

// PutTestPaySession opens a hosted checkout session once per idempotency
// key (a key used before answers its first session with ErrConflict), in
// the due list until it expires.
func (s *Store) PutTestPaySession(ctx context.Context, ses TestPaySession) (TestPaySession, error) {
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return TestPaySession{}, err
	}
	first, err := s.putTestPayNew(ctx, newTestPaySessionRecord(ses, shards), sortKeySession, ses.Key, ses.ID, "test provider session")
	if errors.Is(err, ErrConflict) && first != "" {
		found, rerr := s.TestPaySession(ctx, first)
		if rerr != nil {
			return TestPaySession{}, rerr
		}
		return found, err
	}
	return ses, err
}

// TestPaySession reads a session (consistent: its page acts on it).
func (s *Store) TestPaySession(ctx context.Context, id string) (TestPaySession, error) {
	return getItemConsistent(ctx, s, testPaySessionKey(id), sortKeySession, "test provider session "+id, testPaySessionRecord.session)
}

// ErrTestPaySessionClosed: the session is no longer open (or, for a
// challenge's answer, no longer waits on that challenge); the error comes
// with the session as it stands.
var ErrTestPaySessionClosed = errors.New("the checkout session is no longer open")

// sessionStillOpen is the condition of every change to an open session:
// open, not past its time, and (when challenge is set) still waiting on
// that challenge.
func sessionStillOpen(at time.Time, challenge string) expression.ConditionBuilder {
	cond := expression.Name("Status").Equal(expression.Value(testPayOpen)).
		And(expression.Name("OpenUntil").GreaterThan(expression.Value(timestamp(at))))
	if challenge != "" {
		cond = cond.And(expression.Name("Challenge.ID").Equal(expression.Value(challenge)))
	}
	return cond
}

// TestPaySessionChange is one change of an open session, written at At
// with what it brings: its payment, the card it saves, its event.
type TestPaySessionChange struct {
	Session TestPaySession // as it is after the change
	At      time.Time
	// Challenge, if set, is the challenge the session must still wait on.
	Challenge string
	Payment   *TestPayIntent
	Method    *TestPayMethod
	Event     *TestPayEvent
}

// ChangeTestPaySession writes a change of an open session (a challenge
// asked or answered, its completion) in one transaction with its payment,
// saved card and event, on condition the session is still open, not past
// its time and, if given, on the same challenge: twenty submissions of one
// session's form complete it once, with one payment and one event. A
// session no longer open answers ErrTestPaySessionClosed with the session
// as it stands.
func (s *Store) ChangeTestPaySession(ctx context.Context, ch TestPaySessionChange) (TestPaySession, error) {
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return TestPaySession{}, err
	}
	put, err := s.txPutIf(newTestPaySessionRecord(ch.Session, shards), sessionStillOpen(ch.At, ch.Challenge))
	if err != nil {
		return TestPaySession{}, err
	}
	items := []types.TransactWriteItem{put}
	add := func(rec any) error {
		p, err := s.txPutNew(rec)
		items = append(items, p)
		return err
	}
	if ch.Payment != nil {
		if err := add(newTestPayIntentRecord(*ch.Payment)); err != nil {
			return TestPaySession{}, err
		}
	}
	if m := ch.Method; m != nil {
		if err := add(testPayMethodRecord{PK: testPayMethodKey(m.ID), SK: sortKeyMethod, EntityType: entityTestPayMethod,
			CustomerRef: m.CustomerRef, Card: m.Card, CreatedAt: timestamp(m.CreatedAt)}); err != nil {
			return TestPaySession{}, err
		}
	}
	if ch.Event != nil {
		if err := add(newTestPayEventRecord(*ch.Event, shards)); err != nil {
			return TestPaySession{}, err
		}
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	switch reasons := cancellationReasons(err); {
	case reasons != nil && reasons[0] == reasonConditionFailed:
		now, rerr := s.TestPaySession(ctx, ch.Session.ID)
		if rerr != nil {
			return TestPaySession{}, rerr
		}
		return now, ErrTestPaySessionClosed
	case err != nil:
		return TestPaySession{}, fmt.Errorf("change test provider session %s: %w", ch.Session.ID, err)
	}
	return ch.Session, nil
}

// ExpireTestPaySession closes an open session unpaid, with its event, on
// condition it is still open (whatever its time: the shop may end it
// early). A session no longer open answers ErrTestPaySessionClosed with
// the session as it stands.
func (s *Store) ExpireTestPaySession(ctx context.Context, ses TestPaySession, ev TestPayEvent) (TestPaySession, error) {
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return TestPaySession{}, err
	}
	put, err := s.txPutIf(newTestPaySessionRecord(ses, shards), expression.Name("Status").Equal(expression.Value(testPayOpen)))
	if err != nil {
		return TestPaySession{}, err
	}
	evPut, err := s.txPutNew(newTestPayEventRecord(ev, shards))
	if err != nil {
		return TestPaySession{}, err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{put, evPut}})
	switch reasons := cancellationReasons(err); {
	case reasons != nil && reasons[0] == reasonConditionFailed:
		now, rerr := s.TestPaySession(ctx, ses.ID)
		if rerr != nil {
			return TestPaySession{}, rerr
		}
		return now, ErrTestPaySessionClosed
	case err != nil:
		return TestPaySession{}, fmt.Errorf("expire test provider session %s: %w", ses.ID, err)
	}
	return ses, nil
}

// PutTestPayIntent creates a payment once per idempotency key: a key used
// before answers its first payment with ErrConflict.
func (s *Store) PutTestPayIntent(ctx context.Context, p TestPayIntent) (TestPayIntent, error) {
	first, err := s.putTestPayNew(ctx, newTestPayIntentRecord(p), sortKeyIntent, p.Key, p.ID, "test provider payment")
	if errors.Is(err, ErrConflict) && first != "" {
		found, rerr := s.TestPayIntent(ctx, first)
		if rerr != nil {
			return TestPayIntent{}, rerr
		}
		return found, err
	}
	return p, err
}

// TestPayIntent reads a payment (consistent).
func (s *Store) TestPayIntent(ctx context.Context, id string) (TestPayIntent, error) {
	return getItemConsistent(ctx, s, testPayIntentKey(id), sortKeyIntent, "test provider payment "+id, testPayIntentRecord.intent)
}

// MoveTestPayIntent writes a payment's new status (with its event, if
// any) on condition it is still in status from: a payment confirmed twice
// at once is charged once. The loser gets ErrConflict with the payment as
// it stands. A succeeded payment never moves (its refunds raise
// Refunded, which a move would overwrite).
func (s *Store) MoveTestPayIntent(ctx context.Context, p TestPayIntent, from string, ev *TestPayEvent) (TestPayIntent, error) {
	if from == testPaySucceeded {
		return TestPayIntent{}, fmt.Errorf("payment %s: a succeeded payment does not move: %w", p.ID, ErrConflict)
	}
	put, err := s.txPutIf(newTestPayIntentRecord(p), expression.Name("Status").Equal(expression.Value(from)))
	if err != nil {
		return TestPayIntent{}, err
	}
	items := []types.TransactWriteItem{put}
	if ev != nil {
		shards, err := s.lists.count(ctx, s)
		if err != nil {
			return TestPayIntent{}, err
		}
		evPut, err := s.txPutNew(newTestPayEventRecord(*ev, shards))
		if err != nil {
			return TestPayIntent{}, err
		}
		items = append(items, evPut)
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	switch reasons := cancellationReasons(err); {
	case reasons != nil && reasons[0] == reasonConditionFailed:
		now, rerr := s.TestPayIntent(ctx, p.ID)
		if rerr != nil {
			return TestPayIntent{}, rerr
		}
		return now, fmt.Errorf("payment %s is %s, not %s: %w", p.ID, now.Status, from, ErrConflict)
	case err != nil:
		return TestPayIntent{}, fmt.Errorf("move test provider payment %s: %w", p.ID, err)
	}
	return p, nil
}

// PutTestPayRefund refunds part of a payment once per idempotency key, in
// one transaction with its event and the raise of the payment's Refunded,
// on condition the payment succeeded, is in the refund's currency and
// keeps Refunded within its amount: refunds racing on one payment never
// give back more than it took (ErrRefundExceedsCharge). A key used before
// answers its first refund with ErrConflict.
func (s *Store) PutTestPayRefund(ctx context.Context, r TestPayRefund, ev TestPayEvent) (TestPayRefund, error) {
	if r.Amount.Amount <= 0 {
		return TestPayRefund{}, fmt.Errorf("a refund gives back more than nothing: %w", ErrBadRefund)
	}
	pay, err := s.TestPayIntent(ctx, r.PaymentRef)
	if err != nil {
		return TestPayRefund{}, err
	}
	if r.Amount.Amount > pay.Amount.Amount {
		return TestPayRefund{}, ErrRefundExceedsCharge // not even a first refund could
	}
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return TestPayRefund{}, err
	}
	// Refunded + amount <= Amount, as DynamoDB can say it (the payment's
	// amount never changes).
	raise, err := s.txUpdate(testPayIntentKey(pay.ID), sortKeyIntent,
		expression.Add(expression.Name("Refunded"), expression.Value(r.Amount.Amount)),
		expression.Name("Refunded").LessThanEqual(expression.Value(pay.Amount.Amount-r.Amount.Amount)).
			And(expression.Name("Status").Equal(expression.Value(testPaySucceeded))).
			And(expression.Name("Currency").Equal(expression.Value(r.Amount.Currency))))
	if err != nil {
		return TestPayRefund{}, err
	}
	evPut, err := s.txPutNew(newTestPayEventRecord(ev, shards))
	if err != nil {
		return TestPayRefund{}, err
	}
	rec := testPayRefundRecord{PK: testPayRefundKey(r.ID), SK: sortKeyRefund, EntityType: entityTestPayRefund, Key: r.Key,
		PaymentRef: r.PaymentRef, Status: r.Status, Amount: r.Amount.Amount, Currency: r.Amount.Currency,
		Metadata: r.Metadata, At: timestamp(r.At)}
	// The refund and its key first: a key used before is told apart from a
	// refund over what is left by the item that failed.
	first, err := s.putTestPayNew(ctx, rec, sortKeyRefund, r.Key, r.ID, "test provider refund", raise, evPut)
	reasons := cancellationReasons(err)
	switch {
	case errors.Is(err, ErrConflict) && first != "":
		found, rerr := s.TestPayRefund(ctx, first)
		if rerr != nil {
			return TestPayRefund{}, rerr
		}
		return found, err
	case reasons != nil && reasons[len(reasons)-2] == reasonConditionFailed:
		return TestPayRefund{}, ErrRefundExceedsCharge
	case err != nil:
		return TestPayRefund{}, err
	}
	return r, nil
}

// TestPayRefund reads a refund.
func (s *Store) TestPayRefund(ctx context.Context, id string) (TestPayRefund, error) {
	return getItemConsistent(ctx, s, testPayRefundKey(id), sortKeyRefund, "test provider refund "+id, testPayRefundRecord.refund)
}

// TestPayDue is what the test provider has due by now, longest due first,
// up to limit: events to deliver, and open sessions past their time (by
// id) to expire. One Query per shard of the sparse GSI2 list testpay-due#n.
func (s *Store) TestPayDue(ctx context.Context, limit int) (events []TestPayEvent, expired []string, err error) {
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	upTo := timestamp(s.now().Add(time.Millisecond)) // every key of this millisecond sorts below
	l := shardedList{id: listTestPayDue, shards: shards, key: func(n int) keyCond {
		return onGSI2.pkAndSKBelow(shardKey(listTestPayDue, n), upTo)
	}}
	// An item of the list is an event or an open session: read as an
	// event's record, a session's keys and type are all it needs.
	p, err := mergedPage(ctx, s, l, limit, "", asRecord[testPayEventRecord])
	if err != nil {
		return nil, nil, err
	}
	for _, r := range p.Items {
		switch r.EntityType {
		case entityTestPayEvent:
			events = append(events, r.event())
		case entityTestPaySession:
			expired = append(expired, trimPrefix(r.PK, prefixTestPaySession))
		}
	}
	return events, expired, nil
}

// TestPayEvent reads an event.
func (s *Store) TestPayEvent(ctx context.Context, id string) (TestPayEvent, error) {
	return getItemConsistent(ctx, s, testPayEventKey(id), sortKeyEvent, "test provider event "+id, testPayEventRecord.event)
}

// MarkTestPayEvent records a delivery's outcome: delivered (off the due
// list), or failed with its next attempt (moved along the list), or given
// up (off the list).
func (s *Store) MarkTestPayEvent(ctx context.Context, e TestPayEvent) error {
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return err
	}
	err = s.putIf(ctx, newTestPayEventRecord(e, shards), expression.AttributeExists(expression.Name(attrPK)))
	if err != nil {
		return fmt.Errorf("mark test provider event %s: %w", e.ID, err)
	}
	return nil
}
