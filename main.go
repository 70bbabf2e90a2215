// Command shop runs the online shop: its storefront, its staff console, and
// (with no DYNAMODB_ENDPOINT) its own DynamoDB Local.
//
//	shop [serve]   start the shop (the default)
//	shop migrate   create or update the table
//	shop seed      load the demo data (once per table)
//	shop seed subscriptions --count N --due YYYY-MM-DD [--declining P]
//	shop import-workbench FILE...
//	               write the sample items of NoSQL Workbench models
//	shop jobs run reminders|payments|archive|card-refunds|ticket-stock [--date YYYY-MM-DD] [--force]
//	shop api-keys create --name NAME
//	               make an API key; its secret is the last line printed
//	shop customers index
//	               write every customer's finder items (idempotent)
//	shop cluster   replicas on one DynamoDB Local behind HAProxy (this machine)
//
// Flags come after the last word; shop COMMAND -h lists them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	_ "time/tzdata" // SHOP_TZ works on machines without a zone database

	"shop/jobs"
	"shop/store"
	"shop/store/demo"
	"shop/store/dynamolocal"
	"shop/store/payment"
	"shop/store/rules"
	"shop/web"
)

func main() {
	// SIGTERM or SIGINT cancels ctx with jobs.ErrShutdown as the cause:
	// serve shuts down within its deadline, a run's record says
	// interrupted. Signals after the first are ignored, so the shutdown
	// (which stops the shop's own DynamoDB Local) is never cut short.
	ctx, shutdown := context.WithCancelCause(context.Background())
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	// So does SIGHUP (the terminal that started the shop closed): left to
	// Go, it ends the process at once without a log line, its engine and
	// its run record with it. Ignored at start (nohup), it stays ignored.
	if !signal.Ignored(syscall.SIGHUP) {
		signal.Notify(signals, syscall.SIGHUP)
	}
	go func() {
		sig := <-signals
		shutdown(fmt.Errorf("%w (%s)", jobs.ErrShutdown, sig))
	}()
	err := run(ctx, os.Args[1:])
	signal.Stop(signals)
	shutdown(nil)
	var usage usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.As(err, &usage):
		fmt.Fprintln(os.Stderr, "shop:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "shop:", err)
		os.Exit(1)
	}
}

// run reads the configuration, checks the command's arguments, and runs
// the command: the few that need no table at once, the others on the store
// with the shop's parts wired, serve last.
func run(ctx context.Context, args []string) error {
	cfg, cmd, err := parseConfig(args)
	if err != nil {
		return err
	}
	log, err := newLog(cfg.logLevel)
	if err != nil {
		return err
	}
	retryDays, err := retryDaysOf(cfg.retryDays)
	if err != nil {
		return err
	}
	delivery, err := deliveryConfig(cfg, log)
	if err != nil {
		return err
	}
	// Arguments are checked before anything starts: a bad one runs nothing.
	if err := checkArguments(cfg, cmd.name); err != nil {
		return err
	}
	if ran, err := runWithoutStore(ctx, cfg, cmd.name, log); ran {
		return err
	}

	metrics := web.NewMetrics()
	st, eng, err := openStore(ctx, cfg, cmd.name == "serve", log, metrics)
	if err != nil {
		return err
	}
	defer eng.stop()

	if cfg.dryRun {
		return st.WritePlan(ctx, os.Stdout)
	}
	store.MigrateLog = log.Info
	if err := st.Migrate(ctx); err != nil {
		return err
	}
	p, err := wire(ctx, cfg, cmd.name == "serve", st, retryDays, log)
	if err != nil {
		return err
	}
	if ran, err := runOnStore(ctx, cfg, cmd.name, st, p, log); ran {
		return err
	}
	return serve(ctx, cfg, st, eng, p.gateway, p.pay, p.runner, delivery, log, metrics)
}

// logOutput is where the shop's log goes: stderr. The web app writes its
// request lines there itself, in the log's format (web.Config.RequestLog).
var logOutput io.Writer = os.Stderr

// newLog is the shop's log at SHOP_LOG_LEVEL, on logOutput.
func newLog(levelName string) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(levelName)); err != nil {
		return nil, fmt.Errorf("SHOP_LOG_LEVEL: %w", err)
	}
	return slog.New(slog.NewTextHandler(logOutput, &slog.HandlerOptions{Level: level})), nil
}

// deliveryConfig says how mail leaves the outbox: by SHOP_SMTP_URL, or not
// at all (it stays there for the admin to read).
func deliveryConfig(cfg config, log *slog.Logger) (jobs.DeliveryConfig, error) {
	delivery := jobs.DeliveryConfig{From: cfg.mailFrom, KeepInOutbox: cfg.smtpURL == "", Replica: cfg.replicaName(), Log: log}
	if cfg.smtpURL != "" {
		smtp, err := jobs.ParseSMTPURL(cfg.smtpURL)
		if err != nil {
			return delivery, fmt.Errorf("SHOP_SMTP_URL: %w", err)
		}
		delivery.SMTP = &smtp
	}
	return delivery, nil
}

// checkArguments checks what a command was given beyond the flags' types.
func checkArguments(cfg config, cmd string) error {
	switch cmd {
	case "jobs run":
		if !jobs.ValidJob(cfg.positional[0]) {
			return usagef("jobs run: unknown job %q (want reminders, payments, archive, card-refunds or ticket-stock)", cfg.positional[0])
		}
		if _, err := jobDate(cfg, time.Time{}); err != nil {
			return err
		}
	case "seed subscriptions":
		if cfg.count < 1 {
			return usagef("seed subscriptions: --count must be a positive number")
		}
		if _, err := rules.ParseDate(cfg.due); err != nil {
			return usagef("seed subscriptions: --due %q: %v", cfg.due, err)
		}
		if cfg.declining < 0 || cfg.declining > 100 {
			return usagef("seed subscriptions: --declining is a percent from 0 to 100")
		}
	case "api-keys create":
		switch name := strings.TrimSpace(cfg.keyName); {
		case name == "":
			return usagef("api-keys create: --name is required")
		case !store.ValidIntegrationName(name):
			return usagef("api-keys create: --name %q: %v", cfg.keyName, store.ErrBadIntegrationName)
		}
	}
	return nil
}

// jobDate is the date jobs run works on: --date, else today.
func jobDate(cfg config, today time.Time) (time.Time, error) {
	if cfg.date == "" {
		return today, nil
	}
	date, err := rules.ParseDate(cfg.date)
	if err != nil {
		return date, usagef("jobs run: --date %q: %v", cfg.date, err)
	}
	return date, nil
}

// runWithoutStore runs the commands that need no table (ran says it was
// one of them): the cluster starts shops of its own, and the health check
// and the IAM policy need none.
func runWithoutStore(ctx context.Context, cfg config, cmd string, log *slog.Logger) (ran bool, err error) {
	switch cmd {
	case "cluster":
		err := runCluster(ctx, cfg, log, os.Stdout)
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return true, nil // Ctrl-C while it started: stopped, as asked
		}
		return true, err
	case "healthcheck":
		return true, healthcheck(ctx, cfg.addr, os.Stdout)
	case "iam-policy":
		doc, err := store.IAMPolicy(cfg.table, cfg.policyRegion, cfg.policyAccount)
		if err != nil {
			return true, usagef("iam-policy: %v", err)
		}
		_, err = fmt.Fprintf(os.Stdout, "%s\n", doc)
		return true, err
	}
	return false, nil
}

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
	vat, err := rules.ParseVATRates(cfg.vatRates)
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

// parts are the shop's parts the commands and serve share.
type parts struct {
	gateway *payment.TestGateway // the built-in test gateway: no real payments yet
	// testPay is the built-in test provider: subscriptions whose card it
	// saved (the seeded ones, and those subscribed on its page) renew
	// through it.
	testPay *payment.TestProvider
	pay     *payments // the serving shop's payment settings; nil for a command
	runner  *jobs.Runner
}

// wire makes the shop's parts on st. Renewals and refunds go to the
// providers: the serving shop's as configured; a command's, the test
// provider (the seeded cards are its).
func wire(ctx context.Context, cfg config, serving bool, st *store.Store, retryDays []int, log *slog.Logger) (parts, error) {
	p := parts{gateway: payment.NewTestGateway(st)}
	var err error
	if p.testPay, err = payment.NewTestProvider(ctx, st, cfg.mailBaseURL()); err != nil {
		return p, err
	}
	books, err := booksArchive(ctx, cfg, st, log)
	if err != nil {
		return p, err
	}
	if serving {
		if p.pay, err = setUpPayments(ctx, st, cfg.mailBaseURL(), cfg.demo, log); err != nil {
			return p, err
		}
	}
	jobsCfg := jobs.Config{
		Concurrency: cfg.jobConcurrency, CatchUpDays: cfg.catchUpDays, RetryDays: retryDays, BaseURL: cfg.mailBaseURL(),
		Replica: cfg.replicaName(), Archive: books, LeaseTTL: cfg.leaseTTL,
	}
	providers := payment.NewProviders(p.testPay)
	if p.pay != nil {
		providers = p.pay.providers
		jobsCfg.Holds = p.pay.settler
	}
	jobsCfg.Payments, jobsCfg.Refunds = providers, payment.NewCardRefunds(providers, p.gateway)
	st.EraseProviderCustomersWith(providers)
	p.runner = jobs.NewRunner(st, p.gateway, jobsCfg)
	return p, nil
}

// runOnStore runs the commands on the table other than serve (ran says it
// was one of them).
func runOnStore(ctx context.Context, cfg config, cmd string, st *store.Store, p parts, log *slog.Logger) (ran bool, err error) {
	switch cmd {
	case "migrate":
		log.Info("table ready", "table", cfg.table)
		return true, nil
	case "seed":
		return true, demo.Seed(ctx, st, cfg.bcryptCost, log)
	case "seed subscriptions":
		due, err := rules.ParseDate(cfg.due)
		if err == nil {
			_, err = demo.SeedSubscriptions(ctx, st, p.testPay, cfg.count, due, cfg.declining, os.Stdout)
		}
		return true, err
	case "import-workbench":
		return true, st.ImportWorkbenchFiles(ctx, cfg.positional, os.Stdout)
	case "jobs run":
		date, err := jobDate(cfg, st.Today())
		if err != nil {
			return true, err
		}
		return true, runJob(ctx, p.runner, st, cfg.positional[0], date, cfg.force, os.Stdout)
	case "api-keys create":
		return true, createAPIKey(ctx, st, cfg.keyName, os.Stdout)
	case "customers index":
		n, err := st.IndexCustomerFinders(ctx)
		log.Info("customer finders", "customers", n.Customers, "written", n.Written, "changed_meanwhile", n.Changed)
		return true, err
	}
	return false, nil
}
