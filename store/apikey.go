package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Integration is another system that uses the JSON API. Its name is taken
// forever (a revoked integration's too): the drops made for it, and its
// clients' tickets ("<name>:<client>"), are its name's, so a name used
// again would inherit them. Its keys come and go; its drops stay.
type Integration struct {
	Name      string
	CreatedAt time.Time
	Revoked   bool // no key of it works any more, and it gets no new one
	RevokedAt time.Time
}

// APIKey lets an integration use the JSON API. Only the SHA-256 of its
// secret is stored; the secret is shown once, when it is made.
type APIKey struct {
	ID          string // the hex SHA-256 of the secret's bytes; also its URL
	Integration string // the integration it belongs to
	CreatedAt   time.Time
	Revoked     bool
	RevokedAt   time.Time
}

// APIAccess is every integration, every key and every webhook endpoint
// (without its secret), newest first: one Query, which each replica's key
// cache repeats every few seconds.
type APIAccess struct {
	Integrations []Integration
	Keys         []APIKey
	Webhooks     []WebhookEndpoint
}

// WebhooksFor are the ids of an integration's endpoints that want events
// of type typ and are not disabled.
func (a APIAccess) WebhooksFor(integration, typ string) []string {
	var out []string
	for _, w := range a.Webhooks {
		if w.Integration == integration && !w.Disabled && w.Wants(typ) {
			out = append(out, w.ID)
		}
	}
	return out
}

// WebhooksOf are an integration's endpoints, newest first.
func (a APIAccess) WebhooksOf(integration string) []WebhookEndpoint {
	var out []WebhookEndpoint
	for _, w := range a.Webhooks {
		if w.Integration == integration {
			out = append(out, w)
		}
	}
	return out
}

// Integration finds an integration by name.
func (a APIAccess) Integration(name string) (Integration, bool) {
	i := slices.IndexFunc(a.Integrations, func(in Integration) bool { return in.Name == name })
	if i < 0 {
		return Integration{}, false
	}
	return a.Integrations[i], true
}

// KeysOf are an integration's keys, newest first.
func (a APIAccess) KeysOf(name string) []APIKey {
	var out []APIKey
	for _, k := range a.Keys {
		if k.Integration == name {
			out = append(out, k)
		}
	}
	return out
}

// Works reports whether a request with the key is let in: the key and its
// integration are both known and not revoked.
func (a APIAccess) Works(k APIKey) bool {
	in, ok := a.Integration(k.Integration)
	return ok && !in.Revoked && !k.Revoked
}

// apiAccessRecord is an item of the apikeys list: a key or an integration
// (EntityType tells). A key of the first shape has a Name and no
// Integration: migrateAPIKeys gives it the integration of that name.
type apiAccessRecord struct {
	PK          string `dynamodbav:"PK"`
	SK          string `dynamodbav:"SK"`
	EntityType  string `dynamodbav:"EntityType"`
	Name        string `dynamodbav:"Name,omitempty"`
	Integration string `dynamodbav:"Integration,omitempty"`
	CreatedAt   string `dynamodbav:"CreatedAt"`
	Revoked     bool   `dynamodbav:"Revoked"`
	RevokedAt   string `dynamodbav:"RevokedAt,omitempty"`
	// A webhook endpoint's (webhook.go), read here without its secret.
	ID     string   `dynamodbav:"ID,omitempty"`
	URL    string   `dynamodbav:"URL,omitempty"`
	Events []string `dynamodbav:"Events,omitempty"`
	// An endpoint disabled for failing (webhook_health.go).
	Disabled   bool   `dynamodbav:"Disabled,omitempty"`
	DisabledAt string `dynamodbav:"DisabledAt,omitempty"`
	GSI1PK     string `dynamodbav:"GSI1-PK"` // apikeys
	GSI1SK     string `dynamodbav:"GSI1-SK"`
}

func (r apiAccessRecord) key() APIKey {
	in := r.Integration
	if in == "" {
		in = r.Name // the first shape, until migrated: the integration is named after the key
	}
	return APIKey{ID: trimPrefix(r.PK, prefixAPIKey), Integration: in, CreatedAt: parseTime(r.CreatedAt), Revoked: r.Revoked, RevokedAt: parseTime(r.RevokedAt)}
}

func (r apiAccessRecord) integration() Integration {
	return Integration{Name: r.Name, CreatedAt: parseTime(r.CreatedAt), Revoked: r.Revoked, RevokedAt: parseTime(r.RevokedAt)}
}

var (
	// ErrBadIntegrationName refuses a name that cannot prefix client ids.
	ErrBadIntegrationName = errors.New("an integration's name is 1 to 32 letters, digits, '-' and '_'")
	// ErrIntegrationRevoked refuses a new key for a revoked integration.
	ErrIntegrationRevoked = errors.New("the integration is revoked")
)

// ValidIntegrationName reports whether s can name an integration.
func ValidIntegrationName(s string) bool { return ValidID(s) && len(s) <= 32 }

// HashAPIKey is how a presented secret is looked up.
func HashAPIKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// newAPIKey is a new key of an integration: a random 256-bit secret, and
// the record of its hash.
func newAPIKey(integration string, now time.Time) (APIKey, string, apiAccessRecord, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return APIKey{}, "", apiAccessRecord{}, err
	}
	secret := "shop_" + base64.RawURLEncoding.EncodeToString(b[:])
	k := APIKey{ID: HashAPIKey(secret), Integration: integration, CreatedAt: now}
	rec := apiAccessRecord{PK: apiKeyKey(k.ID), SK: apiKeyKey(k.ID), EntityType: entityAPIKey, Integration: integration,
		CreatedAt: timestamp(now), GSI1PK: partitionAPIKeys, GSI1SK: createdKey(now, k.ID)}
	return k, secret, rec, nil
}

func integrationRecord(in Integration) apiAccessRecord {
	return apiAccessRecord{PK: integrationKey(in.Name), SK: integrationKey(in.Name), EntityType: entityIntegration, Name: in.Name,
		CreatedAt: timestamp(in.CreatedAt), GSI1PK: partitionAPIKeys, GSI1SK: createdKey(in.CreatedAt, in.Name)}
}

// integrationActive is the condition that an integration exists and is
// not revoked.
func integrationActive() expression.ConditionBuilder {
	return expression.AttributeExists(expression.Name(attrPK)).And(expression.Name("Revoked").Equal(expression.Value(false)))
}

// CreateIntegration makes an integration and its first key in one
// transaction, the integration on condition its name was never taken
// (ErrConflict otherwise, even when that one is revoked). The secret is
// returned this once.
func (s *Store) CreateIntegration(ctx context.Context, name string) (Integration, APIKey, string, error) {
	name = strings.TrimSpace(name)
	if !ValidIntegrationName(name) {
		return Integration{}, APIKey{}, "", ErrBadIntegrationName
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	in := Integration{Name: name, CreatedAt: now}
	k, secret, keyRec, err := newAPIKey(name, now)
	if err != nil {
		return Integration{}, APIKey{}, "", err
	}
	putIn, err := s.txPutNew(integrationRecord(in))
	if err != nil {
		return Integration{}, APIKey{}, "", err
	}
	putKey, err := s.txPutNew(keyRec)
	if err != nil {
		return Integration{}, APIKey{}, "", err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{putIn, putKey}})
	if reasons := cancellationReasons(err); len(reasons) > 0 && reasons[0] == reasonConditionFailed {
		return Integration{}, APIKey{}, "", fmt.Errorf("an integration named %q exists or existed: %w", name, ErrConflict)
	}
	if err != nil {
		return Integration{}, APIKey{}, "", fmt.Errorf("create integration %s: %w", name, err)
	}
	return in, k, secret, nil
}

// IssueAPIKey makes another key of an integration, on condition it exists
// (ErrNotFound) and is not revoked (ErrIntegrationRevoked). The secret is
// returned this once.
func (s *Store) IssueAPIKey(ctx context.Context, integration string) (APIKey, string, error) {
	now := s.now().UTC().Truncate(time.Millisecond)
	k, secret, rec, err := newAPIKey(integration, now)
	if err != nil {
		return APIKey{}, "", err
	}
	put, err := s.txPutNew(rec)
	if err != nil {
		return APIKey{}, "", err
	}
	check, err := s.txCheck(integrationKey(integration), integrationKey(integration), integrationActive())
	if err != nil {
		return APIKey{}, "", err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{put, check}})
	if isTxConditionFailed(err) {
		return APIKey{}, "", s.whyNoKey(ctx, integration)
	}
	if err != nil {
		return APIKey{}, "", fmt.Errorf("issue a key of %s: %w", integration, err)
	}
	return k, secret, nil
}

// whyNoKey tells an unknown integration from a revoked one.
func (s *Store) whyNoKey(ctx context.Context, integration string) error {
	in, err := getItemConsistent(ctx, s, integrationKey(integration), integrationKey(integration), "integration "+integration, apiAccessRecord.integration)
	switch {
	case err != nil:
		return err
	case in.Revoked:
		return fmt.Errorf("integration %s: %w", integration, ErrIntegrationRevoked)
	}
	return fmt.Errorf("integration %s changed meanwhile: %w", integration, ErrConflict)
}

// RotateAPIKey replaces a key with a new one of the same integration in
// one transaction: the old key revoked (on condition it was not: else
// ErrConflict), the new one made (on condition its integration is not
// revoked: else ErrIntegrationRevoked). The integration's drops and its
// clients' tickets carry on under the new key. ErrNotFound for an unknown
// key.
func (s *Store) RotateAPIKey(ctx context.Context, id string) (APIKey, string, error) {
	old, err := getItemConsistent(ctx, s, apiKeyKey(id), apiKeyKey(id), "api key "+id, apiAccessRecord.key)
	if err != nil {
		return APIKey{}, "", err
	}
	if old.Revoked {
		return APIKey{}, "", fmt.Errorf("api key %s is revoked: %w", id, ErrConflict)
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	k, secret, rec, err := newAPIKey(old.Integration, now)
	if err != nil {
		return APIKey{}, "", err
	}
	revoke, err := s.txUpdate(apiKeyKey(id), apiKeyKey(id), revokeNow(now), expression.Name("Revoked").Equal(expression.Value(false)))
	if err != nil {
		return APIKey{}, "", err
	}
	put, err := s.txPutNew(rec)
	if err != nil {
		return APIKey{}, "", err
	}
	check, err := s.txCheck(integrationKey(old.Integration), integrationKey(old.Integration), integrationActive())
	if err != nil {
		return APIKey{}, "", err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{revoke, put, check}})
	if reasons := cancellationReasons(err); len(reasons) == 3 {
		switch {
		case reasons[0] == reasonConditionFailed:
			return APIKey{}, "", fmt.Errorf("api key %s was revoked meanwhile: %w", id, ErrConflict)
		case reasons[2] == reasonConditionFailed:
			return APIKey{}, "", s.whyNoKey(ctx, old.Integration)
		}
	}
	if err != nil {
		return APIKey{}, "", fmt.Errorf("rotate api key %s: %w", id, err)
	}
	return k, secret, nil
}

func revokeNow(now time.Time) expression.UpdateBuilder {
	return expression.Set(expression.Name("Revoked"), expression.Value(true)).
		Set(expression.Name("RevokedAt"), expression.Value(timestamp(now)))
}

// APIAccess lists every integration and key, newest first (GSI1:
// GSI1-PK=apikeys); the API's key cache reloads it every few seconds.
func (s *Store) APIAccess(ctx context.Context) (APIAccess, error) {
	var out APIAccess
	cursor := ""
	for {
		p, err := pagedQuery(ctx, s, querySpec{key: onGSI1.pkEquals(partitionAPIKeys), backward: true}, 100, cursor, asRecord[apiAccessRecord])
		if err != nil {
			return APIAccess{}, err
		}
		for _, r := range p.Items {
			switch r.EntityType {
			case entityAPIKey:
				out.Keys = append(out.Keys, r.key())
			case entityIntegration:
				out.Integrations = append(out.Integrations, r.integration())
			case entityWebhook:
				out.Webhooks = append(out.Webhooks, WebhookEndpoint{ID: r.ID, Integration: r.Integration, URL: r.URL,
					Events: r.Events, CreatedAt: parseTime(r.CreatedAt), Disabled: r.Disabled, DisabledAt: parseTime(r.DisabledAt)})
			}
		}
		if p.Next == "" {
			return out, nil
		}
		cursor = p.Next
	}
}

// RevokeAPIKey stops a key; ErrNotFound for an unknown one.
func (s *Store) RevokeAPIKey(ctx context.Context, id string) error {
	err := s.updateIf(ctx, apiKeyKey(id), apiKeyKey(id), revokeNow(s.now()),
		expression.AttributeExists(expression.Name(attrPK)))
	if isConditionFailed(err) {
		return fmt.Errorf("api key %s: %w", id, ErrNotFound)
	}
	return err
}

// RevokeIntegration stops every key of an integration, those made later
// too (none can be), and for good: its name stays taken. ErrNotFound for
// an unknown one, ErrConflict for one already revoked.
func (s *Store) RevokeIntegration(ctx context.Context, name string) error {
	if !ValidIntegrationName(name) {
		return fmt.Errorf("integration %q: %w", name, ErrNotFound)
	}
	err := s.updateIf(ctx, integrationKey(name), integrationKey(name), revokeNow(s.now()), integrationActive())
	if isConditionFailed(err) {
		// It exists (else ErrNotFound here), so it was revoked.
		if _, gerr := getItemConsistent(ctx, s, integrationKey(name), integrationKey(name), "integration "+name, apiAccessRecord.integration); gerr != nil {
			return gerr
		}
		return fmt.Errorf("integration %s is revoked already: %w", name, ErrConflict)
	}
	return err
}

// migrateAPIKeys gives keys of the first shape (a name, no integration)
// the integration of their name: it makes the integration (dated by the
// oldest key of the name, which is the one that made its drops first) and
// then names it on each key, on condition the key has none yet. Every key
// of one name joins the one integration: their drops and clients' tickets
// were all "api:<name>", so they cannot be told apart. It costs one Query
// when nothing is left to move, so every Migrate runs it (a replica of the
// previous version may still make a key of the first shape).
func (s *Store) migrateAPIKeys(ctx context.Context) error {
	var old []apiAccessRecord
	have := map[string]bool{}
	cursor := ""
	for {
		p, err := pagedQuery(ctx, s, querySpec{key: onGSI1.pkEquals(partitionAPIKeys)}, 100, cursor, asRecord[apiAccessRecord])
		if err != nil {
			return fmt.Errorf("migrate api keys: %w", err)
		}
		for _, r := range p.Items {
			switch {
			case r.EntityType == entityIntegration:
				have[r.Name] = true
			case r.EntityType == entityAPIKey && r.Integration == "":
				old = append(old, r)
			}
		}
		if p.Next == "" {
			break
		}
		cursor = p.Next
	}
	made, moved := 0, 0
	for _, r := range old { // oldest first: the list reads forward
		if !have[r.Name] {
			err := s.putNew(ctx, integrationRecord(Integration{Name: r.Name, CreatedAt: parseTime(r.CreatedAt)}), "integration "+r.Name)
			if err != nil && !errors.Is(err, ErrConflict) {
				return fmt.Errorf("migrate api keys: %w", err)
			}
			have[r.Name] = true
			made++
		}
		err := s.updateIf(ctx, r.PK, r.SK, expression.Set(expression.Name("Integration"), expression.Value(r.Name)),
			expression.AttributeNotExists(expression.Name("Integration")))
		switch {
		case isConditionFailed(err): // moved meanwhile
		case err != nil:
			return fmt.Errorf("migrate api key %s: %w", r.PK, err)
		default:
			moved++
		}
	}
	if moved > 0 || made > 0 {
		MigrateLog("API keys given the integration of their name", "table", s.table, "integrations", made, "keys", moved)
	}
	return nil
}
