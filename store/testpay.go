package store

import (
	"time"
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
		ID: trimPrefix(r.PK, prefixTestPaySession), Key: r.Key, Mode: r.Mode, Amount: Money{Amount: r.Amount, Currency: r.Currency},
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
		ID: trimPrefix(r.PK, prefixTestPayIntent), Key: r.Key, Status: r.Status, Amount: Money{Amount: r.Amount, Currency: r.Currency},
		CustomerRef: r.CustomerRef, MethodRef: r.MethodRef, SessionID: r.SessionID, Description: r.Description,
		ReturnURL: r.ReturnURL, Card: r.Card, Metadata: r.Metadata, DeclineCode: r.DeclineCode,
		Refunded: Money{Amount: r.Refunded, Currency: r.Currency}, CreatedAt: parseTime(r.CreatedAt),
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
		Amount: Money{Amount: r.Amount, Currency: r.Currency}, Metadata: r.Metadata, At: parseTime(r.At)}
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
