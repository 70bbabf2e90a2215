package store

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// An integration's webhook endpoints: where the shop POSTs the events of
// its drops, signed with the endpoint's secret. The endpoint lives under
// its integration (integration#name / hook#id), so a key sees only its
// integration's endpoints and rotating a key keeps them; it is also listed
// in GSI1 apikeys, so each replica's key cache (one Query every 3 s) knows
// which endpoints want which events without a read of its own.

// Webhook event types.
const (
	EventDropCreated    = "drop.created"
	EventDropSoldOut    = "drop.sold_out"
	EventDropClosed     = "drop.closed"
	EventDropCancelled  = "drop.cancelled"
	EventTicketClaimed  = "ticket.claimed"
	EventTicketReleased = "ticket.released"
	EventTicketVoided   = "ticket.voided"
)

// WebhookEventTypes are the events an endpoint can ask for.
var WebhookEventTypes = []string{EventDropCreated, EventDropSoldOut, EventDropClosed, EventDropCancelled, EventTicketClaimed, EventTicketReleased, EventTicketVoided}

// MaxWebhooksPerIntegration bounds an integration's endpoints (and so the
// deliveries one event fans out to).
const MaxWebhooksPerIntegration = 10

// ErrTooManyWebhooks refuses an integration's endpoint past the bound.
var ErrTooManyWebhooks = fmt.Errorf("an integration has at most %d webhook endpoints", MaxWebhooksPerIntegration)

// WebhookEndpoint is where an integration's events go.
type WebhookEndpoint struct {
	ID          string
	Integration string
	URL         string
	Events      []string
	// Secret signs every delivery (HMAC-SHA256); the API shows it once,
	// when the endpoint is made. Empty in the key cache's copy.
	Secret    string
	CreatedAt time.Time
	// FailingSince is the first refusal since its last 2xx (zero while
	// it answers); Disabled is set once it has refused everything for
	// DisableWebhookAfter (webhook_health.go), with when and its last error.
	FailingSince time.Time
	Disabled     bool
	DisabledAt   time.Time
	LastError    string
}

// Wants reports whether the endpoint asked for events of type typ.
func (e WebhookEndpoint) Wants(typ string) bool { return slices.Contains(e.Events, typ) }

type webhookRecord struct {
	PK          string   `dynamodbav:"PK"` // integration#name
	SK          string   `dynamodbav:"SK"` // hook#id
	EntityType  string   `dynamodbav:"EntityType"`
	ID          string   `dynamodbav:"ID"`
	Integration string   `dynamodbav:"Integration"`
	URL         string   `dynamodbav:"URL"`
	Events      []string `dynamodbav:"Events"`
	Secret      string   `dynamodbav:"Secret"`
	CreatedAt   string   `dynamodbav:"CreatedAt"`
	// Set by the deliverer (webhook_health.go); absent while it answers.
	FailingSince string `dynamodbav:"FailingSince,omitempty"`
	Disabled     bool   `dynamodbav:"Disabled,omitempty"`
	DisabledAt   string `dynamodbav:"DisabledAt,omitempty"`
	LastError    string `dynamodbav:"LastError,omitempty"`
	GSI1PK       string `dynamodbav:"GSI1-PK"` // apikeys
	GSI1SK       string `dynamodbav:"GSI1-SK"` // <t>#id
}

func (r webhookRecord) endpoint() WebhookEndpoint {
	return WebhookEndpoint{ID: r.ID, Integration: r.Integration, URL: r.URL, Events: r.Events, Secret: r.Secret, CreatedAt: parseTime(r.CreatedAt),
		FailingSince: parseTime(r.FailingSince), Disabled: r.Disabled, DisabledAt: parseTime(r.DisabledAt), LastError: r.LastError}
}

// newWebhookSecret is a random 256-bit signing secret.
func newWebhookSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "whsec_" + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// CreateWebhook registers an endpoint of an integration with a new secret
// (returned in it): a Query counting the integration's endpoints
// (ErrTooManyWebhooks at MaxWebhooksPerIntegration), then one transaction
// putting the endpoint on condition the integration exists and is not
// revoked (ErrIntegrationRevoked). The URL and events are the caller's to
// check.
func (s *Store) CreateWebhook(ctx context.Context, integration, url string, events []string) (WebhookEndpoint, error) {
	have, err := s.Webhooks(ctx, integration)
	if err != nil {
		return WebhookEndpoint{}, err
	}
	if len(have) >= MaxWebhooksPerIntegration {
		return WebhookEndpoint{}, ErrTooManyWebhooks
	}
	secret, err := newWebhookSecret()
	if err != nil {
		return WebhookEndpoint{}, err
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	e := WebhookEndpoint{ID: NewID(), Integration: integration, URL: url, Events: slices.Clone(events), Secret: secret, CreatedAt: now}
	put, err := s.txPutNew(webhookRecord{PK: integrationKey(integration), SK: webhookKey(e.ID), EntityType: entityWebhook, ID: e.ID,
		Integration: integration, URL: url, Events: e.Events, Secret: secret, CreatedAt: timestamp(now),
		GSI1PK: partitionAPIKeys, GSI1SK: createdKey(now, e.ID)})
	if err != nil {
		return WebhookEndpoint{}, err
	}
	check, err := s.txCheck(integrationKey(integration), integrationKey(integration), integrationActive())
	if err != nil {
		return WebhookEndpoint{}, err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{put, check}})
	if isTxConditionFailed(err) {
		return WebhookEndpoint{}, fmt.Errorf("integration %s: %w", integration, ErrIntegrationRevoked)
	}
	if err != nil {
		return WebhookEndpoint{}, fmt.Errorf("create webhook of %s: %w", integration, err)
	}
	return e, nil
}

// Webhooks lists an integration's endpoints (or staff's: StaffWebhooks),
// oldest first, with their secrets (one Query: PK=integration#name or
// staff-hooks, SK begins_with hook#).
func (s *Store) Webhooks(ctx context.Context, integration string) ([]WebhookEndpoint, error) {
	var out []WebhookEndpoint
	cursor := ""
	for {
		p, err := pagedQuery(ctx, s, querySpec{key: onTable.pkAndSKPrefix(webhookOwnerKey(integration), prefixWebhook)}, 100, cursor, webhookRecord.endpoint)
		if err != nil {
			return nil, fmt.Errorf("webhooks of %s: %w", integration, err)
		}
		out = append(out, p.Items...)
		if p.Next == "" {
			return out, nil
		}
		cursor = p.Next
	}
}

// Webhook reads one endpoint of an integration (or staff's), with its
// secret.
func (s *Store) Webhook(ctx context.Context, integration, id string) (WebhookEndpoint, error) {
	return getItem(ctx, s, webhookOwnerKey(integration), webhookKey(id), "webhook "+id, webhookRecord.endpoint)
}

// DeleteWebhook removes an integration's (or staff's) endpoint; ErrNotFound when it has
// none of that id. Its events waiting are not sent to it any more.
func (s *Store) DeleteWebhook(ctx context.Context, integration, id string) error {
	cond, err := expression.NewBuilder().WithCondition(expression.AttributeExists(expression.Name(attrPK))).Build()
	if err != nil {
		return err
	}
	_, err = s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table), Key: itemKey(webhookOwnerKey(integration), webhookKey(id)),
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names()})
	if isConditionFailed(err) {
		return fmt.Errorf("webhook %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("delete webhook %s: %w", id, err)
	}
	return nil
}

// errNoAnnouncement is a write asked to announce with nothing to say.
var errNoAnnouncement = errors.New("an announcement without its data")
