package views

import "shop/store"

// AdminAPIKeys is the API keys page: every key, the form to make one,
// and, right after making one, its secret (shown this once).
type AdminAPIKeys struct {
	Keys    []store.APIKey
	Form    AdminAPIKeyForm
	Created *AdminCreatedAPIKey
}

// AdminAPIKeyForm is the form that makes a key, as typed.
type AdminAPIKeyForm struct {
	Name   string
	Errors FieldErrors
	CSRF   string
}

// AdminCreatedAPIKey is a key just made, with its secret.
type AdminCreatedAPIKey struct {
	Key    store.APIKey
	Secret string
}

// AdminAPIKeyRevoke asks staff to confirm revoking a key.
type AdminAPIKeyRevoke struct {
	Key  store.APIKey
	CSRF string
}

// apiKeyFingerprint is a short, public handle of a key: the start of the
// hash of its secret.
func apiKeyFingerprint(k store.APIKey) string {
	if len(k.ID) > 12 {
		return k.ID[:12]
	}
	return k.ID
}
