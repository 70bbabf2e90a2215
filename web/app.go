// Package web is the Fiber app: every route in one list, and the middleware
// around them (request id and timeout, access log and metrics, panics,
// security headers, sessions, CSRF, staff-only admin, errors).
package web

import (
	"context"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/filesystem"

	"shop/handlers"
	"shop/jobs"
	"shop/static"
	"shop/store"
	"shop/store/archive"
	"shop/store/dropgate"
	"shop/store/payment"
)

// ReplicaHeader names the replica that answered (Config.Replica).
const ReplicaHeader = "X-Shop-Replica"

// New builds the shop's Fiber app. Links, forms and redirects build their
// paths with web/paths; paths_test.go holds each builder to a route here.
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
	account, err := handlers.NewAccount(cfg.Store, cfg.BcryptCost, cfg.Log)
	if err != nil {
		return nil, err
	}
	account.SecureCookies = cfg.SecureCookies
	returnBase := cfg.BaseURL // where a provider's page sends the customer back; "" is the request's own
	if cfg.BaseURL == "" {
		cfg.BaseURL = "http://localhost"
	}
	mail := jobs.ShopMail{BaseURL: cfg.BaseURL}
	pages, err := cfg.paymentDefaults(returnBase)
	if err != nil {
		return nil, err
	}
	signer, err := handlers.NewLinkSigner(cfg.SessionKeys)
	if err != nil {
		return nil, err
	}
	// Guests' order mails carry a signed link to the order's page, from
	// the checkout and from the settler of held orders alike (serve sets
	// the settler's before its jobs start).
	mail.GuestOrderLink = signer.GuestOrderLink
	if cfg.Settler.Mail.GuestOrderLink == nil {
		cfg.Settler.Mail.GuestOrderLink = signer.GuestOrderLink
	}
	links := &handlers.AccountLinks{Store: cfg.Store, Signer: signer, Mail: mail, BcryptCost: cfg.BcryptCost, Log: cfg.Log}
	account.VerifyMail = links.VerifyMail
	if cfg.Refunds == nil {
		cfg.Refunds = defaultRefunds(cfg)
	}
	trusted, err := parseTrustedProxies(cfg.TrustedProxies)
	if err != nil {
		return nil, err
	}
	// Background work of this app (the gate's refresher, the API key
	// cache) lives until the app shuts down.
	bg, stopBg := context.WithCancel(context.Background())
	if cfg.Gate == nil {
		cfg.Gate = dropgate.New(cfg.Store, nil)
		go cfg.Gate.Run(bg, time.Second)
	}
	catalogue := &handlers.Catalogue{Window: cfg.Store.Window(), Store: cfg.Store, CardProvider: cfg.SubscriptionPayments.ActiveProvider()}
	if cfg.SessionCache > 0 { // the subscribe form's reads are kept as long as sessions are
		catalogue.Facts = handlers.NewSubscribeFacts(cfg.SessionCache)
	}
	cart := &handlers.Cart{Store: cfg.Store}
	checkout := &handlers.Checkout{Store: cfg.Store, Pages: pages, Hold: cfg.PaymentHold, Log: cfg.Log, Confirmation: mail.OrderPlaced, Guests: cfg.Store}
	guestOrders := &handlers.GuestOrders{Store: cfg.Store, Signer: signer}
	orderPayment := &handlers.OrderPayment{Store: cfg.Store, Pages: pages, Log: cfg.Log, Held: cfg.Settler}
	orders := &handlers.Orders{Store: cfg.Store, Refunds: cfg.Refunds, Payment: orderPayment}
	refundMail := func(r store.Receipt) *store.Mail { return jobs.ReceiptRefundMail(cfg.BaseURL, cfg.Store.Now(), r) }
	subscriptions := &handlers.Subscriptions{Store: cfg.Store, Window: cfg.Store.Window(), Refunder: cfg.Refunds, Mail: refundMail, Payer: cfg.SubscriptionPayments, Charger: cfg.SubscriptionPayments}
	receipts := &handlers.Receipts{Store: cfg.Store}
	warehouses := &handlers.AdminWarehouses{Store: cfg.Store}
	adminShipping := &handlers.AdminShipping{Store: cfg.Store}

	onError := errorHandler(cfg.Log, cfg.Health)
	app := fiber.New(fiber.Config{
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
	})
	app.Hooks().OnShutdown(func() error { stopBg(); return nil })

	if cfg.Replica != "" {
		app.Use(func(c *fiber.Ctx) error {
			c.Set(ReplicaHeader, cfg.Replica)
			return c.Next()
		})
	}
	app.Use(privateAnswers(), requestID(), accessLog(cfg.Log, cfg.Metrics, onError), recoverPanic(cfg.Log), bodyLimits(), securityHeaders(), compressed(),
		clientAddress(cfg.ProxyHeader, trusted), shopZone(cfg.Store.Location()), language(cfg.SecureCookies))

	// Machine endpoints: no session, no CSRF.
	shuttingDown := func(c *fiber.Ctx) bool {
		if cfg.ShuttingDown == nil || !cfg.ShuttingDown.Load() {
			return false
		}
		c.Set(fiber.HeaderConnection, "close")
		return true
	}
	app.Get("/healthz", func(c *fiber.Ctx) error {
		if shuttingDown(c) {
			return c.Status(http.StatusServiceUnavailable).SendString("shutting down")
		}
		if cfg.Health != nil {
			if err := cfg.Health.Serving(); err != nil {
				return c.Status(http.StatusServiceUnavailable).SendString("DynamoDB is down")
			}
		}
		return c.SendString("ok")
	})
	app.Get("/readyz", func(c *fiber.Ctx) error {
		if shuttingDown(c) {
			return c.Status(http.StatusServiceUnavailable).SendString("shutting down")
		}
		ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
		defer cancel()
		if err := cfg.Store.Ping(ctx); err != nil {
			cfg.Log.Warn("not ready", "err", err)
			return c.Status(http.StatusServiceUnavailable).SendString("DynamoDB does not answer")
		}
		return c.SendString("ready")
	})
	app.Get("/metrics", loopbackOnly(), cfg.Metrics.handler())
	app.Use("/static", staticCache(), filesystem.New(filesystem.Config{Root: http.FS(static.FS), MaxAge: 3600}))

	hooks := apiRoutes(bg, app, cfg)
	app.Use("/api", func(c *fiber.Ctx) error { return fiber.ErrNotFound }) // no session for an unknown /api path

	// Card providers' signed events: no session, no CSRF; the signature,
	// checked over the raw body first, is the check. The test provider's
	// only in test mode.
	testMode := cfg.TestPayments != nil && !cfg.TestPayments.RefundsOnly
	if err := cfg.webhooks(app, testMode); err != nil {
		stopBg()
		return nil, err
	}
	app.Use("/webhooks", func(c *fiber.Ctx) error { return fiber.ErrNotFound }) // no session for an unknown webhook

	// A drop's live count, polled every second by everyone on its page:
	// no session (no cookie read or set) and no DynamoDB request (the
	// gate's memory, refreshed every second).
	drops := &handlers.Drops{Store: cfg.Store, Window: cfg.Store.Window(), Gate: cfg.Gate}
	app.Get("/drops/:id/count", deadline(cfg.RequestTimeout), drops.Count)

	// Product pictures: names that change with their content, cached for a
	// year; no session, no DynamoDB.
	media := &handlers.Media{Shelf: cfg.Shelf}
	app.Get("/media/photos/:key/:file", deadline(cfg.RequestTimeout), media.Photo)
	app.Get("/media/drawn/:category/:file", media.Drawn)
	app.Use("/media", func(c *fiber.Ctx) error { return fiber.ErrNotFound })

	// Pages. The console's staff check comes before the CSRF check, which
	// reads the body: a customer's (or a visitor's) POST to /admin is
	// refused on its head, not after the 10 MB a photo upload may send.
	app.Use(deadline(cfg.RequestTimeout), sessionStore.middleware(cfg.Log))
	app.Use("/admin", requireStaff(cfg.Store))
	app.Use(csrfProtect(), customerLanguage(cfg.Store))

	app.Get("/", catalogue.List)
	app.Get("/products", catalogue.List)
	app.Get("/products/:id", catalogue.Show)
	app.Get("/products/:id/stock", catalogue.Stock)
	app.Get("/search", (&handlers.Search{Window: cfg.Store.Window()}).Show)

	app.Get("/signup", account.SignupForm)
	app.Post("/signup", account.Signup)
	app.Get("/login", account.LoginForm)
	app.Post("/login", account.Login)
	app.Post("/logout", account.Logout)
	// Mailed account links: a forgotten password, the email's confirmation.
	app.Get("/password/forgot", links.ForgotForm)
	app.Post("/password/forgot", links.Forgot)
	app.Get("/password/reset", links.ResetForm)
	app.Post("/password/reset", links.Reset)
	app.Get("/email/verify", links.VerifyForm)
	app.Post("/email/verify", links.Verify)
	app.Post("/account/verify-email", links.Resend)
	// The customer's name, password and saved addresses.
	accountDetails := &handlers.AccountDetails{Store: cfg.Store, BcryptCost: cfg.BcryptCost}
	app.Get("/account", accountDetails.Show)
	app.Post("/account/name", accountDetails.Rename)
	app.Post("/account/password", accountDetails.ChangePassword)
	app.Post("/account/addresses", accountDetails.AddAddress)
	app.Get("/account/addresses/:id", accountDetails.EditAddress)
	app.Post("/account/addresses/:id", accountDetails.UpdateAddress)
	app.Post("/account/addresses/:id/default", accountDetails.DefaultAddress)
	app.Post("/account/addresses/:id/delete", accountDetails.DeleteAddress)
	// Where the customer is signed in, and signing the other places out.
	accountPrivacy := &handlers.AccountPrivacy{Store: cfg.Store}
	app.Get("/account/data", accountPrivacy.Download)
	app.Get("/account/delete", accountPrivacy.DeleteForm)
	app.Post("/account/delete", accountPrivacy.Delete)

	accountSessions := &handlers.AccountSessions{Store: cfg.Store}
	app.Get("/account/sessions", accountSessions.List)
	app.Post("/account/sessions/end-others", accountSessions.EndOthers)
	app.Post("/account/sessions/:handle/end", accountSessions.End)

	app.Get("/cart", cart.Show)
	app.Post("/cart/items", cart.Add)
	app.Post("/cart/items/:id", cart.Update)
	app.Post("/cart/items/:id/remove", cart.Remove)
	app.Post("/cart/tickets/:id/remove", cart.RemoveTicket)
	app.Get("/checkout", checkout.Show)
	app.Post("/checkout", checkout.Place)
	app.Post("/checkout/summary", checkout.Summary)
	app.Get("/orders", orders.List)
	app.Get("/orders/:id", orders.Show)
	app.Get("/orders/:id/cancel", orders.ConfirmCancel)
	app.Get("/orders/:id/invoice.pdf", orders.InvoicePDF)
	app.Get("/orders/:id/refunds/:key/credit-note.pdf", orders.CreditNotePDF)
	app.Post("/orders/:id/cancel", orders.Cancel)
	app.Get("/orders/:id/payment", orderPayment.Poll)
	app.Post("/orders/:id/pay", orderPayment.Pay)
	app.Post("/orders/:id/returns", orders.RequestReturn)
	app.Get("/orders/:id/returns/:rid/slip", orders.ReturnSlip)
	app.Get("/orders/:id/link", guestOrders.Show)

	app.Get("/subscriptions", subscriptions.List)
	app.Post("/subscriptions", subscriptions.Subscribe)
	app.Get("/subscriptions/preview", subscriptions.Preview)
	app.Post("/subscriptions/:id/day", subscriptions.ChangeDay)
	app.Post("/subscriptions/:id/period", subscriptions.ChangePeriod)
	app.Post("/subscriptions/:id/card", subscriptions.ChangeCard)
	app.Post("/subscriptions/:id/skip", subscriptions.Skip)
	app.Post("/subscriptions/:id/pause", subscriptions.Pause)
	app.Post("/subscriptions/:id/resume", subscriptions.Resume)
	app.Post("/subscriptions/:id/cancel", subscriptions.Cancel) // when=now|period_end
	app.Post("/subscriptions/:id/keep", subscriptions.Keep)
	app.Get("/subscriptions/:id/swap", subscriptions.SwapPreview)
	app.Post("/subscriptions/:id/swap", subscriptions.Swap)
	app.Post("/subscriptions/:id/pay", subscriptions.Pay)
	app.Get("/receipts", receipts.List)
	app.Get("/receipts/:number", receipts.Show)
	app.Get("/receipts/:number/receipt.pdf", receipts.PDF)
	app.Get("/receipts/:number/credit-notes/:note/credit-note.pdf", receipts.CreditNotePDF)

	// Limited drops: the list, a drop's page (its count above), the claim
	// area htmx fetches at the opening, the claim, and the tickets.
	app.Get("/drops", drops.List)
	app.Get("/drops/:id", drops.Show)
	app.Get("/drops/:id/claim", drops.ClaimArea)
	app.Post("/drops/:id/claim", drops.Claim)
	app.Get("/tickets", drops.Tickets)
	app.Post("/tickets/:id/buy", drops.Buy)

	// The test provider's hosted pages, in test mode: a session's card
	// form and the bank's question, as a provider's own site would serve
	// them (marked as a test on every page).
	if testMode {
		testPay := &handlers.TestPayments{Provider: cfg.TestPayments}
		app.Get("/test-payments/checkout/:session", testPay.Checkout)
		app.Post("/test-payments/checkout/:session", testPay.Pay)
		app.Post("/test-payments/checkout/:session/confirm", testPay.Confirm)
		app.Get("/test-payments/payments/:id/confirm", testPay.Payment)
		app.Post("/test-payments/payments/:id/confirm", testPay.AnswerPayment)
	}

	admin := app.Group("/admin") // staff only: requireStaff above
	adminProducts := &handlers.AdminProducts{Store: cfg.Store, Shelf: cfg.Shelf, Finder: cfg.Store.Window()}
	adminOrders := &handlers.AdminOrders{Store: cfg.Store, Products: cfg.Store.Window(), Log: cfg.Log, Refunds: cfg.Refunds, StripeDashboard: cfg.StripeDashboard}
	adminCustomers := &handlers.AdminCustomers{Store: cfg.Store}
	adminInvoices := &handlers.AdminInvoices{Store: cfg.Store}
	toPack := &handlers.AdminToPack{Store: cfg.Store}
	adminShipments := &handlers.AdminShipments{Store: cfg.Store, Mail: mail.ShipmentStep, Queue: toPack}
	adminCodes := &handlers.AdminCodes{Store: cfg.Store}
	adminSubscriptions := &handlers.AdminSubscriptions{Store: cfg.Store}
	dashboard := &handlers.AdminDashboard{Store: cfg.Store}
	billing := &handlers.AdminBilling{Store: cfg.Store}
	admin.Get("/", dashboard.Home)
	admin.Get("/dashboard/:block", dashboard.Block)
	admin.Get("/billing", billing.Show)
	admin.Get("/warehouses", warehouses.List)
	admin.Get("/warehouses/:id", warehouses.Show)
	admin.Get("/warehouses/:id/shipments", warehouses.Shipments)
	admin.Get("/warehouses/:id/adjustments", warehouses.Adjustments)
	admin.Post("/warehouses/:id/stock", warehouses.Adjust)
	admin.Get("/products", adminProducts.List)
	admin.Get("/products/new", adminProducts.New)
	admin.Post("/products", adminProducts.Create)
	admin.Get("/products/:id", adminProducts.Show)
	admin.Post("/products/:id", adminProducts.Update)
	admin.Post("/products/:id/low-stock", adminProducts.LowStock)
	admin.Post("/products/:id/photo", adminProducts.UploadPhoto)
	admin.Get("/orders", adminOrders.List)
	admin.Get("/orders.csv", adminOrders.CSV)
	admin.Get("/orders/:id", adminOrders.Show)
	admin.Post("/orders/:id/shipments", adminOrders.CreateShipments)
	admin.Post("/orders/:id/refunds", adminOrders.Refund)
	admin.Post("/orders/:id/refunds/:key/retry", adminOrders.RetryCardRefund)
	admin.Get("/orders/:id/refunds/:key/credit-note.pdf", (&handlers.AdminCreditNotes{Store: cfg.Store}).PDF)
	admin.Post("/orders/:id/allocate", adminOrders.Allocate)
	admin.Post("/orders/:id/shipments/:sid", adminShipments.Change)
	admin.Post("/orders/:id/shipments/:sid/undo", adminShipments.Undo)
	admin.Get("/orders/:id/shipments/:sid/slip", adminShipments.Slip)
	adminReturns := &handlers.AdminReturns{Store: cfg.Store, Refunds: cfg.Refunds}
	admin.Get("/returns", adminReturns.List)
	admin.Get("/orders/:id/returns/:rid", adminReturns.Show)
	admin.Post("/orders/:id/returns/:rid/receive", adminReturns.Receive)
	admin.Post("/orders/:id/returns/:rid/inspect", adminReturns.Inspect)
	admin.Post("/orders/:id/returns/:rid/refund", adminReturns.Refund)
	admin.Get("/customers", adminCustomers.List)
	admin.Get("/customers/:id", adminCustomers.Show)
	// Owners only (the handlers check): roles and deactivation.
	admin.Post("/customers/:id/role", adminCustomers.ChangeRole)
	admin.Post("/customers/:id/deactivate", adminCustomers.Deactivate)
	admin.Post("/customers/:id/reactivate", adminCustomers.Reactivate)
	admin.Get("/subscriptions", adminSubscriptions.List)
	admin.Get("/subscriptions/due", adminSubscriptions.Due)
	adminSubSettings := &handlers.AdminSubscriptionSettings{Store: cfg.Store}
	admin.Get("/subscriptions/settings", adminSubSettings.Settings)
	admin.Post("/subscriptions/settings", adminSubSettings.SaveSettings)
	admin.Get("/subscriptions/prices", adminSubSettings.Prices)
	admin.Post("/subscriptions/prices", adminSubSettings.SchedulePrice)
	adminReceipts := &handlers.AdminReceipts{Store: cfg.Store, Refunder: cfg.Refunds, Mail: refundMail}
	admin.Get("/customers/:id/receipts/:number", adminReceipts.Show)
	admin.Get("/customers/:id/receipts/:number/receipt.pdf", adminReceipts.PDF)
	admin.Get("/customers/:id/receipts/:number/credit-notes/:note/credit-note.pdf", adminReceipts.CreditNotePDF)
	admin.Post("/customers/:id/receipts/:number/refund", adminReceipts.Refund)
	adminSeller := &handlers.AdminSeller{Store: cfg.Store}
	admin.Get("/settings/seller", adminSeller.Show)
	admin.Post("/settings/seller", adminSeller.Save)
	admin.Get("/invoices", adminInvoices.Lookup)
	admin.Get("/invoices/:id", adminInvoices.Show)
	admin.Get("/invoices/:id/invoice.pdf", adminInvoices.PDF)
	admin.Get("/shipments", adminShipments.List)
	admin.Post("/shipments/pack", toPack.Pack)
	admin.Get("/shipments/print", toPack.Print)
	admin.Post("/shipments/print", toPack.Print)
	admin.Get("/shipments/:id", adminShipments.Show)
	admin.Get("/giftcards", adminCodes.GiftCards)
	admin.Post("/giftcards", adminCodes.CreateGiftCard)
	admin.Get("/discounts", adminCodes.Discounts)
	admin.Post("/discounts", adminCodes.CreateDiscount)
	admin.Get("/shipping", adminShipping.List)
	admin.Post("/shipping", adminShipping.Save)
	admin.Get("/shipping/:id", adminShipping.Edit)
	admin.Post("/shipping/:id", adminShipping.Save)
	admin.Post("/shipping/:id/delete", adminShipping.Delete)
	adminAPIKeys := &handlers.AdminAPIKeys{Store: cfg.Store}
	admin.Get("/api-keys", adminAPIKeys.List)
	admin.Post("/api-keys", adminAPIKeys.Create)
	admin.Get("/api-keys/:id/revoke", adminAPIKeys.ConfirmRevoke)
	admin.Post("/api-keys/:id/revoke", adminAPIKeys.Revoke)
	admin.Get("/api-keys/:id/rotate", adminAPIKeys.ConfirmRotate)
	admin.Post("/api-keys/:id/rotate", adminAPIKeys.Rotate)
	admin.Post("/api-keys/integrations/:name/keys", adminAPIKeys.Issue)
	admin.Get("/api-keys/integrations/:name/revoke", adminAPIKeys.ConfirmRevokeIntegration)
	admin.Post("/api-keys/integrations/:name/revoke", adminAPIKeys.RevokeIntegration)
	adminWebhookRoutes(admin, cfg, hooks)

	// Limited drops for staff.
	adminDrops := &handlers.AdminDrops{Store: cfg.Store, Gate: cfg.Gate, Log: cfg.Log, Shelf: cfg.Shelf, Catalogue: cfg.Store.Window(),
		Hooks: hooks.Hooks, Wake: hooks.Wake}
	admin.Get("/drops", adminDrops.List)
	admin.Post("/drops", adminDrops.Create)
	admin.Get("/drops/:id", adminDrops.Show)
	admin.Get("/drops/:id/live", adminDrops.Live)
	admin.Get("/drops/:id/tickets.csv", adminDrops.CSV)
	admin.Post("/drops/:id/close", adminDrops.Close)
	admin.Get("/drops/:id/tickets/:client/release", adminDrops.ConfirmRelease)
	admin.Post("/drops/:id/tickets/:client/release", adminDrops.Release)
	admin.Post("/drops/:id/cancel", adminDrops.Cancel)
	admin.Post("/drops/:id/description", adminDrops.Describe)
	admin.Post("/drops/:id/photo", adminDrops.UploadPhoto)

	// Billing jobs and the mail they send.
	adminJobs := &handlers.AdminJobs{Store: cfg.Store, Jobs: cfg.Jobs}
	adminOutbox := &handlers.AdminOutbox{Store: cfg.Store, Kept: cfg.MailKeptInOutbox}
	admin.Get("/jobs", adminJobs.List)
	admin.Post("/jobs/:job/run", adminJobs.RunNow)
	admin.Get("/jobs/:job/runs", adminJobs.Runs)
	admin.Get("/jobs/:job/runs/:id", adminJobs.Show)
	admin.Get("/jobs/:job/runs/:id/progress", adminJobs.Progress)
	admin.Get("/outbox", adminOutbox.List)
	books := cfg.Archive
	if books == nil {
		books = &archive.Archiver{Store: cfg.Store, Shelf: archive.Nowhere{}, Sections: archive.Sections(cfg.Store)}
	}
	adminArchive := &handlers.AdminArchive{Store: cfg.Store, Archive: books, Jobs: cfg.Jobs, Where: cfg.ArchiveWhere, Log: cfg.Log}
	admin.Get("/archive", adminArchive.Show)
	admin.Post("/archive/run", adminArchive.RunNow)
	admin.Get("/archive/:month/:file", adminArchive.Download)
	admin.Get("/outbox/:id", adminOutbox.Show)

	if cfg.ExtraPages != nil {
		cfg.ExtraPages(app)
	}

	app.Use(func(c *fiber.Ctx) error { return fiber.ErrNotFound })
	return app, nil
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
