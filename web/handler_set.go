package web

import (
	"context"
	"errors"
	"time"

	"shop/handlers"
	"shop/jobs/webhook"
	"shop/store"
	"shop/store/archive"
	"shop/store/dropgate"
	"shop/store/payment"
	"shop/views/mail"
)

// handlerSet is every handler of the app, built once by newHandlers over
// the Config and handed to the routes (routes.go) by area. Building them
// touches nothing outside the app; start connects them to the world.
type handlerSet struct {
	shop       shopPages
	account    accountPages
	console    consolePages
	api        apiEndpoints
	cardEvents cardEventReceivers
	// ownGate: the Config named no drop gate, New made this one and
	// refreshes it for as long as the app lives.
	ownGate bool
}

// shopPages are the storefront's pages and the customer's orders,
// subscriptions, receipts and drops.
type shopPages struct {
	catalogue     *handlers.Catalogue
	search        *handlers.Search
	cart          *handlers.Cart
	checkout      *handlers.Checkout
	orders        *handlers.Orders
	orderPayment  *handlers.OrderPayment
	guestOrders   *handlers.GuestOrders
	subscriptions *handlers.Subscriptions
	receipts      *handlers.Receipts
	drops         *handlers.Drops
	media         *handlers.Media
	// windowPages keeps the catalogue, search and product pages as
	// sessionless visitors see them, and parts of them for everyone
	// (nil: never).
	windowPages *windowPages
	// testPayments are the test provider's hosted pages: nil but in test
	// mode, and then not routed.
	testPayments *handlers.TestPayments
}

// accountPages are signing up and in, the mailed account links, and the
// customer's details, privacy and sessions.
type accountPages struct {
	account  *handlers.Account
	links    *handlers.AccountLinks
	details  *handlers.AccountDetails
	privacy  *handlers.AccountPrivacy
	sessions *handlers.AccountSessions
}

// consolePages are the staff console's, under /admin.
type consolePages struct {
	dashboard           *handlers.AdminDashboard
	billing             *handlers.AdminBilling
	warehouses          *handlers.AdminWarehouses
	products            *handlers.AdminProducts
	shipping            *handlers.AdminShipping
	orders              *handlers.AdminOrders
	creditNotes         *handlers.AdminCreditNotes
	shipments           *handlers.AdminShipments
	toPack              *handlers.AdminToPack
	returns             *handlers.AdminReturns
	invoices            *handlers.AdminInvoices
	customers           *handlers.AdminCustomers
	receipts            *handlers.AdminReceipts
	subscriptions       *handlers.AdminSubscriptions
	subscriptionSetting *handlers.AdminSubscriptionSettings
	seller              *handlers.AdminSeller
	codes               *handlers.AdminCodes
	apiKeys             *handlers.AdminAPIKeys
	webhooks            *handlers.AdminWebhooks
	webhook             *handlers.AdminWebhook
	drops               *handlers.AdminDrops
	jobs                *handlers.AdminJobs
	outbox              *handlers.AdminOutbox
	archive             *handlers.AdminArchive
}

// apiEndpoints are the JSON API for other systems, its key cache and the
// webhooks' deliverer, which runs on every replica, jobs or not.
type apiEndpoints struct {
	keys       *handlers.APIKeys
	deliverer  *webhook.Deliverer
	notices    *handlers.DropNotices
	drops      *handlers.APIDrops
	webhooks   *handlers.APIWebhooks
	deliveries *handlers.APIWebhookDeliveries
}

// cardEventReceivers take the card providers' signed events: the test
// provider's in test mode, Stripe's with Stripe; nil when not routed.
type cardEventReceivers struct {
	test, stripe *handlers.Webhook
}

// subscribeFactsKeep is how long a replica keeps a customer's subscribe
// form's reads under one save of their session: what others change shows
// within it; the customer's own changes at once.
const subscribeFactsKeep = 10 * time.Second

// newHandlers fills in the Config's defaults for the card payments, the
// mail links, the refunds and the drop gate, and builds every handler.
func newHandlers(cfg *Config) (*handlerSet, error) {
	account, err := handlers.NewAccount(cfg.Store, cfg.BcryptCost, cfg.Log)
	if err != nil {
		return nil, err
	}
	account.SecureCookies = cfg.SecureCookies
	returnBase := cfg.BaseURL // where a provider's page sends the customer back; "" is the request's own
	if cfg.BaseURL == "" {
		cfg.BaseURL = "http://localhost"
	}
	mails := mail.Links{BaseURL: cfg.BaseURL}
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
	mails.GuestOrderLink = signer.GuestOrderLink
	if cfg.Settler.Mail.GuestOrderLink == nil {
		cfg.Settler.Mail.GuestOrderLink = signer.GuestOrderLink
	}
	links := &handlers.AccountLinks{Store: cfg.Store, Signer: signer, Mail: mails, BcryptCost: cfg.BcryptCost, Log: cfg.Log}
	account.VerifyMail = links.VerifyMail
	if cfg.Refunds == nil {
		cfg.Refunds = defaultRefunds(*cfg)
	}
	h := &handlerSet{}
	if cfg.Gate == nil {
		cfg.Gate = dropgate.New(cfg.Store, nil)
		// A claim waits for a place as long as its request may.
		cfg.Gate.MaxWait = cfg.RequestTimeout
		h.ownGate = true
	}
	if h.cardEvents, err = newCardEventReceivers(*cfg); err != nil {
		return nil, err
	}
	h.account = accountPages{account: account, links: links,
		details:  &handlers.AccountDetails{Store: cfg.Store, BcryptCost: cfg.BcryptCost},
		privacy:  &handlers.AccountPrivacy{Store: cfg.Store},
		sessions: &handlers.AccountSessions{Store: cfg.Store}}
	h.shop = newShopPages(*cfg, pages, mails, signer)
	h.api = newAPIEndpoints(*cfg)
	h.console = newConsolePages(*cfg, mails, h.api)
	return h, nil
}

// refundMail is the mail of a subscription receipt's refund, for the
// customer's and staff's refunds alike.
func refundMail(cfg Config) func(store.Receipt) *store.Mail {
	return func(r store.Receipt) *store.Mail { return mail.ReceiptRefund(cfg.BaseURL, cfg.Store.Now(), r) }
}

func newShopPages(cfg Config, pages *handlers.PaymentPages, mails mail.Links, signer handlers.LinkSigner) shopPages {
	orderPayment := &handlers.OrderPayment{Store: cfg.Store, Pages: pages, Log: cfg.Log, Held: cfg.Settler}
	s := shopPages{
		catalogue:    &handlers.Catalogue{Window: cfg.Store.Window(), Store: cfg.Store, CardProvider: cfg.SubscriptionPayments.ActiveProvider()},
		search:       &handlers.Search{Window: cfg.Store.Window()},
		cart:         &handlers.Cart{Store: cfg.Store},
		checkout:     &handlers.Checkout{Store: cfg.Store, Pages: pages, Hold: cfg.PaymentHold, Log: cfg.Log, Confirmation: mails.OrderPlaced, Guests: cfg.Store},
		guestOrders:  &handlers.GuestOrders{Store: cfg.Store, Signer: signer},
		orderPayment: orderPayment,
		orders:       &handlers.Orders{Store: cfg.Store, Refunds: cfg.Refunds, Payment: orderPayment},
		subscriptions: &handlers.Subscriptions{Store: cfg.Store, Window: cfg.Store.Window(), Refunder: cfg.Refunds, Mail: refundMail(cfg),
			Payer: cfg.SubscriptionPayments, Charger: cfg.SubscriptionPayments},
		receipts: &handlers.Receipts{Store: cfg.Store},
		drops:    &handlers.Drops{Store: cfg.Store, Window: cfg.Store.Window(), Gate: cfg.Gate},
		media:    &handlers.Media{Shelf: cfg.Shelf},
	}
	if cfg.SessionCache > 0 { // sessions cached: the subscribe form's reads too (subscribe_facts.go)
		s.catalogue.Facts = handlers.NewSubscribeFacts(max(cfg.SessionCache, subscribeFactsKeep))
	}
	if cfg.WindowPages > 0 {
		s.windowPages = newWindowPages(cfg.Store.Window(), cfg.WindowPages, cfg.Metrics)
	}
	if testMode(cfg) {
		s.testPayments = &handlers.TestPayments{Provider: cfg.TestPayments}
	}
	return s
}

// testMode: the test provider takes the cards, not only their refunds
// (as in Stripe's mode), so its pages and webhook are served.
func testMode(cfg Config) bool { return cfg.TestPayments != nil && !cfg.TestPayments.RefundsOnly }

// newCardEventReceivers are the active card provider's webhook: the test
// provider's in test mode, Stripe's with Stripe (its Stripe-Signature
// header).
func newCardEventReceivers(cfg Config) (cardEventReceivers, error) {
	var r cardEventReceivers
	if testMode(cfg) {
		if cfg.PaymentEvents == nil {
			return r, errors.New("web: test payments need PaymentEvents to apply their webhook's events")
		}
		r.test = &handlers.Webhook{Provider: cfg.TestPayments, Header: payment.TestSignatureHeader, Events: cfg.PaymentEvents, Log: cfg.Log}
	}
	if pr := cfg.Payments.Active(); pr != nil && pr.Name() == payment.ProviderStripe {
		r.stripe = &handlers.Webhook{Provider: pr, Header: "Stripe-Signature", Events: cfg.PaymentEvents, Log: cfg.Log}
	}
	return r, nil
}

// newAPIEndpoints builds the API: a bearer key checked against a copy of
// the keys reloaded every few seconds, and the deliverer of the webhooks'
// events, woken by the endpoints that write one.
func newAPIEndpoints(cfg Config) apiEndpoints {
	keys := handlers.NewAPIKeys(cfg.Store, cfg.APIKeysEvery, cfg.Log)
	hooks := webhook.New(cfg.Store, webhook.Config{Client: webhook.NewClient(cfg.Webhooks.Client),
		Jitter: cfg.Webhooks.Jitter, Active: keys.AnyWebhooks, StaffMail: cfg.Webhooks.StaffMail, Log: cfg.Log})
	notices := &handlers.DropNotices{Store: cfg.Store, Hooks: keys, Wake: hooks.Wake, Log: cfg.Log}
	return apiEndpoints{keys: keys, deliverer: hooks, notices: notices,
		drops:      &handlers.APIDrops{Store: cfg.Store, Gate: cfg.Gate, Hooks: keys, Wake: hooks.Wake, Notice: notices.Notice},
		webhooks:   &handlers.APIWebhooks{Store: cfg.Store, Keys: keys, AllowPrivate: cfg.Webhooks.Client.AllowPrivate},
		deliveries: &handlers.APIWebhookDeliveries{Store: cfg.Store, Keys: keys, Wake: hooks.Wake},
	}
}

// newConsolePages builds the staff console. The pages whose changes write
// webhook events (drops, endpoints) announce them through the API's key
// cache and wake its deliverer.
func newConsolePages(cfg Config, mails mail.Links, api apiEndpoints) consolePages {
	toPack := &handlers.AdminToPack{Store: cfg.Store}
	books := cfg.Archive
	if books == nil {
		books = &archive.Archiver{Store: cfg.Store, Shelf: archive.Nowhere{}, Sections: archive.Sections(cfg.Store)}
	}
	return consolePages{
		dashboard:  &handlers.AdminDashboard{Store: cfg.Store},
		billing:    &handlers.AdminBilling{Store: cfg.Store},
		warehouses: &handlers.AdminWarehouses{Store: cfg.Store},
		products:   &handlers.AdminProducts{Store: cfg.Store, Shelf: cfg.Shelf, Finder: cfg.Store.Window()},
		shipping:   &handlers.AdminShipping{Store: cfg.Store},
		orders: &handlers.AdminOrders{Store: cfg.Store, Products: cfg.Store.Window(), Log: cfg.Log, Refunds: cfg.Refunds,
			StripeDashboard: cfg.StripeDashboard},
		creditNotes:         &handlers.AdminCreditNotes{Store: cfg.Store},
		toPack:              toPack,
		shipments:           &handlers.AdminShipments{Store: cfg.Store, Mail: mails.ShipmentStep, Queue: toPack},
		returns:             &handlers.AdminReturns{Store: cfg.Store, Refunds: cfg.Refunds},
		invoices:            &handlers.AdminInvoices{Store: cfg.Store},
		customers:           &handlers.AdminCustomers{Store: cfg.Store},
		receipts:            &handlers.AdminReceipts{Store: cfg.Store, Refunder: cfg.Refunds, Mail: refundMail(cfg)},
		subscriptions:       &handlers.AdminSubscriptions{Store: cfg.Store},
		subscriptionSetting: &handlers.AdminSubscriptionSettings{Store: cfg.Store},
		seller:              &handlers.AdminSeller{Store: cfg.Store},
		codes:               &handlers.AdminCodes{Store: cfg.Store},
		apiKeys:             &handlers.AdminAPIKeys{Store: cfg.Store},
		webhooks:            &handlers.AdminWebhooks{Store: cfg.Store, Keys: api.keys, AllowPrivate: cfg.Webhooks.Client.AllowPrivate},
		webhook:             &handlers.AdminWebhook{Store: cfg.Store, Reload: api.keys.Load, Wake: api.deliverer.Wake, Log: cfg.Log},
		drops: &handlers.AdminDrops{Store: cfg.Store, Gate: cfg.Gate, Log: cfg.Log, Shelf: cfg.Shelf, Catalogue: cfg.Store.Window(),
			Hooks: api.keys, Wake: api.deliverer.Wake},
		jobs:    &handlers.AdminJobs{Store: cfg.Store, Jobs: cfg.Jobs},
		outbox:  &handlers.AdminOutbox{Store: cfg.Store, Kept: cfg.MailKeptInOutbox},
		archive: &handlers.AdminArchive{Store: cfg.Store, Archive: books, Jobs: cfg.Jobs, Where: cfg.ArchiveWhere, Log: cfg.Log},
	}
}

// start connects the handlers to the world outside their requests, until
// bg ends: the drop gate's refresher (when New made the gate), the API's
// key cache and the webhooks' deliverer run; the store announces the
// shop's own events (orders, subscriptions, written wherever they happen,
// jobs included) and the gate its drops' (sold out, closed by time) to
// the endpoints this replica's key cache knows.
func (h *handlerSet) start(bg context.Context, cfg Config) {
	if h.ownGate {
		go cfg.Gate.Run(bg, time.Second)
	}
	go h.api.keys.Run(bg)
	if cfg.Webhooks.Deliverer != nil {
		*cfg.Webhooks.Deliverer = h.api.deliverer
	}
	go h.api.deliverer.Run(bg, cfg.Webhooks.Every)
	cfg.Store.AnnounceShopEvents(store.ShopHooks{Subscribed: h.api.keys.Subscribed, Wake: h.api.deliverer.Wake})
	cfg.Gate.OnNotice(h.api.notices.Notice)
}
