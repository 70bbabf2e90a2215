package web

import (
	"context"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
)

// The machine endpoints a proxy or an orchestrator polls: no session, no
// CSRF. While the replica shuts down both answer 503 and close the
// connection, for the proxy to stop sending it requests.

// shuttingDown reports whether the replica is shutting down, and then
// asks the client to close the connection.
func shuttingDown(cfg Config, c *fiber.Ctx) bool {
	if cfg.ShuttingDown == nil || !cfg.ShuttingDown.Load() {
		return false
	}
	c.Set(fiber.HeaderConnection, "close")
	return true
}

// healthz: the process serves, and the shop has its engine (Config.Health).
func healthz(cfg Config) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if shuttingDown(cfg, c) {
			return c.Status(http.StatusServiceUnavailable).SendString("shutting down")
		}
		if cfg.Health != nil {
			if err := cfg.Health.Serving(); err != nil {
				return c.Status(http.StatusServiceUnavailable).SendString("DynamoDB is down")
			}
		}
		return c.SendString("ok")
	}
}

// readyz: DynamoDB answers within 2 s.
func readyz(cfg Config) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if shuttingDown(cfg, c) {
			return c.Status(http.StatusServiceUnavailable).SendString("shutting down")
		}
		ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
		defer cancel()
		if err := cfg.Store.Ping(ctx); err != nil {
			cfg.Log.Warn("not ready", "err", err)
			return c.Status(http.StatusServiceUnavailable).SendString("DynamoDB does not answer")
		}
		return c.SendString("ready")
	}
}
