package web

import (
	"net/http"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/filesystem"

	"shop/handlers"
	"shop/static"
)

// Every route of the shop, one a line, by area. Fiber tries routes in the
// order they are added, so the order here is part of the meaning: the
// routes without a session come before the pages' middleware (New), and a
// fixed segment before a parameter in the same place (/admin/products/new
// before /admin/products/:id).

// sessionlessRoutes are the routes that read no session and check no CSRF
// token: machine endpoints, static files, the API, the card providers'
// events, a drop's live count and the product pictures. Each area ends
// with a 404 of its own, so an unknown path under it gets no session.
func sessionlessRoutes(app *fiber.App, cfg Config, h *handlerSet) {
	machineRoutes(app, cfg)
	apiRoutes(app, cfg, h.api)
	app.Use("/api", func(c *fiber.Ctx) error { return fiber.ErrNotFound }) // no session for an unknown /api path
	cardEventRoutes(app, cfg, h.cardEvents)
	app.Use("/webhooks", func(c *fiber.Ctx) error { return fiber.ErrNotFound }) // no session for an unknown webhook
	// A drop's live count, polled every second by everyone on its page:
	// no session (no cookie read or set) and no DynamoDB request (the
	// gate's memory, refreshed every second).
	app.Get("/drops/:id/count", deadline(cfg.RequestTimeout), h.shop.drops.Count)
	mediaRoutes(app, cfg, h.shop)
}

// pageRoutes are the pages, behind the session, CSRF and staff checks.
func pageRoutes(app *fiber.App, h *handlerSet) {
	catalogueRoutes(app, h.shop)
	accountRoutes(app, h.account)
	orderRoutes(app, h.shop)
	subscriptionRoutes(app, h.shop)
	dropRoutes(app, h.shop)
	if h.shop.testPayments != nil {
		testPaymentRoutes(app, h.shop.testPayments)
	}
	admin := app.Group("/admin") // staff only: requireStaff (pageMiddleware)
	adminCatalogueRoutes(admin, h.console)
	adminOrderRoutes(admin, h.console)
	adminCustomerRoutes(admin, h.console)
	adminIntegrationRoutes(admin, h.console)
	adminDropRoutes(admin, h.console)
	adminJobRoutes(admin, h.console)
}

// machineRoutes are the health checks, the metrics (from this machine
// only) and the static files.
func machineRoutes(app *fiber.App, cfg Config) {
	app.Get("/healthz", healthz(cfg))
	app.Get("/readyz", readyz(cfg))
	app.Get("/metrics", loopbackOnly(), cfg.Metrics.handler())
	app.Use("/static", staticCache(), filesystem.New(filesystem.Config{Root: http.FS(static.FS), MaxAge: 3600}))
}

// apiRoutes are the JSON API for other systems: a bearer key, no session,
// no CSRF; errors are JSON ({"error", "reason"}); described in
// openapi.json.
func apiRoutes(app *fiber.App, cfg Config, h apiEndpoints) {
	app.Get("/api/v1/openapi.json", serveOpenAPI)
	api := app.Group("/api/v1", apiHeaders(), deadline(cfg.RequestTimeout), h.keys.Require())
	api.Post("/drops", h.drops.Create)
	api.Get("/drops", h.drops.List)
	api.Get("/drops/:id", h.drops.Show)
	api.Post("/drops/:id/close", h.drops.Close)
	api.Post("/drops/:id/cancel", h.drops.Cancel)
	api.Post("/drops/:id/claims", h.drops.Claim)
	api.Get("/drops/:id/tickets", h.drops.Tickets)
	api.Get("/drops/:id/tickets/:client", h.drops.Ticket)
	api.Delete("/drops/:id/tickets/:client", h.drops.Release)
	api.Post("/webhooks", h.webhooks.Create)
	api.Get("/webhooks", h.webhooks.List)
	api.Delete("/webhooks/:id", h.webhooks.Delete)
	api.Post("/webhooks/:id/enable", h.deliveries.Enable)
	api.Get("/webhooks/:id/deliveries", h.deliveries.List)
	api.Post("/webhooks/:id/deliveries/:event/resend", h.deliveries.Resend)
}

// cardEventRoutes are the card providers' signed events: the signature,
// checked over the raw body first, is the check. The test provider's only
// in test mode.
func cardEventRoutes(app *fiber.App, cfg Config, h cardEventReceivers) {
	if h.test != nil {
		app.Post("/webhooks/test", deadline(cfg.RequestTimeout), h.test.Receive)
	}
	if h.stripe != nil {
		app.Post("/webhooks/stripe", deadline(cfg.RequestTimeout), h.stripe.Receive)
	}
}

// mediaRoutes are the product pictures: names that change with their
// content, cached for a year; no session, no DynamoDB.
func mediaRoutes(app *fiber.App, cfg Config, h shopPages) {
	app.Get("/media/photos/:key/:file", deadline(cfg.RequestTimeout), h.media.Photo)
	app.Get("/media/drawn/:category/:file", h.media.Drawn)
	app.Use("/media", func(c *fiber.Ctx) error { return fiber.ErrNotFound })
}

func catalogueRoutes(app *fiber.App, h shopPages) {
	app.Get("/", h.catalogue.List)
	app.Get("/products", h.catalogue.List)
	app.Get("/products/:id", h.catalogue.Show)
	app.Get("/products/:id/stock", h.catalogue.Stock)
	app.Get("/search", h.search.Show)
}

func accountRoutes(app *fiber.App, h accountPages) {
	app.Get("/signup", h.account.SignupForm)
	app.Post("/signup", h.account.Signup)
	app.Get("/login", h.account.LoginForm)
	app.Post("/login", h.account.Login)
	app.Post("/logout", h.account.Logout)
	// Mailed account links: a forgotten password, the email's confirmation.
	app.Get("/password/forgot", h.links.ForgotForm)
	app.Post("/password/forgot", h.links.Forgot)
	app.Get("/password/reset", h.links.ResetForm)
	app.Post("/password/reset", h.links.Reset)
	app.Get("/email/verify", h.links.VerifyForm)
	app.Post("/email/verify", h.links.Verify)
	app.Post("/account/verify-email", h.links.Resend)
	// The customer's name, password and saved addresses.
	app.Get("/account", h.details.Show)
	app.Post("/account/name", h.details.Rename)
	app.Post("/account/password", h.details.ChangePassword)
	app.Post("/account/addresses", h.details.AddAddress)
	app.Get("/account/addresses/:id", h.details.EditAddress)
	app.Post("/account/addresses/:id", h.details.UpdateAddress)
	app.Post("/account/addresses/:id/default", h.details.DefaultAddress)
	app.Post("/account/addresses/:id/delete", h.details.DeleteAddress)
	// What the shop holds about the customer, and deleting the account.
	app.Get("/account/data", h.privacy.Download)
	app.Get("/account/delete", h.privacy.DeleteForm)
	app.Post("/account/delete", h.privacy.Delete)
	// Where the customer is signed in, and signing the other places out.
	app.Get("/account/sessions", h.sessions.List)
	app.Post("/account/sessions/end-others", h.sessions.EndOthers)
	app.Post("/account/sessions/:handle/end", h.sessions.End)
}

// orderRoutes are the cart, the checkout and the customer's orders (a
// guest's through a signed link).
func orderRoutes(app *fiber.App, h shopPages) {
	app.Get("/cart", h.cart.Show)
	app.Post("/cart/items", h.cart.Add)
	app.Post("/cart/items/:id", h.cart.Update)
	app.Post("/cart/items/:id/remove", h.cart.Remove)
	app.Post("/cart/tickets/:id/remove", h.cart.RemoveTicket)
	app.Get("/checkout", h.checkout.Show)
	app.Post("/checkout", h.checkout.Place)
	app.Post("/checkout/summary", h.checkout.Summary)
	app.Get("/orders", h.orders.List)
	app.Get("/orders/:id", h.orders.Show)
	app.Get("/orders/:id/cancel", h.orders.ConfirmCancel)
	app.Get("/orders/:id/invoice.pdf", h.orders.InvoicePDF)
	app.Get("/orders/:id/refunds/:key/credit-note.pdf", h.orders.CreditNotePDF)
	app.Post("/orders/:id/cancel", h.orders.Cancel)
	app.Get("/orders/:id/payment", h.orderPayment.Poll)
	app.Post("/orders/:id/pay", h.orderPayment.Pay)
	app.Post("/orders/:id/returns", h.orders.RequestReturn)
	app.Get("/orders/:id/returns/:rid/slip", h.orders.ReturnSlip)
	app.Get("/orders/:id/link", h.guestOrders.Show)
}

// subscriptionRoutes are the customer's subscriptions and their receipts.
func subscriptionRoutes(app *fiber.App, h shopPages) {
	app.Get("/subscriptions", h.subscriptions.List)
	app.Post("/subscriptions", h.subscriptions.Subscribe)
	app.Get("/subscriptions/preview", h.subscriptions.Preview)
	app.Post("/subscriptions/:id/day", h.subscriptions.ChangeDay)
	app.Post("/subscriptions/:id/period", h.subscriptions.ChangePeriod)
	app.Post("/subscriptions/:id/card", h.subscriptions.ChangeCard)
	app.Post("/subscriptions/:id/skip", h.subscriptions.Skip)
	app.Post("/subscriptions/:id/pause", h.subscriptions.Pause)
	app.Post("/subscriptions/:id/resume", h.subscriptions.Resume)
	app.Post("/subscriptions/:id/cancel", h.subscriptions.Cancel) // when=now|period_end
	app.Post("/subscriptions/:id/keep", h.subscriptions.Keep)
	app.Get("/subscriptions/:id/swap", h.subscriptions.SwapPreview)
	app.Post("/subscriptions/:id/swap", h.subscriptions.Swap)
	app.Post("/subscriptions/:id/pay", h.subscriptions.Pay)
	app.Get("/receipts", h.receipts.List)
	app.Get("/receipts/:number", h.receipts.Show)
	app.Get("/receipts/:number/receipt.pdf", h.receipts.PDF)
	app.Get("/receipts/:number/credit-notes/:note/credit-note.pdf", h.receipts.CreditNotePDF)
}

// dropRoutes are limited drops: the list, a drop's page (its count is
// sessionless), the claim area htmx fetches at the opening, the claim,
// and the tickets.
func dropRoutes(app *fiber.App, h shopPages) {
	app.Get("/drops", h.drops.List)
	app.Get("/drops/:id", h.drops.Show)
	app.Get("/drops/:id/claim", h.drops.ClaimArea)
	app.Post("/drops/:id/claim", h.drops.Claim)
	app.Get("/tickets", h.drops.Tickets)
	app.Post("/tickets/:id/buy", h.drops.Buy)
}

// testPaymentRoutes are the test provider's hosted pages, in test mode: a
// session's card form and the bank's question, as a provider's own site
// would serve them (marked as a test on every page).
func testPaymentRoutes(app *fiber.App, h *handlers.TestPayments) {
	app.Get("/test-payments/checkout/:session", h.Checkout)
	app.Post("/test-payments/checkout/:session", h.Pay)
	app.Post("/test-payments/checkout/:session/confirm", h.Confirm)
	app.Get("/test-payments/payments/:id/confirm", h.Payment)
	app.Post("/test-payments/payments/:id/confirm", h.AnswerPayment)
}

// adminCatalogueRoutes are the console's home, the billing figures, the
// warehouses, the products and the shipping zones.
func adminCatalogueRoutes(admin fiber.Router, h consolePages) {
	admin.Get("/", h.dashboard.Home)
	admin.Get("/dashboard/:block", h.dashboard.Block)
	admin.Get("/billing", h.billing.Show)
	admin.Get("/warehouses", h.warehouses.List)
	admin.Get("/warehouses/:id", h.warehouses.Show)
	admin.Get("/warehouses/:id/shipments", h.warehouses.Shipments)
	admin.Get("/warehouses/:id/adjustments", h.warehouses.Adjustments)
	admin.Post("/warehouses/:id/stock", h.warehouses.Adjust)
	admin.Get("/products", h.products.List)
	admin.Get("/products/new", h.products.New)
	admin.Post("/products", h.products.Create)
	admin.Get("/products/:id", h.products.Show)
	admin.Post("/products/:id", h.products.Update)
	admin.Post("/products/:id/low-stock", h.products.LowStock)
	admin.Post("/products/:id/photo", h.products.UploadPhoto)
	admin.Get("/shipping", h.shipping.List)
	admin.Post("/shipping", h.shipping.Save)
	admin.Get("/shipping/:id", h.shipping.Edit)
	admin.Post("/shipping/:id", h.shipping.Save)
	admin.Post("/shipping/:id/delete", h.shipping.Delete)
}

// adminOrderRoutes are orders, their refunds, shipments and returns, the
// packing queue and the invoices.
func adminOrderRoutes(admin fiber.Router, h consolePages) {
	admin.Get("/orders", h.orders.List)
	admin.Get("/orders.csv", h.orders.CSV)
	admin.Get("/orders/:id", h.orders.Show)
	admin.Post("/orders/:id/shipments", h.orders.CreateShipments)
	admin.Post("/orders/:id/refunds", h.orders.Refund)
	admin.Post("/orders/:id/refunds/:key/retry", h.orders.RetryCardRefund)
	admin.Get("/orders/:id/refunds/:key/credit-note.pdf", h.creditNotes.PDF)
	admin.Post("/orders/:id/allocate", h.orders.Allocate)
	admin.Post("/orders/:id/shipments/:sid", h.shipments.Change)
	admin.Post("/orders/:id/shipments/:sid/undo", h.shipments.Undo)
	admin.Get("/orders/:id/shipments/:sid/slip", h.shipments.Slip)
	admin.Get("/returns", h.returns.List)
	admin.Get("/orders/:id/returns/:rid", h.returns.Show)
	admin.Post("/orders/:id/returns/:rid/receive", h.returns.Receive)
	admin.Post("/orders/:id/returns/:rid/inspect", h.returns.Inspect)
	admin.Post("/orders/:id/returns/:rid/refund", h.returns.Refund)
	admin.Get("/invoices", h.invoices.Lookup)
	admin.Get("/invoices/:id", h.invoices.Show)
	admin.Get("/invoices/:id/invoice.pdf", h.invoices.PDF)
	admin.Get("/shipments", h.shipments.List)
	admin.Post("/shipments/pack", h.toPack.Pack)
	admin.Get("/shipments/print", h.toPack.Print)
	admin.Post("/shipments/print", h.toPack.Print)
	admin.Get("/shipments/:id", h.shipments.Show)
}

// adminCustomerRoutes are customers (roles and deactivation for owners
// only: the handlers check), subscriptions with their settings and
// prices, receipts, the seller's details and the codes.
func adminCustomerRoutes(admin fiber.Router, h consolePages) {
	admin.Get("/customers", h.customers.List)
	admin.Get("/customers/:id", h.customers.Show)
	admin.Post("/customers/:id/role", h.customers.ChangeRole)
	admin.Post("/customers/:id/deactivate", h.customers.Deactivate)
	admin.Post("/customers/:id/reactivate", h.customers.Reactivate)
	admin.Get("/subscriptions", h.subscriptions.List)
	admin.Get("/subscriptions/due", h.subscriptions.Due)
	admin.Get("/subscriptions/settings", h.subscriptionSetting.Settings)
	admin.Post("/subscriptions/settings", h.subscriptionSetting.SaveSettings)
	admin.Get("/subscriptions/prices", h.subscriptionSetting.Prices)
	admin.Post("/subscriptions/prices", h.subscriptionSetting.SchedulePrice)
	admin.Get("/customers/:id/receipts/:number", h.receipts.Show)
	admin.Get("/customers/:id/receipts/:number/receipt.pdf", h.receipts.PDF)
	admin.Get("/customers/:id/receipts/:number/credit-notes/:note/credit-note.pdf", h.receipts.CreditNotePDF)
	admin.Post("/customers/:id/receipts/:number/refund", h.receipts.Refund)
	admin.Get("/settings/seller", h.seller.Show)
	admin.Post("/settings/seller", h.seller.Save)
	admin.Get("/giftcards", h.codes.GiftCards)
	admin.Post("/giftcards", h.codes.CreateGiftCard)
	admin.Get("/discounts", h.codes.Discounts)
	admin.Post("/discounts", h.codes.CreateDiscount)
}

// adminIntegrationRoutes are the API's keys and integrations, and the
// webhook endpoints: every endpoint (staff register theirs and delete
// any), and one endpoint with its deliveries, a resend, enabling it.
func adminIntegrationRoutes(admin fiber.Router, h consolePages) {
	admin.Get("/api-keys", h.apiKeys.List)
	admin.Post("/api-keys", h.apiKeys.Create)
	admin.Get("/api-keys/:id/revoke", h.apiKeys.ConfirmRevoke)
	admin.Post("/api-keys/:id/revoke", h.apiKeys.Revoke)
	admin.Get("/api-keys/:id/rotate", h.apiKeys.ConfirmRotate)
	admin.Post("/api-keys/:id/rotate", h.apiKeys.Rotate)
	admin.Post("/api-keys/integrations/:name/keys", h.apiKeys.Issue)
	admin.Get("/api-keys/integrations/:name/revoke", h.apiKeys.ConfirmRevokeIntegration)
	admin.Post("/api-keys/integrations/:name/revoke", h.apiKeys.RevokeIntegration)
	admin.Get("/webhooks", h.webhooks.List)
	admin.Post("/webhooks", h.webhooks.Create)
	admin.Get("/webhooks/:owner/:id/delete", h.webhooks.ConfirmDelete)
	admin.Post("/webhooks/:owner/:id/delete", h.webhooks.Delete)
	admin.Get("/webhooks/:owner/:id", h.webhook.Show)
	admin.Post("/webhooks/:owner/:id/enable", h.webhook.Enable)
	admin.Post("/webhooks/:owner/:id/deliveries/:event/resend", h.webhook.Resend)
}

// adminDropRoutes are limited drops for staff.
func adminDropRoutes(admin fiber.Router, h consolePages) {
	admin.Get("/drops", h.drops.List)
	admin.Post("/drops", h.drops.Create)
	admin.Get("/drops/:id", h.drops.Show)
	admin.Get("/drops/:id/live", h.drops.Live)
	admin.Get("/drops/:id/tickets.csv", h.drops.CSV)
	admin.Post("/drops/:id/close", h.drops.Close)
	admin.Get("/drops/:id/tickets/:client/release", h.drops.ConfirmRelease)
	admin.Post("/drops/:id/tickets/:client/release", h.drops.Release)
	admin.Post("/drops/:id/cancel", h.drops.Cancel)
	admin.Post("/drops/:id/description", h.drops.Describe)
	admin.Post("/drops/:id/photo", h.drops.UploadPhoto)
}

// adminJobRoutes are the billing jobs, the mail they send (the outbox)
// and the archive of the books.
func adminJobRoutes(admin fiber.Router, h consolePages) {
	admin.Get("/jobs", h.jobs.List)
	admin.Post("/jobs/:job/run", h.jobs.RunNow)
	admin.Get("/jobs/:job/runs", h.jobs.Runs)
	admin.Get("/jobs/:job/runs/:id", h.jobs.Show)
	admin.Get("/jobs/:job/runs/:id/progress", h.jobs.Progress)
	admin.Get("/outbox", h.outbox.List)
	admin.Get("/outbox/:id", h.outbox.Show)
	admin.Get("/archive", h.archive.Show)
	admin.Post("/archive/run", h.archive.RunNow)
	admin.Get("/archive/:month/:file", h.archive.Download)
}
