package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

// APIKey lets another system use the JSON API. Only the SHA-256 of its
// secret is stored; the secret is shown once, when it is made.
type APIKey struct {
	ID        string // the hex SHA-256 of the secret's bytes; also its URL
	Name      string // what the system is called; prefixes its clients' ids
	CreatedAt time.Time
	Revoked   bool
	RevokedAt time.Time
}

type apiKeyRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	Name       string `dynamodbav:"Name"`
	CreatedAt  string `dynamodbav:"CreatedAt"`
	Revoked    bool   `dynamodbav:"Revoked"`
	RevokedAt  string `dynamodbav:"RevokedAt,omitempty"`
	GSI1PK     string `dynamodbav:"GSI1-PK"` // apikeys
	GSI1SK     string `dynamodbav:"GSI1-SK"`
}

func (r apiKeyRecord) key() APIKey {
	return APIKey{ID: trimPrefix(r.PK, prefixAPIKey), Name: r.Name, CreatedAt: parseTime(r.CreatedAt), Revoked: r.Revoked, RevokedAt: parseTime(r.RevokedAt)}
}

// ErrBadKeyName refuses a key name that cannot prefix client ids.
var ErrBadKeyName = errors.New("a key's name is 1 to 32 letters, digits, '-' and '_'")

// HashAPIKey is how a presented secret is looked up.
func HashAPIKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// CreateAPIKey makes a key for a system: a random 256-bit secret, returned
// once, and its hash stored. Names are unique among keys that are not
// revoked (checked against the list: keys are made by staff, rarely).
func (s *Store) CreateAPIKey(ctx context.Context, name string) (APIKey, string, error) {
	name = strings.TrimSpace(name)
	if !ValidID(name) || len(name) > 32 {
		return APIKey{}, "", ErrBadKeyName
	}
	keys, err := s.APIKeys(ctx)
	if err != nil {
		return APIKey{}, "", err
	}
	for _, k := range keys {
		if k.Name == name && !k.Revoked {
			return APIKey{}, "", fmt.Errorf("a key named %q exists: %w", name, ErrConflict)
		}
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return APIKey{}, "", err
	}
	secret := "shop_" + base64.RawURLEncoding.EncodeToString(b[:])
	now := s.now().UTC().Truncate(time.Millisecond)
	k := APIKey{ID: HashAPIKey(secret), Name: name, CreatedAt: now}
	err = s.putNew(ctx, apiKeyRecord{PK: apiKeyKey(k.ID), SK: apiKeyKey(k.ID), EntityType: entityAPIKey, Name: name,
		CreatedAt: timestamp(now), GSI1PK: partitionAPIKeys, GSI1SK: createdKey(now, k.ID)}, "api key")
	if err != nil {
		return APIKey{}, "", err
	}
	return k, secret, nil
}

// APIKeys lists every key, newest first (GSI1: GSI1-PK=apikeys); the API's
// key cache reloads it every few seconds.
func (s *Store) APIKeys(ctx context.Context) ([]APIKey, error) {
	var out []APIKey
	cursor := ""
	for {
		p, err := pagedQuery(ctx, s, querySpec{key: onGSI1.pkEquals(partitionAPIKeys), backward: true}, 100, cursor, apiKeyRecord.key)
		if err != nil {
			return nil, err
		}
		out = append(out, p.Items...)
		if p.Next == "" {
			return out, nil
		}
		cursor = p.Next
	}
}

// RevokeAPIKey stops a key; ErrNotFound for an unknown one.
func (s *Store) RevokeAPIKey(ctx context.Context, id string) error {
	err := s.updateIf(ctx, apiKeyKey(id), apiKeyKey(id),
		expression.Set(expression.Name("Revoked"), expression.Value(true)).
			Set(expression.Name("RevokedAt"), expression.Value(timestamp(s.now()))),
		expression.AttributeExists(expression.Name(attrPK)))
	if isConditionFailed(err) {
		return fmt.Errorf("api key %s: %w", id, ErrNotFound)
	}
	return err
}
