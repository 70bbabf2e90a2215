package web

import (
	"net/http"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/filesystem"

	"shop/handlers"
	"shop/static"
	"shop/web/paths"
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
	app.Get(paths.DropCountPattern, deadline(cfg.RequestTimeout), h.shop.drops.Count)
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
	// The console: staff only (requireStaff, in pageMiddleware).
	adminCatalogueRoutes(app, h.console)
	adminOrderRoutes(app, h.console)
	adminCustomerRoutes(app, h.console)
	adminIntegrationRoutes(app, h.console)
	adminDropRoutes(app, h.console)
	adminJobRoutes(app, h.console)
}

// machineRoutes are the health checks, the metrics (from this machine
// only) and the static files.
func machineRoutes(app *fiber.App, cfg Config) {
	app.Get(paths.Healthz, healthz(cfg))
	app.Get(paths.Readyz, readyz(cfg))
	app.Get(paths.Metrics, loopbackOnly(), cfg.Metrics.handler())
	app.Use("/static", staticCache(), filesystem.New(filesystem.Config{Root: http.FS(static.FS), MaxAge: 3600}))
}

// apiRoutes are the JSON API for other systems: a bearer key, no session,
// no CSRF; errors are JSON ({"error", "reason"}); described in
// openapi.json.
func apiRoutes(app *fiber.App, cfg Config, h apiEndpoints) {
	app.Get(paths.APIOpenAPI, serveOpenAPI)
	app.Use("/api/v1", apiHeaders(), deadline(cfg.RequestTimeout), h.keys.Require())
	app.Post(paths.APIDrops, h.drops.Create)
	app.Get(paths.APIDrops, h.drops.List)
	app.Get(paths.APIDropPattern, h.drops.Show)
	app.Post(paths.APIDropClosePattern, h.drops.Close)
	app.Post(paths.APIDropCancelPattern, h.drops.Cancel)
	app.Post(paths.APIDropClaimsPattern, h.drops.Claim)
	app.Get(paths.APIDropTicketsPattern, h.drops.Tickets)
	app.Get(paths.APIDropTicketPattern, h.drops.Ticket)
	app.Delete(paths.APIDropTicketPattern, h.drops.Release)
	app.Post(paths.APIWebhooks, h.webhooks.Create)
	app.Get(paths.APIWebhooks, h.webhooks.List)
	app.Delete(paths.APIWebhookPattern, h.webhooks.Delete)
	app.Post(paths.APIWebhookEnablePattern, h.deliveries.Enable)
	app.Get(paths.APIWebhookDeliveriesPattern, h.deliveries.List)
	app.Post(paths.APIWebhookResendPattern, h.deliveries.Resend)
}

// cardEventRoutes are the card providers' signed events: the signature,
// checked over the raw body first, is the check. The test provider's only
// in test mode.
func cardEventRoutes(app *fiber.App, cfg Config, h cardEventReceivers) {
	if h.test != nil {
		app.Post(paths.WebhookTest, deadline(cfg.RequestTimeout), h.test.Receive)
	}
	if h.stripe != nil {
		app.Post(paths.WebhookStripe, deadline(cfg.RequestTimeout), h.stripe.Receive)
	}
}

// mediaRoutes are the product pictures: names that change with their
// content, cached for a year; no session, no DynamoDB.
func mediaRoutes(app *fiber.App, cfg Config, h shopPages) {
	app.Get(paths.PhotoPattern, deadline(cfg.RequestTimeout), h.media.Photo)
	app.Get(paths.DrawnPicturePattern, h.media.Drawn)
	app.Use("/media", func(c *fiber.Ctx) error { return fiber.ErrNotFound })
}

// catalogueRoutes are the pages made from the shop window alone: a
// visitor's are kept a moment, and parts of everyone's (window_pages.go).
func catalogueRoutes(app *fiber.App, h shopPages) {
	kept := h.windowPages.handler
	app.Get(paths.Home, kept, h.catalogue.List)
	app.Get(paths.Catalogue, kept, h.catalogue.List)
	app.Get(paths.ProductPattern, kept, h.catalogue.Show)
	app.Get(paths.ProductStockPattern, kept, h.catalogue.Stock)
	app.Get(paths.Search, kept, h.search.Show)
}

func accountRoutes(app *fiber.App, h accountPages) {
	app.Get(paths.Signup, h.account.SignupForm)
	app.Post(paths.Signup, h.account.Signup)
	app.Get(paths.Login, h.account.LoginForm)
	app.Post(paths.Login, h.account.Login)
	app.Post(paths.Logout, h.account.Logout)
	// Mailed account links: a forgotten password, the email's confirmation.
	app.Get(paths.PasswordForgot, h.links.ForgotForm)
	app.Post(paths.PasswordForgot, h.links.Forgot)
	app.Get(paths.PasswordReset, h.links.ResetForm)
	app.Post(paths.PasswordReset, h.links.Reset)
	app.Get(paths.EmailVerify, h.links.VerifyForm)
	app.Post(paths.EmailVerify, h.links.Verify)
	app.Post(paths.AccountVerifyEmail, h.links.Resend)
	// The customer's name, password and saved addresses.
	app.Get(paths.Account, h.details.Show)
	app.Post(paths.AccountName, h.details.Rename)
	app.Post(paths.AccountPassword, h.details.ChangePassword)
	app.Post(paths.AccountAddresses, h.details.AddAddress)
	app.Get(paths.AccountAddressPattern, h.details.EditAddress)
	app.Post(paths.AccountAddressPattern, h.details.UpdateAddress)
	app.Post(paths.AccountAddressDefaultPattern, h.details.DefaultAddress)
	app.Post(paths.AccountAddressDeletePattern, h.details.DeleteAddress)
	// What the shop holds about the customer, and deleting the account.
	app.Get(paths.AccountData, h.privacy.Download)
	app.Get(paths.AccountDelete, h.privacy.DeleteForm)
	app.Post(paths.AccountDelete, h.privacy.Delete)
	// Where the customer is signed in, and signing the other places out.
	app.Get(paths.AccountSessions, h.sessions.List)
	app.Post(paths.AccountSessionsEndOthers, h.sessions.EndOthers)
	app.Post(paths.AccountSessionEndPattern, h.sessions.End)
}

// orderRoutes are the cart, the checkout and the customer's orders (a
// guest's through a signed link).
func orderRoutes(app *fiber.App, h shopPages) {
	app.Get(paths.Cart, h.cart.Show)
	app.Post(paths.CartItems, h.cart.Add)
	app.Post(paths.CartItemPattern, h.cart.Update)
	app.Post(paths.CartItemRemovePattern, h.cart.Remove)
	app.Post(paths.CartTicketRemovePattern, h.cart.RemoveTicket)
	app.Get(paths.Checkout, h.checkout.Show)
	app.Post(paths.Checkout, h.checkout.Place)
	app.Post(paths.CheckoutSummary, h.checkout.Summary)
	app.Get(paths.Orders, h.orders.List)
	app.Get(paths.OrderPattern, h.orders.Show)
	app.Get(paths.OrderCancelPattern, h.orders.ConfirmCancel)
	app.Get(paths.OrderInvoicePDFPattern, h.orders.InvoicePDF)
	app.Get(paths.OrderCreditNotePDFPattern, h.orders.CreditNotePDF)
	app.Post(paths.OrderCancelPattern, h.orders.Cancel)
	app.Get(paths.OrderPaymentPattern, h.orderPayment.Poll)
	app.Post(paths.OrderPayPattern, h.orderPayment.Pay)
	app.Post(paths.OrderReturnsPattern, h.orders.RequestReturn)
	app.Get(paths.OrderReturnSlipPattern, h.orders.ReturnSlip)
	app.Get(paths.GuestOrderPattern, h.guestOrders.Show)
}

// subscriptionRoutes are the customer's subscriptions and their receipts.
func subscriptionRoutes(app *fiber.App, h shopPages) {
	app.Get(paths.Subscriptions, h.subscriptions.List)
	app.Post(paths.Subscriptions, h.subscriptions.Subscribe)
	app.Get(paths.SubscribePreview, h.subscriptions.Preview)
	app.Post(paths.SubscriptionDayPattern, h.subscriptions.ChangeDay)
	app.Post(paths.SubscriptionPeriodPattern, h.subscriptions.ChangePeriod)
	app.Post(paths.SubscriptionCardPattern, h.subscriptions.ChangeCard)
	app.Post(paths.SubscriptionSkipPattern, h.subscriptions.Skip)
	app.Post(paths.SubscriptionPausePattern, h.subscriptions.Pause)
	app.Post(paths.SubscriptionResumePattern, h.subscriptions.Resume)
	app.Post(paths.SubscriptionCancelPattern, h.subscriptions.Cancel) // when=now|period_end
	app.Post(paths.SubscriptionKeepPattern, h.subscriptions.Keep)
	app.Get(paths.SubscriptionSwapPattern, h.subscriptions.SwapPreview)
	app.Post(paths.SubscriptionSwapPattern, h.subscriptions.Swap)
	app.Post(paths.SubscriptionPayPattern, h.subscriptions.Pay)
	app.Get(paths.Receipts, h.receipts.List)
	app.Get(paths.ReceiptPattern, h.receipts.Show)
	app.Get(paths.ReceiptPDFPattern, h.receipts.PDF)
	app.Get(paths.ReceiptCreditNotePDFPattern, h.receipts.CreditNotePDF)
}

// dropRoutes are limited drops: the list, a drop's page (its count is
// sessionless), the claim area htmx fetches at the opening, the claim,
// and the tickets.
func dropRoutes(app *fiber.App, h shopPages) {
	app.Get(paths.Drops, h.drops.List)
	app.Get(paths.DropPattern, h.drops.Show)
	app.Get(paths.DropClaimPattern, h.drops.ClaimArea)
	app.Post(paths.DropClaimPattern, h.drops.Claim)
	app.Get(paths.Tickets, h.drops.Tickets)
	app.Post(paths.TicketBuyPattern, h.drops.Buy)
}

// testPaymentRoutes are the test provider's hosted pages, in test mode: a
// session's card form and the bank's question, as a provider's own site
// would serve them (marked as a test on every page).
func testPaymentRoutes(app *fiber.App, h *handlers.TestPayments) {
	app.Get(paths.TestPaymentCheckoutPattern, h.Checkout)
	app.Post(paths.TestPaymentCheckoutPattern, h.Pay)
	app.Post(paths.TestPaymentCheckoutConfirmPattern, h.Confirm)
	app.Get(paths.TestPaymentConfirmPattern, h.Payment)
	app.Post(paths.TestPaymentConfirmPattern, h.AnswerPayment)
}

// adminCatalogueRoutes are the console's home, the billing figures, the
// warehouses, the products and the shipping zones.
func adminCatalogueRoutes(app *fiber.App, h consolePages) {
	app.Get(paths.Admin, h.dashboard.Home)
	app.Get(paths.AdminDashboardBlockPattern, h.dashboard.Block)
	app.Get(paths.AdminBilling, h.billing.Show)
	app.Get(paths.AdminWarehouses, h.warehouses.List)
	app.Get(paths.AdminWarehousePattern, h.warehouses.Show)
	app.Get(paths.AdminWarehouseShipmentsPattern, h.warehouses.Shipments)
	app.Get(paths.AdminWarehouseAdjustmentsPattern, h.warehouses.Adjustments)
	app.Post(paths.AdminWarehouseStockPattern, h.warehouses.Adjust)
	app.Get(paths.AdminProducts, h.products.List)
	app.Get(paths.AdminNewProduct, h.products.New)
	app.Post(paths.AdminProducts, h.products.Create)
	app.Get(paths.AdminProductPattern, h.products.Show)
	app.Post(paths.AdminProductPattern, h.products.Update)
	app.Post(paths.AdminProductLowStockPattern, h.products.LowStock)
	app.Post(paths.AdminProductPhotoPattern, h.products.UploadPhoto)
	app.Get(paths.AdminShipping, h.shipping.List)
	app.Post(paths.AdminShipping, h.shipping.Save)
	app.Get(paths.AdminShippingZonePattern, h.shipping.Edit)
	app.Post(paths.AdminShippingZonePattern, h.shipping.Save)
	app.Post(paths.AdminShippingZoneDeletePattern, h.shipping.Delete)
}

// adminOrderRoutes are orders, their refunds, shipments and returns, the
// packing queue and the invoices.
func adminOrderRoutes(app *fiber.App, h consolePages) {
	app.Get(paths.AdminOrders, h.orders.List)
	app.Get(paths.AdminOrdersCSVPattern, h.orders.CSV)
	app.Get(paths.AdminOrderPattern, h.orders.Show)
	app.Post(paths.AdminOrderShipmentsPattern, h.orders.CreateShipments)
	app.Post(paths.AdminOrderRefundsPattern, h.orders.Refund)
	app.Post(paths.AdminOrderRefundRetryPattern, h.orders.RetryCardRefund)
	app.Get(paths.AdminCreditNotePDFPattern, h.creditNotes.PDF)
	app.Post(paths.AdminOrderAllocatePattern, h.orders.Allocate)
	app.Post(paths.AdminOrderShipmentPattern, h.shipments.Change)
	app.Post(paths.AdminOrderShipmentUndoPattern, h.shipments.Undo)
	app.Get(paths.AdminPackingSlipPattern, h.shipments.Slip)
	app.Get(paths.AdminReturns, h.returns.List)
	app.Get(paths.AdminReturnPattern, h.returns.Show)
	app.Post(paths.AdminReturnReceivePattern, h.returns.Receive)
	app.Post(paths.AdminReturnInspectPattern, h.returns.Inspect)
	app.Post(paths.AdminReturnRefundPattern, h.returns.Refund)
	app.Get(paths.AdminInvoices, h.invoices.Lookup)
	app.Get(paths.AdminInvoicePattern, h.invoices.Show)
	app.Get(paths.AdminInvoicePDFPattern, h.invoices.PDF)
	app.Get(paths.AdminShipments, h.shipments.List)
	app.Post(paths.AdminShipmentsPack, h.toPack.Pack)
	app.Get(paths.AdminShipmentsPrint, h.toPack.Print)
	app.Post(paths.AdminShipmentsPrint, h.toPack.Print)
	app.Get(paths.AdminShipmentPattern, h.shipments.Show)
}

// adminCustomerRoutes are customers (roles and deactivation for owners
// only: the handlers check), subscriptions with their settings and
// prices, receipts, the seller's details and the codes.
func adminCustomerRoutes(app *fiber.App, h consolePages) {
	app.Get(paths.AdminCustomers, h.customers.List)
	app.Get(paths.AdminCustomerPattern, h.customers.Show)
	app.Post(paths.AdminCustomerRolePattern, h.customers.ChangeRole)
	app.Post(paths.AdminCustomerDeactivatePattern, h.customers.Deactivate)
	app.Post(paths.AdminCustomerReactivatePattern, h.customers.Reactivate)
	app.Get(paths.AdminSubscriptions, h.subscriptions.List)
	app.Get(paths.AdminDue, h.subscriptions.Due)
	app.Get(paths.AdminSubscriptionSettings, h.subscriptionSetting.Settings)
	app.Post(paths.AdminSubscriptionSettings, h.subscriptionSetting.SaveSettings)
	app.Get(paths.AdminPriceChanges, h.subscriptionSetting.Prices)
	app.Post(paths.AdminPriceChanges, h.subscriptionSetting.SchedulePrice)
	app.Get(paths.AdminCustomerReceiptPattern, h.receipts.Show)
	app.Get(paths.AdminReceiptPDFPattern, h.receipts.PDF)
	app.Get(paths.AdminReceiptCreditNotePDFPattern, h.receipts.CreditNotePDF)
	app.Post(paths.AdminReceiptRefundPattern, h.receipts.Refund)
	app.Get(paths.AdminSeller, h.seller.Show)
	app.Post(paths.AdminSeller, h.seller.Save)
	app.Get(paths.AdminGiftCards, h.codes.GiftCards)
	app.Post(paths.AdminGiftCards, h.codes.CreateGiftCard)
	app.Get(paths.AdminDiscounts, h.codes.Discounts)
	app.Post(paths.AdminDiscounts, h.codes.CreateDiscount)
}

// adminIntegrationRoutes are the API's keys and integrations, and the
// webhook endpoints: every endpoint (staff register theirs and delete
// any), and one endpoint with its deliveries, a resend, enabling it.
func adminIntegrationRoutes(app *fiber.App, h consolePages) {
	app.Get(paths.AdminAPIKeys, h.apiKeys.List)
	app.Post(paths.AdminAPIKeys, h.apiKeys.Create)
	app.Get(paths.AdminAPIKeyRevokePattern, h.apiKeys.ConfirmRevoke)
	app.Post(paths.AdminAPIKeyRevokePattern, h.apiKeys.Revoke)
	app.Get(paths.AdminAPIKeyRotatePattern, h.apiKeys.ConfirmRotate)
	app.Post(paths.AdminAPIKeyRotatePattern, h.apiKeys.Rotate)
	app.Post(paths.AdminIntegrationKeysPattern, h.apiKeys.Issue)
	app.Get(paths.AdminIntegrationRevokePattern, h.apiKeys.ConfirmRevokeIntegration)
	app.Post(paths.AdminIntegrationRevokePattern, h.apiKeys.RevokeIntegration)
	app.Get(paths.AdminWebhooks, h.webhooks.List)
	app.Post(paths.AdminWebhooks, h.webhooks.Create)
	app.Get(paths.AdminWebhookDeletePattern, h.webhooks.ConfirmDelete)
	app.Post(paths.AdminWebhookDeletePattern, h.webhooks.Delete)
	app.Get(paths.AdminWebhookPattern, h.webhook.Show)
	app.Post(paths.AdminWebhookEnablePattern, h.webhook.Enable)
	app.Post(paths.AdminWebhookResendPattern, h.webhook.Resend)
}

// adminDropRoutes are limited drops for staff.
func adminDropRoutes(app *fiber.App, h consolePages) {
	app.Get(paths.AdminDrops, h.drops.List)
	app.Post(paths.AdminDrops, h.drops.Create)
	app.Get(paths.AdminDropPattern, h.drops.Show)
	app.Get(paths.AdminDropLivePattern, h.drops.Live)
	app.Get(paths.AdminDropTicketsCSVPattern, h.drops.CSV)
	app.Post(paths.AdminDropClosePattern, h.drops.Close)
	app.Get(paths.AdminDropTicketReleasePattern, h.drops.ConfirmRelease)
	app.Post(paths.AdminDropTicketReleasePattern, h.drops.Release)
	app.Post(paths.AdminDropCancelPattern, h.drops.Cancel)
	app.Post(paths.AdminDropDescriptionPattern, h.drops.Describe)
	app.Post(paths.AdminDropPhotoPattern, h.drops.UploadPhoto)
}

// adminJobRoutes are the billing jobs, the mail they send (the outbox)
// and the archive of the books.
func adminJobRoutes(app *fiber.App, h consolePages) {
	app.Get(paths.AdminJobs, h.jobs.List)
	app.Post(paths.AdminJobRunNowPattern, h.jobs.RunNow)
	app.Get(paths.AdminJobRunsPattern, h.jobs.Runs)
	app.Get(paths.AdminJobRunPattern, h.jobs.Show)
	app.Get(paths.AdminJobRunProgressPattern, h.jobs.Progress)
	app.Get(paths.AdminOutbox, h.outbox.List)
	app.Get(paths.AdminMailPattern, h.outbox.Show)
	app.Get(paths.AdminArchive, h.archive.Show)
	app.Post(paths.AdminArchiveRun, h.archive.RunNow)
	app.Get(paths.AdminArchiveFilePattern, h.archive.Download)
}
