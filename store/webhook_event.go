package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Webhook events: an item written in the same transaction as the change
// it reports (the outbox pattern the mail uses), so no change is lost and
// none is announced that did not happen. The event keeps the exact body
// every endpoint is sent (what is signed) and, per endpoint, where its
// delivery is; while one is waiting, the event sits in the sparse GSI2
// list webhooks-due under the earliest time one is due. Each attempt is an
// item of its own beside the event, kept 30 days.

// Announcement asks a write to put the event of its change in its own
// transaction, for the integration's endpoints that want it (as the
// caller's key cache knows them). Data is the changed object as the API
// shows it, made from what the write wrote.
type Announcement[T any] struct {
	Integration string
	Endpoints   []string
	Data        func(T) any
}

// DeliveryStatus is where one event's delivery to one endpoint is.
type DeliveryStatus string

const (
	DeliveryPending   DeliveryStatus = "pending" // not sent yet, or refused and retried at NextAt
	DeliveryDelivered DeliveryStatus = "delivered"
	DeliveryFailed    DeliveryStatus = "failed"  // refused for three days: given up
	DeliveryDropped   DeliveryStatus = "dropped" // its endpoint was deleted
)

// WebhookDelivery is one event's delivery to one endpoint.
type WebhookDelivery struct {
	Status   DeliveryStatus
	Attempts int
	NextAt   time.Time // when a pending one is due
	// Since is when it was last resent (zero: never); it is given up
	// three days after this, or after its event when never resent.
	Since time.Time
}

// WebhookEvent is a change announced to an integration's endpoints.
type WebhookEvent struct {
	ID          string
	Type        string
	Integration string
	// Customer is whose personal data a shop event carries ("" for none):
	// it lists the event in GSI1 by customer, for export and erasure.
	Customer   string
	CreatedAt  time.Time
	Body       []byte // {"id","type","created","data"}: sent and signed as it is
	Deliveries map[string]WebhookDelivery
	Version    int
}

// Due is when the event's earliest waiting delivery is due; zero when
// none waits.
func (e WebhookEvent) Due() time.Time {
	var due time.Time
	for _, d := range e.Deliveries {
		if d.Status == DeliveryPending && (due.IsZero() || d.NextAt.Before(due)) {
			due = d.NextAt
		}
	}
	return due
}

// WebhookAttempt is one POST of an event to an endpoint, as logged.
type WebhookAttempt struct {
	EventID  string
	Endpoint string
	At       time.Time
	Status   int    // the HTTP status; 0 when no answer came
	Answer   string // the answer's first bytes, or why none came
	Duration time.Duration
	// Type is the event's type; State the delivery's state once this
	// attempt was recorded (listings read the event for its state now).
	Type  string
	State DeliveryStatus
}

// webhookRetention is how long events and their attempts are kept.
const webhookRetention = 30 * 24 * time.Hour

type webhookDeliveryRecord struct {
	Status   string `dynamodbav:"Status"`
	Attempts int    `dynamodbav:"Attempts"`
	NextAt   string `dynamodbav:"NextAt,omitempty"`
	Since    string `dynamodbav:"Since,omitempty"`
}

type webhookEventRecord struct {
	PK          string                           `dynamodbav:"PK"` // whevent#id
	SK          string                           `dynamodbav:"SK"` // event
	EntityType  string                           `dynamodbav:"EntityType"`
	Type        string                           `dynamodbav:"Type"`
	Integration string                           `dynamodbav:"Integration"`
	CreatedAt   string                           `dynamodbav:"CreatedAt"`
	Body        string                           `dynamodbav:"Body"`
	Deliveries  map[string]webhookDeliveryRecord `dynamodbav:"Deliveries"`
	Version     int                              `dynamodbav:"Version"`
	ExpiresAt   int64                            `dynamodbav:"ExpiresAt"`
	Customer    string                           `dynamodbav:"Customer,omitempty"`
	GSI1PK      string                           `dynamodbav:"GSI1-PK,omitempty"` // whevents-of#<customer>, a shop event's (sparse)
	GSI1SK      string                           `dynamodbav:"GSI1-SK,omitempty"` // <created>#id
	GSI2PK      string                           `dynamodbav:"GSI2-PK,omitempty"` // webhooks-due while a delivery waits
	GSI2SK      string                           `dynamodbav:"GSI2-SK,omitempty"` // <due>#id
}

func (e WebhookEvent) record() webhookEventRecord {
	r := webhookEventRecord{PK: webhookEventKey(e.ID), SK: sortKeyWebhookEvent, EntityType: entityWebhookEvent, Type: e.Type,
		Integration: e.Integration, CreatedAt: timestamp(e.CreatedAt), Body: string(e.Body), Version: e.Version,
		Deliveries: make(map[string]webhookDeliveryRecord, len(e.Deliveries)), ExpiresAt: e.CreatedAt.Add(webhookRetention).Unix()}
	for ep, d := range e.Deliveries {
		dr := webhookDeliveryRecord{Status: string(d.Status), Attempts: d.Attempts}
		if !d.Since.IsZero() {
			dr.Since = timestamp(d.Since)
		}
		if d.Status == DeliveryPending {
			dr.NextAt = timestamp(d.NextAt)
		}
		r.Deliveries[ep] = dr
	}
	if e.Customer != "" {
		r.Customer, r.GSI1PK, r.GSI1SK = e.Customer, customerEventsKey(e.Customer), createdKey(e.CreatedAt, e.ID)
	}
	if due := e.Due(); !due.IsZero() {
		r.GSI2PK, r.GSI2SK = partitionWebhooksDue, createdKey(due, e.ID)
	}
	return r
}

func (r webhookEventRecord) event() WebhookEvent {
	e := WebhookEvent{ID: trimPrefix(r.PK, prefixWebhookEvent), Type: r.Type, Integration: r.Integration, Customer: r.Customer, CreatedAt: parseTime(r.CreatedAt),
		Body: []byte(r.Body), Version: r.Version, Deliveries: make(map[string]WebhookDelivery, len(r.Deliveries))}
	for ep, d := range r.Deliveries {
		e.Deliveries[ep] = WebhookDelivery{Status: DeliveryStatus(d.Status), Attempts: d.Attempts, NextAt: parseTime(d.NextAt), Since: parseTime(d.Since)}
	}
	return e
}

// webhookBody is the JSON every endpoint of an event is sent.
type webhookBody struct {
	ID      string    `json:"id"`
	Type    string    `json:"type"`
	Created time.Time `json:"created"`
	Data    any       `json:"data"`
}

// announce is the event of a change of obj made at now, due at once to
// each endpoint; false when nobody asked for it.
func announce[T any](a *Announcement[T], typ string, now time.Time, obj T) (WebhookEvent, bool, error) {
	return announceAs(a, NewID(), typ, now, obj)
}

// announceAs is announce with the event's id given (onceEventID for an
// event written once).
func announceAs[T any](a *Announcement[T], id, typ string, now time.Time, obj T) (WebhookEvent, bool, error) {
	if a == nil || len(a.Endpoints) == 0 {
		return WebhookEvent{}, false, nil
	}
	if a.Data == nil {
		return WebhookEvent{}, false, errNoAnnouncement
	}
	e := WebhookEvent{ID: id, Type: typ, Integration: a.Integration, CreatedAt: now, Deliveries: map[string]WebhookDelivery{}}
	body, err := json.Marshal(webhookBody{ID: "evt_" + e.ID, Type: typ, Created: now.UTC(), Data: a.Data(obj)})
	if err != nil {
		return WebhookEvent{}, false, fmt.Errorf("the %s event: %w", typ, err)
	}
	e.Body = body
	for _, ep := range a.Endpoints {
		e.Deliveries[ep] = WebhookDelivery{Status: DeliveryPending, NextAt: now}
	}
	return e, true, nil
}

// txAnnounce is the transaction's Put of the event of a change, if anybody
// asked for it (ok false: nothing to add).
func txAnnounce[T any](s *Store, a *Announcement[T], typ string, now time.Time, obj T) (item types.TransactWriteItem, ok bool, err error) {
	e, ok, err := announce(a, typ, now, obj)
	if !ok || err != nil {
		return types.TransactWriteItem{}, false, err
	}
	item, err = s.txPutNew(e.record())
	return item, err == nil, err
}

// DueWebhookEvents lists events with a delivery due now, longest due
// first (GSI2: GSI2-PK=webhooks-due, sparse; GSI2-SK up to now). An event
// whose deliveries all wait out their backoff is not read at all.
func (s *Store) DueWebhookEvents(ctx context.Context, limit int) ([]WebhookEvent, error) {
	upTo := onGSI2.pkAndSKBelow(partitionWebhooksDue, timestamp(s.now().Add(time.Millisecond)))
	p, err := pagedQuery(ctx, s, querySpec{key: upTo}, limit, "", webhookEventRecord.event)
	return p.Items, err
}

// WebhookEvent reads one event (consistent).
func (s *Store) WebhookEvent(ctx context.Context, id string) (WebhookEvent, error) {
	return getItemConsistent(ctx, s, webhookEventKey(id), sortKeyWebhookEvent, "webhook event "+id, webhookEventRecord.event)
}

// RecordWebhookAttempt logs an attempt and saves the event with its
// delivery's new state in one transaction, on condition the event is at
// the version read (ErrConflict otherwise); it returns the event saved.
// An attempt of no delivery (its endpoint deleted) logs nothing.
func (s *Store) RecordWebhookAttempt(ctx context.Context, e WebhookEvent, endpoint string, d WebhookDelivery, a *WebhookAttempt) (WebhookEvent, error) {
	var extra []types.TransactWriteItem
	if a != nil {
		log, err := attributevalue.MarshalMap(webhookAttemptRecord{PK: webhookEventKey(e.ID), SK: webhookAttemptKey(endpoint, a.At),
			EntityType: entityWebhookAttempt, EventID: e.ID, Endpoint: endpoint, At: timestamp(a.At), Status: a.Status, Answer: a.Answer,
			// rounded up: an answer under a millisecond still took time
			DurationMS: (a.Duration + time.Millisecond - 1).Milliseconds(), ExpiresAt: a.At.Add(webhookRetention).Unix(),
			Type: e.Type, State: string(d.Status), GSI1PK: webhookAttemptsKey(endpoint), GSI1SK: createdKey(a.At, e.ID)})
		if err != nil {
			return e, err
		}
		extra = append(extra, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table), Item: log}})
	}
	next, err := s.saveWebhookDelivery(ctx, e, endpoint, d, extra...)
	if err != nil {
		return e, fmt.Errorf("record webhook attempt: %w", err)
	}
	return next, nil
}

// saveWebhookDelivery saves the event with one delivery's new state, and
// the extra items, in one transaction on condition the event is at the
// version read (ErrConflict otherwise); it returns the event saved.
func (s *Store) saveWebhookDelivery(ctx context.Context, e WebhookEvent, endpoint string, d WebhookDelivery, extra ...types.TransactWriteItem) (WebhookEvent, error) {
	next := e
	next.Deliveries = make(map[string]WebhookDelivery, len(e.Deliveries))
	for k, v := range e.Deliveries {
		next.Deliveries[k] = v
	}
	next.Deliveries[endpoint] = d
	next.Version = e.Version + 1
	item, err := attributevalue.MarshalMap(next.record())
	if err != nil {
		return e, err
	}
	cond, err := expression.NewBuilder().WithCondition(expression.Name("Version").Equal(expression.Value(e.Version))).Build()
	if err != nil {
		return e, err
	}
	items := append([]types.TransactWriteItem{{Put: &types.Put{TableName: aws.String(s.table), Item: item, ConditionExpression: cond.Condition(),
		ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values()}}}, extra...)
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if isTxConditionFailed(err) {
		return e, fmt.Errorf("webhook event %s changed meanwhile: %w", e.ID, ErrConflict)
	}
	if err != nil {
		return e, fmt.Errorf("save webhook event %s: %w", e.ID, err)
	}
	return next, nil
}

type webhookAttemptRecord struct {
	PK         string `dynamodbav:"PK"` // whevent#id
	SK         string `dynamodbav:"SK"` // attempt#<endpoint>#<t>
	EntityType string `dynamodbav:"EntityType"`
	EventID    string `dynamodbav:"EventID"`
	Endpoint   string `dynamodbav:"Endpoint"`
	At         string `dynamodbav:"At"`
	Status     int    `dynamodbav:"Status"`
	Answer     string `dynamodbav:"Answer"`
	DurationMS int64  `dynamodbav:"DurationMS"`
	ExpiresAt  int64  `dynamodbav:"ExpiresAt"`
	Type       string `dynamodbav:"Type,omitempty"`
	State      string `dynamodbav:"State,omitempty"`
	GSI1PK     string `dynamodbav:"GSI1-PK"` // hook#<endpoint>#attempts
	GSI1SK     string `dynamodbav:"GSI1-SK"` // <t>#event
}

func (r webhookAttemptRecord) attempt() WebhookAttempt {
	return WebhookAttempt{EventID: r.EventID, Endpoint: r.Endpoint, At: parseTime(r.At), Status: r.Status, Answer: r.Answer,
		Duration: time.Duration(r.DurationMS) * time.Millisecond, Type: r.Type, State: DeliveryStatus(r.State)}
}

// WebhookAttempts lists an endpoint's delivery attempts, newest first
// (GSI1: GSI1-PK=hook#<id>#attempts).
func (s *Store) WebhookAttempts(ctx context.Context, endpoint string, limit int, cursor string) (Page[WebhookAttempt], error) {
	return pagedQuery(ctx, s, querySpec{key: onGSI1.pkEquals(webhookAttemptsKey(endpoint)), backward: true}, limit, cursor, webhookAttemptRecord.attempt)
}
