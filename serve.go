package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
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
	"shop/store/payment"
	"shop/web"
)

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
		if err := loadDemo(ctx, st, cfg.bcryptCost, log); err != nil {
			return err
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
	// The scheduler exists before the app: the staff console's "Run now"
	// uses it.
	books, _ := runner.Config().Archive.(*archive.Archiver) // nil: the console shows the records only
	bg, err := startBackground(ctx, cfg, st, runner, pay, books, delivery, log)
	if err != nil {
		return err
	}
	defer bg.stop(log)
	shelf, err := photoShelf(ctx, cfg, log)
	if err != nil {
		return err
	}
	var shuttingDown atomic.Bool
	app, err := web.New(web.Config{
		Store: st, LegacyGateway: gateway, Log: log, RequestLog: logOutput, Metrics: metrics, SessionKeys: keys,
		SecureCookies: cfg.secure, BcryptCost: cfg.bcryptCost, ShuttingDown: &shuttingDown,
		ProxyHeader: cfg.proxyHeader, TrustedProxies: trustedProxies(cfg.proxies), Replica: cfg.replica, Jobs: bg.scheduler(), Health: eng.health,
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
	greet(cfg)

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
	err = shutDown(&shuttingDown, app, bg.sched, bg.stopMail, bg.mailDone, cfg.shutdownTimeout, cfg.shutdownDrain, log)
	if lost != nil {
		return lost
	}
	return err
}

// loadDemo loads the demo shop on a table that has not had it.
func loadDemo(ctx context.Context, st *store.Store, bcryptCost int, log *slog.Logger) error {
	if st.Currency() != store.DefaultCurrency {
		return fmt.Errorf("the demo shop is priced in %s: start it with SHOP_CURRENCY=%s, or without demo data (-demo=false)", store.DefaultCurrency, store.DefaultCurrency)
	}
	loaded, err := demo.LoadShop(ctx, st, bcryptCost)
	if err != nil {
		return fmt.Errorf("demo data: %w", err)
	}
	if loaded {
		log.Info("demo data loaded")
	}
	return nil
}

// trustedProxies reads SHOP_TRUSTED_PROXIES, a comma-separated list.
func trustedProxies(list string) []string {
	var proxies []string
	for _, p := range strings.Split(list, ",") {
		if p = strings.TrimSpace(p); p != "" {
			proxies = append(proxies, p)
		}
	}
	return proxies
}

// greet tells whoever started the shop where it is open, and with the
// demo data, how to sign in.
func greet(cfg config) {
	fmt.Printf("\n  The shop is open at http://%s\n", cfg.addr)
	if cfg.demo {
		fmt.Printf("  Staff:    %s / %s\n  Customer: %s / %s\n", demo.StaffEmail, demo.StaffPassword, demo.CustomerEmail, demo.CustomerPassword)
	}
	fmt.Printf("  Ctrl-C stops it.\n\n")
}

// background is what a serving replica runs beside its requests: the
// billing jobs' scheduler and the mail deliverer (neither with
// SHOP_JOBS=false).
type background struct {
	sched    *jobs.Scheduler // nil with SHOP_JOBS=false
	stopMail func()
	mailDone chan struct{}
}

// scheduler is the scheduler for the staff console: a nil one makes the
// console say the jobs do not run here.
func (bg *background) scheduler() handlers.JobScheduler {
	if bg.sched == nil {
		return nil // not a typed nil: the console asks for nil
	}
	return bg.sched
}

// startBackground starts the scheduler and the mail deliverer.
func startBackground(ctx context.Context, cfg config, st *store.Store, runner *jobs.Runner, pay *payments, books *archive.Archiver, delivery jobs.DeliveryConfig, log *slog.Logger) (*background, error) {
	bg := &background{stopMail: func() {}, mailDone: make(chan struct{})}
	if !cfg.jobsOn {
		close(bg.mailDone)
		return bg, nil
	}
	sched, err := startScheduler(cfg, st, runner, pay, books, log)
	if err != nil {
		return nil, err
	}
	bg.sched = sched
	if err := bg.startMail(ctx, st, delivery, log); err != nil {
		bg.stop(log)
		return nil, err
	}
	return bg, nil
}

// startScheduler starts the billing jobs' scheduler and, on a shop whose
// books are archived, the archive's run at start.
func startScheduler(cfg config, st *store.Store, runner *jobs.Runner, pay *payments, books *archive.Archiver, log *slog.Logger) (*jobs.Scheduler, error) {
	loc, err := time.LoadLocation(cfg.tz)
	if err != nil {
		return nil, err // checked when the flags were read
	}
	sched, err := jobs.NewScheduler(runner, st, loc, jobs.Schedules{Reminders: cfg.remindersCron, Payments: cfg.paymentsCron, Archive: cfg.archiveCron, CardRefunds: cfg.cardRefundsCron,
		TicketStock: cfg.ticketStockCron}, log)
	if err != nil {
		return nil, err
	}
	if err := pay.deliverTestEvents(sched, st, cfg.addr, log); err != nil {
		return nil, err
	}
	sched.Start()
	if books != nil {
		// A month that closed while no replica ran (or a new shop's
		// demo months) is archived at start, not on tomorrow's tick.
		if err := sched.RunAtStartUp(jobs.JobArchive, st.Today()); err != nil {
			log.Info("archive at start", "why not", err)
		}
	}
	log.Info("billing jobs scheduled", "reminders", cfg.remindersCron, "payments", cfg.paymentsCron, "archive", cfg.archiveCron, "card refunds", cfg.cardRefundsCron,
		"ticket stock", cfg.ticketStockCron, "tz", cfg.tz)
	return sched, nil
}

// startMail starts the deliverer: mail leaves the outbox by SMTP, or stays
// there (the admin shows it). It stops between two mails when stopMail is
// called, and mailDone closes then.
func (bg *background) startMail(ctx context.Context, st *store.Store, delivery jobs.DeliveryConfig, log *slog.Logger) error {
	delivery.Attach = handlers.MailAttachment(st) // invoices and receipts as PDF, rendered as each mail goes
	deliverer, err := jobs.NewDeliverer(st, delivery)
	if err != nil {
		return err
	}
	mailCtx, stopMail := context.WithCancel(context.WithoutCancel(ctx))
	bg.stopMail = stopMail
	go func() {
		defer close(bg.mailDone)
		deliverer.Run(mailCtx, time.Minute)
	}()
	if delivery.SMTP != nil {
		log.Info("mail goes out by SMTP", "server", delivery.SMTP.String())
	} else {
		log.Info("no SHOP_SMTP_URL: mail stays in the outbox (/admin/outbox)")
	}
	return nil
}

// stop stops what still runs on an early return; after shutDown, which
// stops both within its deadline, it does nothing.
func (bg *background) stop(log *slog.Logger) {
	bg.stopMail()
	if bg.sched == nil {
		return
	}
	if err := bg.sched.Stop(); err != nil {
		log.Error("stop the scheduler", "err", err)
	}
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
