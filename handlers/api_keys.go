package handlers

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/store"
)

// APIKeyStore is what the API's key cache reads.
type APIKeyStore interface {
	APIAccess(ctx context.Context) (store.APIAccess, error)
}

// APIKeys checks the API's bearer keys against an in-memory copy of the
// keys that work (neither they nor their integration revoked), reloaded
// every few seconds: a revoked key or integration stops working on every
// replica within one interval. Only hashes are held and compared; secrets
// never are.
type APIKeys struct {
	store APIKeyStore
	every time.Duration
	log   *slog.Logger

	mu  sync.Mutex // one load at a time
	set atomic.Pointer[apiKeySet]
	// loaded is closed by the first load: until then a change's events
	// wait for it rather than go unwritten (Subscribed).
	loaded     chan struct{}
	loadedOnce sync.Once
}

type apiKeySet struct {
	byHash map[string]store.APIKey
	access store.APIAccess // for the webhook endpoints
	at     time.Time
}

// NewAPIKeys returns a key cache reloaded every interval (3 s if zero).
func NewAPIKeys(st APIKeyStore, every time.Duration, log *slog.Logger) *APIKeys {
	if every <= 0 {
		every = 3 * time.Second
	}
	if log == nil {
		log = slog.Default()
	}
	return &APIKeys{store: st, every: every, log: log, loaded: make(chan struct{})}
}

// missReload is how old the copy must be before an unknown key makes it
// reload at once: a key made a moment ago works within a quarter of a
// second, and guessing keys costs at most four reads a second.
func (k *APIKeys) missReload() time.Duration { return min(250*time.Millisecond, k.every) }

// maxAge is how old a copy may grow while reloads fail before no key is
// believed any more.
func (k *APIKeys) maxAge() time.Duration { return max(30*time.Second, 10*k.every) }

// Load reads the keys now.
func (k *APIKeys) Load(ctx context.Context) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.loadLocked(ctx)
}

func (k *APIKeys) loadLocked(ctx context.Context) error {
	at := time.Now()
	access, err := k.store.APIAccess(ctx)
	if err != nil {
		return err
	}
	set := &apiKeySet{byHash: make(map[string]store.APIKey, len(access.Keys)), access: access, at: at}
	for _, key := range access.Keys {
		if access.Works(key) {
			set.byHash[key.ID] = key
		}
	}
	k.set.Store(set)
	k.loadedOnce.Do(func() { close(k.loaded) })
	return nil
}

// reload loads again unless another request did since seen was read.
func (k *APIKeys) reload(ctx context.Context, seen *apiKeySet) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.set.Load() != seen {
		return nil
	}
	return k.loadLocked(ctx)
}

// Run loads the keys now and again every interval until ctx ends.
func (k *APIKeys) Run(ctx context.Context) {
	for {
		if err := k.Load(ctx); err != nil && ctx.Err() == nil {
			k.log.Warn("load API keys", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(k.every):
		}
	}
}

// lookup finds the key whose secret hashes to hash.
func (k *APIKeys) lookup(ctx context.Context, hash string) (store.APIKey, bool, error) {
	set := k.set.Load()
	if set != nil && time.Since(set.at) < k.maxAge() {
		if key, ok := set.byHash[hash]; ok {
			return key, true, nil
		}
		if time.Since(set.at) < k.missReload() {
			return store.APIKey{}, false, nil
		}
	}
	if err := k.reload(ctx, set); err != nil {
		if set == nil || time.Since(set.at) >= k.maxAge() {
			return store.APIKey{}, false, err
		}
		k.log.Warn("reload API keys", "err", err)
		return store.APIKey{}, false, nil
	}
	key, ok := k.set.Load().byHash[hash]
	return key, ok, nil
}

type apiKeyLocal struct{}

// Require answers 401 to a request without a valid key (Authorization:
// Bearer <secret>) and otherwise notes the key for the handlers.
func (k *APIKeys) Require() fiber.Handler {
	return func(c *fiber.Ctx) error {
		scheme, secret, _ := strings.Cut(strings.TrimSpace(c.Get(fiber.HeaderAuthorization)), " ")
		secret = strings.TrimSpace(secret)
		if !strings.EqualFold(scheme, "Bearer") || secret == "" {
			c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="shop"`)
			return &APIError{Status: fiber.StatusUnauthorized, Reason: ReasonUnauthorized,
				Message: "send an API key: Authorization: Bearer <key>"}
		}
		key, ok, err := k.lookup(c.UserContext(), store.HashAPIKey(secret))
		if err != nil {
			return &APIError{Status: fiber.StatusServiceUnavailable, Reason: ReasonUnavailable,
				Message: "the API keys cannot be checked just now; try again in a moment", Err: err}
		}
		if !ok {
			c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="shop", error="invalid_token"`)
			return &APIError{Status: fiber.StatusUnauthorized, Reason: ReasonUnauthorized,
				Message: "this API key is unknown or revoked"}
		}
		c.Locals(apiKeyLocal{}, key)
		return c.Next()
	}
}

// APIKeyOf is the key a request of the API came with; its Integration is
// whose drops and clients the request may touch.
func APIKeyOf(c *fiber.Ctx) store.APIKey {
	k, _ := c.Locals(apiKeyLocal{}).(store.APIKey)
	return k
}

// Subscribed are the ids of an integration's webhook endpoints that want
// events of type typ, as this replica's copy knows them (a copy at most
// one interval old; the replica that registers an endpoint reloads at
// once).
//
// Before this replica's first load (its first moments, or while the
// table cannot be reached at its start) it waits for that load, at most
// firstLoadWait: a change made then would otherwise be written without
// the events its endpoints want, and no one would ever hear of it.
func (k *APIKeys) Subscribed(integration, typ string) []string {
	set := k.set.Load()
	if set == nil {
		wait := time.NewTimer(firstLoadWait)
		defer wait.Stop()
		select {
		case <-k.loaded:
			set = k.set.Load()
		case <-wait.C:
			k.log.Warn("webhook events not written: the endpoints are not loaded yet", "integration", integration, "type", typ)
			return nil
		}
	}
	return set.access.WebhooksFor(integration, typ)
}

// firstLoadWait bounds how long a change waits for the replica's first
// load of the endpoints: longer than a reload interval, shorter than a
// request's time.
const firstLoadWait = 5 * time.Second

// AnyWebhooks reports whether any endpoint is known: without one the
// webhook deliverer makes no request.
func (k *APIKeys) AnyWebhooks() bool {
	set := k.set.Load()
	return set != nil && len(set.access.Webhooks) > 0
}
