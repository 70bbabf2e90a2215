// Package web is the Fiber app: every route in one list, and the middleware
// around them (request id and timeout, access log and metrics, panics,
// security headers, sessions, CSRF, staff-only admin, errors).
package web

import (
	"context"
	"net/netip"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/store"
	"shop/store/payment"
	"shop/web/requestlog"
)

// ReplicaHeader names the replica that answered (Config.Replica).
const ReplicaHeader = "X-Shop-Replica"

// New builds the shop's Fiber app: its handlers (handler_set.go), the
// middleware every request passes through, the routes without a session,
// the pages' middleware and the pages (routes.go). Links, forms and
// redirects build their paths with web/paths; paths_test.go holds each
// builder to a route.
func New(cfg Config) (*fiber.App, error) {
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = 10 * time.Second
	}
	if cfg.Metrics == nil {
		cfg.Metrics = NewMetrics()
	}
	sessionStore, err := NewSessionStore(cfg.Store, cfg.SessionKeys, cfg.SecureCookies)
	if err != nil {
		return nil, err
	}
	if cfg.SessionCache == 0 {
		cfg.SessionCache = time.Second
	}
	if cfg.SessionCache > 0 {
		sessionStore.cache = newSessionCache(cfg.SessionCache)
		cfg.Store.OnSessionsEnded(sessionStore.cache.forget)
	}
	if cfg.WindowPages == 0 {
		cfg.WindowPages = windowPageKeep
	}
	h, err := newHandlers(&cfg)
	if err != nil {
		return nil, err
	}
	trusted, err := parseTrustedProxies(cfg.TrustedProxies)
	if err != nil {
		return nil, err
	}
	// Background work of this app (the gate's refresher, the API key
	// cache, the webhooks' deliverer) lives until the app shuts down.
	bg, stopBg := context.WithCancel(context.Background())
	h.start(bg, cfg)

	onError := errorHandler(cfg.Log, cfg.Health)
	app := newFiberApp(onError)
	app.Hooks().OnShutdown(func() error { stopBg(); return nil })
	everyRequest(app, cfg, trusted, onError)
	sessionlessRoutes(app, cfg, h)
	pageMiddleware(app, cfg, sessionStore)
	pageRoutes(app, h)
	if cfg.ExtraPages != nil {
		cfg.ExtraPages(app)
	}
	app.Use(func(c *fiber.Ctx) error { return fiber.ErrNotFound })
	return app, nil
}

// newFiberApp is the Fiber app with the shop's settings and its one
// error handler.
func newFiberApp(onError fiber.ErrorHandler) *fiber.App {
	return fiber.New(fiber.Config{
		AppName:               "shop",
		DisableStartupMessage: true,
		Immutable:             true, // values outlive the handler (sessions, goroutines)
		ErrorHandler:          onError,
		ReadTimeout:           15 * time.Second,
		WriteTimeout:          30 * time.Second,
		IdleTimeout:           60 * time.Second,
		// Bodies are streamed and limited per route by bodyLimits: this is
		// the largest, a photo upload. (Unstreamed, Fiber would read a
		// body of up to this size before any handler could refuse it.)
		BodyLimit:                    photoBodyLimit,
		StreamRequestBody:            true,
		DisablePreParseMultipartForm: true,
		// UnescapePath stays off: routes match the path as sent, and a
		// parameter keeps its %-escapes. The shop's ids, numbers and file
		// names are letters, digits and - _ . (store.ValidID and each
		// handler's own check), which no browser escapes and web/paths
		// never has to, so unescaping gains nothing, and it would let one
		// URL be read two ways: /%61dmin would be /admin to the shop but
		// not to a proxy's rule or a log search, and %2F would split a
		// segment in two. An escaped id is not an id: 404
		// (TestEscapedPathsAreCleanRefusals).
		UnescapePath: false,
		// A page (headers and body) up to 16 KB leaves in one write: at
		// fasthttp's 4 KB a signed-in product page took two, and the
		// client two reads. The load run's pages gained about a tenth
		// (docs/catalogue.md); each open connection holds 12 KB more.
		WriteBufferSize: 16 << 10,
	})
}

// everyRequest is the middleware every request passes through, machine
// endpoints and the API included, in this order.
func everyRequest(app *fiber.App, cfg Config, trusted []netip.Prefix, onError fiber.ErrorHandler) {
	if cfg.Replica != "" {
		app.Use(func(c *fiber.Ctx) error {
			c.Set(ReplicaHeader, cfg.Replica)
			return c.Next()
		})
	}
	app.Use(privateAnswers(), requestID(), accessLog(cfg.Log, requestlog.To(cfg.RequestLog), cfg.Metrics, onError), recoverPanic(cfg.Log), bodyLimits(), securityHeaders(), compressed(),
		clientAddress(cfg.ProxyHeader, trusted), shopZone(cfg.Store.Location()), language(cfg.SecureCookies))
}

// pageMiddleware is what the pages pass through after the sessionless
// routes. The console's staff check comes before the CSRF check, which
// reads the body: a customer's (or a visitor's) POST to /admin is refused
// on its head, not after the 10 MB a photo upload may send.
func pageMiddleware(app *fiber.App, cfg Config, sessionStore *SessionStore) {
	app.Use(deadline(cfg.RequestTimeout), sessionStore.middleware(cfg.Log))
	app.Use("/admin", requireStaff(cfg.Store))
	app.Use(csrfProtect(), customerLanguage(cfg.Store))
}

// defaultRefunds is the card refunds of a Config that names none: through
// the test provider (TestPayments, also when refunds-only) and, for its
// own charges, the legacy test gateway.
func defaultRefunds(cfg Config) store.Refunder {
	var providers payment.Providers
	if cfg.TestPayments != nil {
		providers = payment.NewProviders(cfg.TestPayments)
	}
	return payment.NewCardRefunds(providers, cfg.LegacyGateway)
}
