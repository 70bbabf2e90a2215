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
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
	_ "time/tzdata" // SHOP_TZ works on machines without a zone database

	"shop/jobs"
	"shop/store"
	"shop/store/demo"
	"shop/store/payment"
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

func run(ctx context.Context, args []string) error {
	cfg, cmd, err := parseConfig(args)
	if err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.logLevel)); err != nil {
		return fmt.Errorf("SHOP_LOG_LEVEL: %w", err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	retryDays, err := retryDaysOf(cfg.retryDays)
	if err != nil {
		return err
	}
	delivery := jobs.DeliveryConfig{From: cfg.mailFrom, KeepInOutbox: cfg.smtpURL == "", Replica: cfg.replicaName(), Log: log}
	if cfg.smtpURL != "" {
		smtp, err := jobs.ParseSMTPURL(cfg.smtpURL)
		if err != nil {
			return fmt.Errorf("SHOP_SMTP_URL: %w", err)
		}
		delivery.SMTP = &smtp
	}
	// Arguments are checked before anything starts: a bad one runs nothing.
	var runDate time.Time
	switch cmd.name {
	case "jobs run":
		if !jobs.ValidJob(cfg.positional[0]) {
			return usagef("jobs run: unknown job %q (want reminders, payments, archive, card-refunds or ticket-stock)", cfg.positional[0])
		}
		if cfg.date != "" {
			if runDate, err = store.ParseDate(cfg.date); err != nil {
				return usagef("jobs run: --date %q: %v", cfg.date, err)
			}
		}
	case "seed subscriptions":
		if cfg.count < 1 {
			return usagef("seed subscriptions: --count must be a positive number")
		}
		if _, err := store.ParseDate(cfg.due); err != nil {
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

	if cmd.name == "cluster" {
		err := runCluster(ctx, cfg, log, os.Stdout)
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return nil // Ctrl-C while it started: stopped, as asked
		}
		return err
	}
	if cmd.name == "healthcheck" {
		return healthcheck(ctx, cfg.addr, os.Stdout)
	}
	if cmd.name == "iam-policy" {
		doc, err := store.IAMPolicy(cfg.table, cfg.policyRegion, cfg.policyAccount)
		if err != nil {
			return usagef("iam-policy: %v", err)
		}
		_, err = fmt.Fprintf(os.Stdout, "%s\n", doc)
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
	gateway := payment.NewTestGateway(st) // the built-in test gateway: no real payments yet
	// The built-in test provider: subscriptions whose card it saved (the
	// seeded ones, and those subscribed on its page) renew through it.
	testPay, err := payment.NewTestProvider(ctx, st, cfg.mailBaseURL())
	if err != nil {
		return err
	}
	books, err := booksArchive(ctx, cfg, st, log)
	if err != nil {
		return err
	}
	var pay *payments
	if cmd.name == "serve" {
		if pay, err = setUpPayments(ctx, st, cfg.mailBaseURL(), cfg.demo, log); err != nil {
			return err
		}
	}
	jobsCfg := jobs.Config{
		Concurrency: cfg.jobConcurrency, CatchUpDays: cfg.catchUpDays, RetryDays: retryDays, BaseURL: cfg.mailBaseURL(),
		Replica: cfg.replicaName(), Archive: books, LeaseTTL: cfg.leaseTTL,
	}
	// Renewals and refunds go to the providers: the serving shop's as
	// configured; a command's, the test provider (the seeded cards are its).
	providers := payment.NewProviders(testPay)
	if pay != nil {
		providers = pay.providers
		jobsCfg.Holds = pay.settler
	}
	jobsCfg.Payments, jobsCfg.Refunds = providers, payment.NewCardRefunds(providers, gateway)
	st.EraseProviderCustomersWith(providers)
	runner := jobs.NewRunner(st, gateway, jobsCfg)
	switch cmd.name {
	case "migrate":
		log.Info("table ready", "table", cfg.table)
		return nil
	case "seed":
		return demo.Seed(ctx, st, cfg.bcryptCost, log)
	case "seed subscriptions":
		due, _ := store.ParseDate(cfg.due)
		_, err := demo.SeedSubscriptions(ctx, st, testPay, cfg.count, due, cfg.declining, os.Stdout)
		return err
	case "import-workbench":
		return st.ImportWorkbenchFiles(ctx, cfg.positional, os.Stdout)
	case "jobs run":
		if runDate.IsZero() {
			runDate = st.Today()
		}
		return runJob(ctx, runner, st, cfg.positional[0], runDate, cfg.force, os.Stdout)
	case "api-keys create":
		return createAPIKey(ctx, st, cfg.keyName, os.Stdout)
	case "customers index":
		n, err := st.IndexCustomerFinders(ctx)
		log.Info("customer finders", "customers", n.Customers, "written", n.Written, "changed_meanwhile", n.Changed)
		return err
	}
	return serve(ctx, cfg, st, eng, gateway, pay, runner, delivery, log, metrics)
}
