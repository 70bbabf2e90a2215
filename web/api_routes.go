package web

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"shop/handlers"
	"shop/jobs/webhook"
	"shop/store"
)

// apiRoutes is the JSON API for other systems: no session, no CSRF; a
// bearer key checked against a copy of the keys reloaded every few seconds.
// Errors are JSON ({"error", "reason"}); described in openapi.json. The
// webhooks' deliverer runs on every replica, jobs or not, until bg ends.
// The drop gate tells it of drops that sold out or closed by time. It
// returns what staff's pages need to announce their changes.
func apiRoutes(bg context.Context, app *fiber.App, cfg Config) announcers {
	apiKeys := handlers.NewAPIKeys(cfg.Store, cfg.APIKeysEvery, cfg.Log)
	go apiKeys.Run(bg)
	hooks := webhook.New(cfg.Store, webhook.Config{Client: webhook.NewClient(cfg.Webhooks.Client),
		Jitter: cfg.Webhooks.Jitter, Active: apiKeys.AnyWebhooks, StaffMail: cfg.Webhooks.StaffMail, Log: cfg.Log})
	if cfg.Webhooks.Deliverer != nil {
		*cfg.Webhooks.Deliverer = hooks
	}
	go hooks.Run(bg, cfg.Webhooks.Every)
	// The shop's own events (orders, subscriptions), written by the store
	// wherever they happen, jobs included, for the staff endpoints this
	// replica's key cache knows.
	cfg.Store.AnnounceShopEvents(store.ShopHooks{Subscribed: apiKeys.Subscribed, Wake: hooks.Wake})
	notices := &handlers.DropNotices{Store: cfg.Store, Hooks: apiKeys, Wake: hooks.Wake, Log: cfg.Log}
	cfg.Gate.OnNotice(notices.Notice)
	apiDrops := &handlers.APIDrops{Store: cfg.Store, Gate: cfg.Gate, Hooks: apiKeys, Wake: hooks.Wake, Notice: notices.Notice}
	apiWebhooks := &handlers.APIWebhooks{Store: cfg.Store, Keys: apiKeys, AllowPrivate: cfg.Webhooks.Client.AllowPrivate}
	apiDeliveries := &handlers.APIWebhookDeliveries{Store: cfg.Store, Keys: apiKeys, Wake: hooks.Wake}
	app.Get("/api/v1/openapi.json", serveOpenAPI)
	api := app.Group("/api/v1", apiHeaders(), deadline(cfg.RequestTimeout), apiKeys.Require())
	api.Post("/drops", apiDrops.Create)
	api.Get("/drops", apiDrops.List)
	api.Get("/drops/:id", apiDrops.Show)
	api.Post("/drops/:id/close", apiDrops.Close)
	api.Post("/drops/:id/cancel", apiDrops.Cancel)
	api.Post("/drops/:id/claims", apiDrops.Claim)
	api.Get("/drops/:id/tickets", apiDrops.Tickets)
	api.Get("/drops/:id/tickets/:client", apiDrops.Ticket)
	api.Delete("/drops/:id/tickets/:client", apiDrops.Release)
	api.Post("/webhooks", apiWebhooks.Create)
	api.Get("/webhooks", apiWebhooks.List)
	api.Delete("/webhooks/:id", apiWebhooks.Delete)
	api.Post("/webhooks/:id/enable", apiDeliveries.Enable)
	api.Get("/webhooks/:id/deliveries", apiDeliveries.List)
	api.Post("/webhooks/:id/deliveries/:event/resend", apiDeliveries.Resend)
	return announcers{Hooks: apiKeys, Wake: hooks.Wake, Keys: apiKeys}
}

// announcers are the endpoints' copy and the deliverer's wake-up, for the
// pages whose changes write events.
type announcers struct {
	Hooks handlers.APIHooks
	Wake  func()
	Keys  *handlers.APIKeys // the key cache, reloaded by the console's webhooks pages
}

// adminWebhookRoutes are the console's webhook pages: every endpoint
// (staff register theirs and delete any), and one endpoint with its
// deliveries, a resend, enabling it.
func adminWebhookRoutes(admin fiber.Router, cfg Config, hooks announcers) {
	all := &handlers.AdminWebhooks{Store: cfg.Store, Keys: hooks.Keys, AllowPrivate: cfg.Webhooks.Client.AllowPrivate}
	admin.Get("/webhooks", all.List)
	admin.Post("/webhooks", all.Create)
	admin.Get("/webhooks/:owner/:id/delete", all.ConfirmDelete)
	admin.Post("/webhooks/:owner/:id/delete", all.Delete)
	h := &handlers.AdminWebhook{Store: cfg.Store, Reload: hooks.Keys.Load, Wake: hooks.Wake, Log: cfg.Log}
	admin.Get("/webhooks/:owner/:id", h.Show)
	admin.Post("/webhooks/:owner/:id/enable", h.Enable)
	admin.Post("/webhooks/:owner/:id/deliveries/:event/resend", h.Resend)
}
