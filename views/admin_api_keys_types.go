package views

import (
	"time"

	"shop/store"
)

// AdminAPIKeys is the API keys page: every integration with its keys, the
// form to add one, and, right after a key is made, its secret (shown this
// once).
type AdminAPIKeys struct {
	Integrations []AdminIntegration
	Form         AdminAPIKeyForm
	Created      *AdminCreatedAPIKey
	CSRF         string
}

// AdminIntegration is an integration and its keys, newest first.
type AdminIntegration struct {
	Integration store.Integration
	Keys        []store.APIKey
	Webhooks    []store.WebhookEndpoint // each links to its deliveries
}

// Works reports whether requests with k are let in.
func (i AdminIntegration) Works(k store.APIKey) bool { return !k.Revoked && !i.Integration.Revoked }

// AdminAPIKeyForm is the form that adds an integration, as typed.
type AdminAPIKeyForm struct {
	Name   string
	Errors FieldErrors
	CSRF   string
}

// AdminCreatedAPIKey is a key just made, with its secret; Replaces is the
// key a rotation revoked (no ID: none).
type AdminCreatedAPIKey struct {
	Key      store.APIKey
	Secret   string
	Replaces store.APIKey
}

// AdminAPIKeyConfirm asks staff to confirm revoking or rotating a key.
type AdminAPIKeyConfirm struct {
	Key         store.APIKey
	Integration store.Integration
	CSRF        string
}

// RevokedAt is when the key stopped working: its own revocation, or its
// integration's.
func (p AdminAPIKeyConfirm) RevokedAt() time.Time {
	if p.Key.Revoked {
		return p.Key.RevokedAt
	}
	return p.Integration.RevokedAt
}

// AdminIntegrationRevoke asks staff to confirm revoking an integration.
type AdminIntegrationRevoke struct {
	Integration AdminIntegration
	CSRF        string
}

// apiKeyFingerprint is a short, public handle of a key: the start of the
// hash of its secret.
func apiKeyFingerprint(k store.APIKey) string {
	if len(k.ID) > 12 {
		return k.ID[:12]
	}
	return k.ID
}
