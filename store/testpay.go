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

// The built-in test provider's records (store/payment's TestProvider). A
// real card provider keeps its customers, hosted checkout sessions,
// payments, refunds and saved cards on its side; the test provider keeps
// them here, so that every replica and every restart sees them, and it
// writes each event it will send the shop in the same transaction as the
// change the event reports. The shop's own records read none of this.

// Statuses the store's conditions rest on, as the provider names them
// (payment.SessionOpen and the like).
const (
	testPayOpen      = "open"
	testPaySucceeded = "succeeded"
)

// TestPayCard is a card as the test provider keeps it: how its bank
// answers, never its number.
type TestPayCard struct {
	Brand    string    `dynamodbav:"Brand"`
	Last4    string    `dynamodbav:"Last4"`
	ExpMonth int       `dynamodbav:"ExpMonth"`
	ExpYear  int       `dynamodbav:"ExpYear"`
	Outcome  string    `dynamodbav:"Outcome"`        // how a charge ends: "ok" or a decline's code
	Auth     string    `dynamodbav:"Auth,omitempty"` // when its bank asks the holder to confirm
	Expires  time.Time `dynamodbav:"Expires"`        // the first instant it no longer pays
}

// TestPayChallenge is a bank's "please confirm it is you" waiting on a
// hosted page: the card typed, until the holder approves or fails it.
type TestPayChallenge struct {
	ID   string      `dynamodbav:"ID"`
	Card TestPayCard `dynamodbav:"Card"`
}

// TestPayCustomer is one of the shop's customers at the test provider.
type TestPayCustomer struct {
	ID         string
	Key        string // the idempotency key that made it
	CustomerID string // the shop's
	Email      string
	Name       string
	CreatedAt  time.Time
}

// TestPayMethod is a card the test provider saved for a customer.
type TestPayMethod struct {
	ID          string
	CustomerRef string
	Card        TestPayCard
	CreatedAt   time.Time
}

// TestPaySession is a hosted checkout session.
type TestPaySession struct {
	ID          string
	Key         string // the idempotency key that made it
	Mode        string // "payment" or "setup"
	Amount      Money
	Description string
	CustomerRef string
	SaveCard    bool
	SuccessURL  string
	CancelURL   string
	Metadata    map[string]string
	Status      string // open, complete, expired
	CreatedAt   time.Time
	OpenUntil   time.Time // when it expires if not paid
	ClosedAt    time.Time // completed or expired
	PaymentRef  string    // its payment, once paid (payment mode)
	MethodRef   string    // the card saved, if any
	Card        *TestPayCard
	// Challenge is the bank's question waiting for the holder, if any.
	Challenge *TestPayChallenge
}

// TestPayIntent is a payment at the test provider.
type TestPayIntent struct {
	ID          string
	Key         string
	Status      string // as payment.PaymentSucceeded and the like
	Amount      Money
	CustomerRef string
	MethodRef   string
	SessionID   string // the hosted session it paid, if any
	Description string
	ReturnURL   string
	Card        *TestPayCard
	Metadata    map[string]string
	DeclineCode string
	Refunded    Money // the sum of its refunds
	CreatedAt   time.Time
}

// TestPayRefund is a refund of a payment at the test provider.
type TestPayRefund struct {
	ID         string
	Key        string
	PaymentRef string
	Status     string
	Amount     Money
	Metadata   map[string]string
	At         time.Time
}

// TestPayEvent is an event the test provider sends the shop's webhook:
// Body is the request's body, as signed when it goes. It waits in the due
// list until delivered.
type TestPayEvent struct {
	ID        string
	Type      string
	Created   time.Time
	Body      string
	Attempts  int
	LastError string
	// NextAttemptAt is when it is due: when it was made, then after each
	// failed delivery its backoff.
	NextAttemptAt time.Time
	DeliveredAt   time.Time
	// GaveUp: its deliveries failed for too long; it is off the due list.
	GaveUp bool
}

// testPayEventRetention is how long an event is kept (TTL).
const testPayEventRetention = 30 * 24 * time.Hour

type testPayKeyRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	ID         string `dynamodbav:"ID"`
}

type testPayCustomerRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	Key        string `dynamodbav:"Key,omitempty"`
	CustomerID string `dynamodbav:"CustomerID"`
	Email      string `dynamodbav:"Email"`
	Name       string `dynamodbav:"Name"`
	CreatedAt  string `dynamodbav:"CreatedAt"`
}

func (r testPayCustomerRecord) customer() TestPayCustomer {
	return TestPayCustomer{ID: trimPrefix(r.PK, prefixTestPayCustomer), Key: r.Key, CustomerID: r.CustomerID,
		Email: r.Email, Name: r.Name, CreatedAt: parseTime(r.CreatedAt)}
}

type testPayMethodRecord struct {
	PK          string      `dynamodbav:"PK"`
	SK          string      `dynamodbav:"SK"`
	EntityType  string      `dynamodbav:"EntityType"`
	CustomerRef string      `dynamodbav:"CustomerRef"`
	Card        TestPayCard `dynamodbav:"Card"`
	CreatedAt   string      `dynamodbav:"CreatedAt"`
}

func (r testPayMethodRecord) method() TestPayMethod {
	return TestPayMethod{ID: trimPrefix(r.PK, prefixTestPayMethod), CustomerRef: r.CustomerRef, Card: r.Card, CreatedAt: parseTime(r.CreatedAt)}
}

type testPaySessionRecord struct {
	PK          string            `dynamodbav:"PK"`
	SK          string            `dynamodbav:"SK"`
	EntityType  string            `dynamodbav:"EntityType"`
	Key         string            `dynamodbav:"Key,omitempty"`
	Mode        string            `dynamodbav:"Mode"`
	Amount      int64             `dynamodbav:"Amount"`
	Currency    string            `dynamodbav:"Currency"`
	Description string            `dynamodbav:"Description"`
	CustomerRef string            `dynamodbav:"CustomerRef,omitempty"`
	SaveCard    bool              `dynamodbav:"SaveCard"`
	SuccessURL  string            `dynamodbav:"SuccessURL"`
	CancelURL   string            `dynamodbav:"CancelURL,omitempty"`
	Metadata    map[string]string `dynamodbav:"Metadata,omitempty"`
	Status      string            `dynamodbav:"Status"`
	CreatedAt   string            `dynamodbav:"CreatedAt"`
	OpenUntil   string            `dynamodbav:"OpenUntil"`
	ClosedAt    string            `dynamodbav:"ClosedAt,omitempty"`
	PaymentRef  string            `dynamodbav:"PaymentRef,omitempty"`
	MethodRef   string            `dynamodbav:"MethodRef,omitempty"`
	Card        *TestPayCard      `dynamodbav:"Card,omitempty"`
	Challenge   *TestPayChallenge `dynamodbav:"Challenge,omitempty"`
	// In the due list while open, due when it expires.
	GSI2PK string `dynamodbav:"GSI2-PK,omitempty"`
	GSI2SK string `dynamodbav:"GSI2-SK,omitempty"`
}

func newTestPaySessionRecord(s TestPaySession, shards int) testPaySessionRecord {
	r := testPaySessionRecord{
		PK: testPaySessionKey(s.ID), SK: sortKeySession, EntityType: entityTestPaySession, Key: s.Key,
		Mode: s.Mode, Amount: s.Amount.Amount, Currency: s.Amount.Currency, Description: s.Description,
		CustomerRef: s.CustomerRef, SaveCard: s.SaveCard, SuccessURL: s.SuccessURL, CancelURL: s.CancelURL,
		Metadata: s.Metadata, Status: s.Status, CreatedAt: timestamp(s.CreatedAt), OpenUntil: timestamp(s.OpenUntil),
		PaymentRef: s.PaymentRef, MethodRef: s.MethodRef, Card: s.Card, Challenge: s.Challenge,
	}
	if !s.ClosedAt.IsZero() {
		r.ClosedAt = timestamp(s.ClosedAt)
	}
	if s.Status == testPayOpen {
		r.GSI2PK, r.GSI2SK = testPayDueKey(s.ID, shards), createdKey(s.OpenUntil, s.ID)
	}
	return r
}

func (r testPaySessionRecord) session() TestPaySession {
	return TestPaySession{
		ID: trimPrefix(r.PK, prefixTestPaySession), Key: r.Key, Mode: r.Mode, Amount: Money{r.Amount, r.Currency},
		Description: r.Description, CustomerRef: r.CustomerRef, SaveCard: r.SaveCard, SuccessURL: r.SuccessURL,
		CancelURL: r.CancelURL, Metadata: r.Metadata, Status: r.Status, CreatedAt: parseTime(r.CreatedAt),
		OpenUntil: parseTime(r.OpenUntil), ClosedAt: parseTime(r.ClosedAt), PaymentRef: r.PaymentRef,
		MethodRef: r.MethodRef, Card: r.Card, Challenge: r.Challenge,
	}
}

type testPayIntentRecord struct {
	PK          string            `dynamodbav:"PK"`
	SK          string            `dynamodbav:"SK"`
	EntityType  string            `dynamodbav:"EntityType"`
	Key         string            `dynamodbav:"Key,omitempty"`
	Status      string            `dynamodbav:"Status"`
	Amount      int64             `dynamodbav:"Amount"`
	Currency    string            `dynamodbav:"Currency"`
	CustomerRef string            `dynamodbav:"CustomerRef,omitempty"`
	MethodRef   string            `dynamodbav:"MethodRef,omitempty"`
	SessionID   string            `dynamodbav:"SessionID,omitempty"`
	Description string            `dynamodbav:"Description,omitempty"`
	ReturnURL   string            `dynamodbav:"ReturnURL,omitempty"`
	Card        *TestPayCard      `dynamodbav:"Card,omitempty"`
	Metadata    map[string]string `dynamodbav:"Metadata,omitempty"`
	DeclineCode string            `dynamodbav:"DeclineCode,omitempty"`
	Refunded    int64             `dynamodbav:"Refunded"` // raised by each refund, within Amount
	CreatedAt   string            `dynamodbav:"CreatedAt"`
}

func newTestPayIntentRecord(p TestPayIntent) testPayIntentRecord {
	return testPayIntentRecord{
		PK: testPayIntentKey(p.ID), SK: sortKeyIntent, EntityType: entityTestPayIntent, Key: p.Key, Status: p.Status,
		Amount: p.Amount.Amount, Currency: p.Amount.Currency, CustomerRef: p.CustomerRef, MethodRef: p.MethodRef,
		SessionID: p.SessionID, Description: p.Description, ReturnURL: p.ReturnURL, Card: p.Card, Metadata: p.Metadata,
		DeclineCode: p.DeclineCode, Refunded: p.Refunded.Amount, CreatedAt: timestamp(p.CreatedAt),
	}
}

func (r testPayIntentRecord) intent() TestPayIntent {
	return TestPayIntent{
		ID: trimPrefix(r.PK, prefixTestPayIntent), Key: r.Key, Status: r.Status, Amount: Money{r.Amount, r.Currency},
		CustomerRef: r.CustomerRef, MethodRef: r.MethodRef, SessionID: r.SessionID, Description: r.Description,
		ReturnURL: r.ReturnURL, Card: r.Card, Metadata: r.Metadata, DeclineCode: r.DeclineCode,
		Refunded: Money{r.Refunded, r.Currency}, CreatedAt: parseTime(r.CreatedAt),
	}
}

type testPayRefundRecord struct {
	PK         string            `dynamodbav:"PK"`
	SK         string            `dynamodbav:"SK"`
	EntityType string            `dynamodbav:"EntityType"`
	Key        string            `dynamodbav:"Key,omitempty"`
	PaymentRef string            `dynamodbav:"PaymentRef"`
	Status     string            `dynamodbav:"Status"`
	Amount     int64             `dynamodbav:"Amount"`
	Currency   string            `dynamodbav:"Currency"`
	Metadata   map[string]string `dynamodbav:"Metadata,omitempty"`
	At         string            `dynamodbav:"At"`
}

func (r testPayRefundRecord) refund() TestPayRefund {
	return TestPayRefund{ID: trimPrefix(r.PK, prefixTestPayRefund), Key: r.Key, PaymentRef: r.PaymentRef, Status: r.Status,
		Amount: Money{r.Amount, r.Currency}, Metadata: r.Metadata, At: parseTime(r.At)}
}

type testPayEventRecord struct {
	PK            string `dynamodbav:"PK"`
	SK            string `dynamodbav:"SK"`
	EntityType    string `dynamodbav:"EntityType"`
	Type          string `dynamodbav:"Type"`
	Created       string `dynamodbav:"Created"`
	Body          string `dynamodbav:"Body"`
	Attempts      int    `dynamodbav:"Attempts"`
	LastError     string `dynamodbav:"LastError,omitempty"`
	NextAttemptAt string `dynamodbav:"NextAttemptAt,omitempty"`
	DeliveredAt   string `dynamodbav:"DeliveredAt,omitempty"`
	GaveUp        bool   `dynamodbav:"GaveUp,omitempty"`
	ExpiresAt     int64  `dynamodbav:"ExpiresAt"`
	// In the due list until delivered (or given up), due at NextAttemptAt.
	GSI2PK string `dynamodbav:"GSI2-PK,omitempty"`
	GSI2SK string `dynamodbav:"GSI2-SK,omitempty"`
}

func newTestPayEventRecord(e TestPayEvent, shards int) testPayEventRecord {
	r := testPayEventRecord{
		PK: testPayEventKey(e.ID), SK: sortKeyEvent, EntityType: entityTestPayEvent, Type: e.Type,
		Created: timestamp(e.Created), Body: e.Body, Attempts: e.Attempts, LastError: e.LastError, GaveUp: e.GaveUp,
		ExpiresAt: e.Created.Add(testPayEventRetention).Unix(),
	}
	due := e.NextAttemptAt
	if due.IsZero() {
		due = e.Created
	}
	r.NextAttemptAt = timestamp(due)
	if !e.DeliveredAt.IsZero() {
		r.DeliveredAt = timestamp(e.DeliveredAt)
	}
	if e.DeliveredAt.IsZero() && !e.GaveUp {
		r.GSI2PK, r.GSI2SK = testPayDueKey(e.ID, shards), createdKey(due, e.ID)
	}
	return r
}

func (r testPayEventRecord) event() TestPayEvent {
	return TestPayEvent{ID: trimPrefix(r.PK, prefixTestPayEvent), Type: r.Type, Created: parseTime(r.Created), Body: r.Body,
		Attempts: r.Attempts, LastError: r.LastError, NextAttemptAt: parseTime(r.NextAttemptAt),
		DeliveredAt: parseTime(r.DeliveredAt), GaveUp: r.GaveUp}
}

type testPaySecretRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	Secret     string `dynamodbav:"Secret"`
}

// TestPaySecret is the secret the test provider signs its events with:
// made on first use, once per table (the first writer's stays), and read
// by every replica.
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
