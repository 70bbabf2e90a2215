package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers"
	"shop/jobs"
	"shop/jobs/webhook"
	"shop/store"
	"shop/store/archive"
	"shop/store/demo"
	"shop/store/dynamolocal"
	"shop/store/payment"
	"shop/web"
)

// engine is what openStore connected to: its health, which every request
// of the store goes through, and for the shop's own DynamoDB Local while
// serving, the watcher that restarts it.
type engine struct {
	health *store.Health
	// lost receives why the watcher gave up restarting the shop's own
	// engine; nothing ever comes for an engine elsewhere.
	lost    <-chan error
	watcher *dynamolocal.Watcher
	stop    func()
}

// openStore connects to the configured engine, starting DynamoDB Local under
// the data dir when none is configured; serving, it watches that engine.
func openStore(ctx context.Context, cfg config, serving bool, log *slog.Logger, obs store.Observer) (*store.Store, *engine, error) {
	eng := &engine{health: store.NewHealth(store.Breaker{Log: log}), lost: make(chan error), stop: func() {}}
	endpoint, err := eng.open(ctx, cfg, serving, log)
	if err != nil {
		return nil, nil, err
	}
	st, err := newStore(ctx, cfg, endpoint, eng.health, obs)
	if err != nil {
		eng.stop()
		return nil, nil, err
	}
	return st, eng, nil
}

// open finds the engine to use and returns its endpoint ("" for AWS): the
// configured one, else the one a shop serving from this data dir runs,
// else DynamoDB Local started under the data dir.
func (eng *engine) open(ctx context.Context, cfg config, serving bool, log *slog.Logger) (string, error) {
	endpoint := cfg.endpoint
	endpointFile := filepath.Join(cfg.dataDir, "dynamodb-endpoint")
	if endpoint == "" {
		// A shop serving from this data dir runs its DynamoDB Local: use that
		// engine rather than start a second one on the same files.
		if running := dynamolocal.Running(endpointFile); running != "" {
			if serving {
				return "", fmt.Errorf("a shop is already serving from %s (its DynamoDB Local answers at %s)", cfg.dataDir, running)
			}
			log.Info("using the running shop's DynamoDB Local", "endpoint", running)
			endpoint = running
		}
	}
	switch endpoint {
	case "aws":
		return "", nil
	case "":
		return eng.start(ctx, cfg, endpointFile, serving, log)
	}
	return endpoint, nil
}

// start starts the shop's own DynamoDB Local under the data dir; serving,
// the engine is watched (restarted on the same port, so the store's client
// keeps its endpoint; while it is down, requests fail at once).
func (eng *engine) start(ctx context.Context, cfg config, endpointFile string, serving bool, log *slog.Logger) (string, error) {
	started := time.Now()
	data := filepath.Join(cfg.dataDir, "dynamodb")
	local, err := dynamolocal.Start(ctx, dynamolocal.Options{DataDir: data, Log: engineLog(log)})
	if err != nil {
		return "", err
	}
	log.Info("DynamoDB Local started", "endpoint", local.Endpoint, "data", data, "took", time.Since(started).Round(time.Millisecond))
	if !serving {
		eng.stop = func() {
			_ = local.Stop() // a command's engine: its data is written as it goes
			log.Info("DynamoDB Local stopped")
		}
		return local.Endpoint, nil
	}
	served, err := dynamolocal.Serve(ctx, local, endpointFile, dynamolocal.WatchOptions{
		Log: log, Down: eng.health.EngineDown, Up: eng.health.EngineUp,
	})
	if err != nil {
		return "", err
	}
	eng.watcher, eng.lost = served.Watcher, served.Lost
	eng.stop = func() {
		began := time.Now()
		_ = served.Stop() // as a command's: nothing more to do about it
		log.Info("DynamoDB Local stopped", "took", time.Since(began).Round(time.Millisecond))
	}
	return local.Endpoint, nil
}

// newStore is the store on the engine at endpoint, with the shop's settings.
func newStore(ctx context.Context, cfg config, endpoint string, health *store.Health, obs store.Observer) (*store.Store, error) {
	client, err := store.NewClient(ctx, store.ClientConfig{Endpoint: endpoint, Health: health}, obs)
	if err != nil {
		return nil, err
	}
	opts, err := storeOptions(cfg)
	if err != nil {
		return nil, err
	}
	return store.New(client, cfg.table, opts...), nil
}

// storeOptions are the store's settings from the configuration.
func storeOptions(cfg config) ([]store.Option, error) {
	loc, err := time.LoadLocation(cfg.tz)
	if err != nil {
		return nil, err
	}
	// Both were checked when the flags were read.
	series, err := store.ParseBookSeries(cfg.invoiceSeries)
	if err != nil {
		return nil, err
	}
	vat, err := store.ParseVATRates(cfg.vatRates)
	if err != nil {
		return nil, err
	}
	opts := []store.Option{store.WithTimeZone(loc), store.WithReminderLead(cfg.reminderDays),
		store.WithReturnDays(cfg.returnDays),
		store.WithDropMaxDays(cfg.dropMaxDays),
		store.WithBillingShards(cfg.billingShards), store.WithListShards(cfg.listShards),
		store.WithBookSeries(series), store.WithVATRates(vat), store.WithCurrency(cfg.currency)}
	if cfg.endpoint == "aws" {
		opts = append(opts, store.OnAmazonDynamoDB())
	}
	return opts, nil
}

func engineLog(log *slog.Logger) io.Writer {
	if log.Enabled(context.Background(), slog.LevelDebug) {
		return os.Stderr
	}
	return io.Discard
}

// serve runs the shop; pay nil: the payment settings are read here (the
// runner then settles no held orders: tests that start serve themselves).
func serve(ctx context.Context, cfg config, st *store.Store, eng *engine, gateway *payment.TestGateway, pay *payments, runner *jobs.Runner, delivery jobs.DeliveryConfig, log *slog.Logger, metrics *web.Metrics) error {
	if pay == nil {
		var err error
		if pay, err = setUpPayments(ctx, st, cfg.mailBaseURL(), cfg.demo, log); err != nil {
			return err
		}
	}
	if cfg.demo {
		if st.Currency() != store.DefaultCurrency {
			return fmt.Errorf("the demo shop is priced in %s: start it with SHOP_CURRENCY=%s, or without demo data (-demo=false)", store.DefaultCurrency, store.DefaultCurrency)
		}
		loaded, err := demo.LoadShop(ctx, st, cfg.bcryptCost)
		if err != nil {
			return fmt.Errorf("demo data: %w", err)
		}
		if loaded {
			log.Info("demo data loaded")
		}
	}
	keys, err := sessionKeys(cfg)
	if err != nil {
		return err
	}
	// The settler mails guests' orders with their signed link; set before
	// any job runs it.
	signer, err := handlers.NewLinkSigner(keys)
	if err != nil {
		return err
	}
	pay.settler.Mail.GuestOrderLink = signer.GuestOrderLink
	var proxies []string
	for _, p := range strings.Split(cfg.proxies, ",") {
		if p = strings.TrimSpace(p); p != "" {
			proxies = append(proxies, p)
		}
	}
	// The scheduler exists before the app: the staff console's "Run now"
	// uses it. A nil one (SHOP_JOBS=false) makes the console say so.
	books, _ := runner.Config().Archive.(*archive.Archiver) // nil: the console shows the records only
	var scheduler handlers.JobScheduler
	var sched *jobs.Scheduler
	mailDone := make(chan struct{})
	stopMail := func() {}
	if !cfg.jobsOn {
		close(mailDone)
	}
	if cfg.jobsOn {
		loc, _ := time.LoadLocation(cfg.tz)
		sched, err = jobs.NewScheduler(runner, st, loc, jobs.Schedules{Reminders: cfg.remindersCron, Payments: cfg.paymentsCron, Archive: cfg.archiveCron, CardRefunds: cfg.cardRefundsCron,
			TicketStock: cfg.ticketStockCron}, log)
		if err != nil {
			return err
		}
		if err := pay.deliverTestEvents(sched, st, cfg.addr, log); err != nil {
			return err
		}
		sched.Start()
		// On an early return; the shutdown below stops it first, within
		// its deadline, and this then does nothing.
		defer func() {
			if err := sched.Stop(); err != nil {
				log.Error("stop the scheduler", "err", err)
			}
		}()
		scheduler = sched
		if books != nil {
			// A month that closed while no replica ran (or a new shop's
			// demo months) is archived at start, not on tomorrow's tick.
			if err := sched.RunAtStartUp(jobs.JobArchive, st.Today()); err != nil {
				log.Info("archive at start", "why not", err)
			}
		}
		log.Info("billing jobs scheduled", "reminders", cfg.remindersCron, "payments", cfg.paymentsCron, "archive", cfg.archiveCron, "card refunds", cfg.cardRefundsCron,
			"ticket stock", cfg.ticketStockCron, "tz", cfg.tz)

		// Mail leaves the outbox by SMTP, or stays there (the admin shows it).
		delivery.Attach = handlers.MailAttachment(st) // invoices and receipts as PDF, rendered as each mail goes
		deliverer, err := jobs.NewDeliverer(st, delivery)
		if err != nil {
			return err
		}
		var mailCtx context.Context
		mailCtx, stopMail = context.WithCancel(context.WithoutCancel(ctx))
		defer stopMail()
		go func() {
			defer close(mailDone)
			deliverer.Run(mailCtx, time.Minute)
		}()
		if delivery.SMTP != nil {
			log.Info("mail goes out by SMTP", "server", delivery.SMTP.String())
		} else {
			log.Info("no SHOP_SMTP_URL: mail stays in the outbox (/admin/outbox)")
		}
	}
	shelf, err := photoShelf(ctx, cfg, log)
	if err != nil {
		return err
	}
	var shuttingDown atomic.Bool
	app, err := web.New(web.Config{
		Store: st, LegacyGateway: gateway, Log: log, Metrics: metrics, SessionKeys: keys,
		SecureCookies: cfg.secure, BcryptCost: cfg.bcryptCost, ShuttingDown: &shuttingDown,
		ProxyHeader: cfg.proxyHeader, TrustedProxies: proxies, Replica: cfg.replica, Jobs: scheduler, Health: eng.health,
		Shelf: shelf, BaseURL: cfg.mailBaseURL(), Archive: books, ArchiveWhere: archiveWhere(cfg),
		Payments: pay.providers, PaymentHold: pay.hold, Settler: pay.settler, SubscriptionPayments: pay.subscriptions,
		Refunds: payment.NewCardRefunds(pay.providers, gateway), StripeDashboard: pay.dashboard,
		MailKeptInOutbox: cfg.smtpURL == "",
		Webhooks:         web.WebhookConfig{Client: webhook.ClientConfig{AllowPrivate: cfg.hooksPrivate}, StaffMail: cfg.staffAddress()},
	})
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- app.Listen(cfg.addr) }()

	fmt.Printf("\n  The shop is open at http://%s\n", cfg.addr)
	if cfg.demo {
		fmt.Printf("  Staff:    %s / %s\n  Customer: %s / %s\n", demo.StaffEmail, demo.StaffPassword, demo.CustomerEmail, demo.CustomerPassword)
	}
	fmt.Printf("  Ctrl-C stops it.\n\n")

	var lost error
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		log.Info("shutting down", "why", context.Cause(ctx), "timeout", cfg.shutdownTimeout, "drain", cfg.shutdownDrain)
	case lost = <-eng.lost:
		// Exit non-zero, for the supervisor to start the shop afresh.
		log.Error("DynamoDB Local cannot be restarted: the shop stops", "err", lost)
	}
	err = shutDown(&shuttingDown, app, sched, stopMail, mailDone, cfg.shutdownTimeout, cfg.shutdownDrain, log)
	if lost != nil {
		return lost
	}
	return err
}

// shutDown stops a serving replica within timeout: /healthz says 503 at
// once and, after drain, the listener closes while in-flight requests are
// answered; meanwhile the scheduler starts no run, and the runs going stop
// between two subscriptions and give their leases back, and mail delivery
// stops between two mails and gives its lease back. The caller then stops
// the engine. An error means something was still going at the deadline.
func shutDown(shuttingDown *atomic.Bool, app *fiber.App, sched *jobs.Scheduler, stopMail func(), mailDone <-chan struct{}, timeout, drain time.Duration, log *slog.Logger) error {
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	shuttingDown.Store(true)
	// The jobs stop alongside the requests, not after them: both share
	// the one deadline.
	jobsDone := make(chan error, 1)
	go func() {
		if sched == nil {
			jobsDone <- nil
			return
		}
		jobsDone <- sched.Shutdown(ctx)
	}()
	stopMail()

	select {
	case <-time.After(drain):
	case <-ctx.Done():
	}
	if drain > 0 {
		log.Info("shutdown: drained, /healthz said 503", "took", time.Since(start).Round(time.Millisecond))
	}
	step := time.Now()
	var errs []error
	if err := app.ShutdownWithContext(ctx); err != nil {
		errs = append(errs, fmt.Errorf("requests still in flight at the deadline: %w", err))
	} else {
		log.Info("shutdown: stopped taking connections, requests in flight answered", "took", time.Since(step).Round(time.Millisecond))
	}

	if err := <-jobsDone; err != nil {
		errs = append(errs, err)
	}
	select {
	case <-mailDone:
		if sched != nil { // no scheduler, no deliverer
			log.Info("shutdown: mail delivery stopped", "took", time.Since(start).Round(time.Millisecond))
		}
	case <-ctx.Done():
		errs = append(errs, errors.New("mail delivery still sending at the deadline"))
	}
	err := errors.Join(errs...)
	if err != nil {
		log.Error("shutdown: not clean", "took", time.Since(start).Round(time.Millisecond), "err", err)
		return err
	}
	log.Info("shutdown: requests answered, runs stopped, leases given back", "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// sessionKeys reads SHOP_SESSION_KEYS, or the key generated and kept under
// the data dir on first start.
func sessionKeys(cfg config) ([][]byte, error) {
	raw := cfg.sessionKeys
	if raw == "" {
		path := filepath.Join(cfg.dataDir, "session-keys")
		b, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			var k [64]byte
			if _, err := rand.Read(k[:]); err != nil {
				return nil, err
			}
			b = []byte(hex.EncodeToString(k[:]))
			if err := os.MkdirAll(cfg.dataDir, 0o700); err != nil {
				return nil, err
			}
			if err := os.WriteFile(path, b, 0o600); err != nil {
				return nil, fmt.Errorf("keep session key: %w", err)
			}
		case err != nil:
			return nil, err
		}
		raw = string(b)
	}
	var keys [][]byte
	for i, s := range strings.Split(raw, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		k, err := hex.DecodeString(s)
		if err != nil {
			if k, err = base64.StdEncoding.DecodeString(s); err != nil {
				return nil, fmt.Errorf("session key %d is neither hex nor base64", i+1)
			}
		}
		if len(k) < 32 {
			return nil, fmt.Errorf("session key %d is %d bytes, need at least 32", i+1, len(k))
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, errors.New("no session key")
	}
	return keys, nil
}
