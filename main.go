// Command shop runs the online shop: its storefront, its staff console, and
// (with no DYNAMODB_ENDPOINT) its own DynamoDB Local.
//
//	shop [serve]   start the shop (the default)
//	shop migrate   create or update the table
//	shop seed      load the demo data (once per table)
//	shop seed subscriptions --count N --due YYYY-MM-DD [--declining P]
//	shop import-workbench FILE...
//	               write the sample items of NoSQL Workbench models
//	shop jobs run reminders|payments|archive|card-refunds [--date YYYY-MM-DD] [--force]
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
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	_ "time/tzdata" // SHOP_TZ works on machines without a zone database

	"github.com/gofiber/fiber/v2"

	"shop/handlers"
	"shop/jobs"
	"shop/store"
	"shop/store/archive"
	"shop/store/demo"
	"shop/store/dynamolocal"
	"shop/store/payment"
	"shop/store/photos"
	"shop/views"
	"shop/web"
)

type config struct {
	addr        string
	endpoint    string
	table       string
	dataDir     string
	tz          string
	currency    string // ISO 4217: the one the shop prices in
	sessionKeys string
	demo        bool
	secure      bool
	proxyHeader string
	proxies     string
	positional  []string // the command's arguments (files, a job)
	setFlags    []string // the flags given, as -name=value (cluster passes them on)
	replica     string
	leaseTTL    time.Duration
	bcryptCost  int
	logLevel    string
	returnDays  int // days after delivery a customer may ask to return
	dropMaxDays int // days after its opening a drop may close at most
	// Recurring payments and their jobs.
	reminderDays   int
	billingShards  int
	listShards     int
	catchUpDays    int
	jobConcurrency int
	jobsOn         bool
	remindersCron  string
	paymentsCron   string
	retryDays      string
	baseURL        string
	smtpURL        string
	mailFrom       string
	mediaBucket    string
	// The books: invoice and receipt number series, VAT rates.
	invoiceSeries string
	vatRates      string
	archiveBucket string
	archiveCron   string
	// card refunds the gateway did not take, tried again
	cardRefundsCron string
	// jobs run, seed subscriptions
	date      string
	force     bool
	count     int
	due       string
	declining int
	// api-keys create
	keyName string
	// migrate, iam-policy
	dryRun                      bool
	policyRegion, policyAccount string
	// cluster
	replicas, replicaPort, enginePort int

	// On SIGTERM: how long in-flight requests and runs get, and how long
	// /healthz says 503 before the listener closes.
	shutdownTimeout time.Duration
	shutdownDrain   time.Duration
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

// envInt reads a whole-number variable; a value that is not one is an error.
func envInt(name string, def int) (int, error) {
	return envParse(name, def, strconv.Atoi, "a whole number")
}

// envBool reads a boolean variable; a value that is not one is an error,
// not the default: SHOP_DEMO=off must not quietly mean on.
func envBool(name string, def bool) (bool, error) {
	return envParse(name, def, strconv.ParseBool, "true or false")
}

// envParse reads a variable with parse; unset or empty is def.
func envParse[T any](name string, def T, parse func(string) (T, error), want string) (T, error) {
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return def, nil
	}
	t, err := parse(v)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("%s=%q is not %s", name, v, want)
	}
	return t, nil
}

// command is one subcommand: its words, what it takes, and its own flags.
type command struct {
	name  string // its words, e.g. "jobs run"
	args  string // its positional arguments in the usage line
	about string
	// minArgs and maxArgs bound the positional arguments (-1: no limit).
	minArgs, maxArgs int
	flags            func(fs *flag.FlagSet, c *config)
}

var commands = []command{
	{name: "serve", about: "start the shop (the default)"},
	{name: "migrate", about: "create or update the table and its indexes (idempotent; never drops anything on AWS)",
		flags: func(fs *flag.FlagSet, c *config) {
			fs.BoolVar(&c.dryRun, "dry-run", false, "print what it would change, change nothing")
		}},
	{name: "healthcheck", about: "ask the shop at SHOP_ADDR for /healthz (a container's health check): exit 0 when it answers 200"},
	{name: "iam-policy", about: "print the least-privilege IAM policy (JSON) the shop needs on the table --table names",
		flags: func(fs *flag.FlagSet, c *config) {
			fs.StringVar(&c.policyRegion, "region", "", "its AWS region (default: any the caller asks for, ${aws:RequestedRegion})")
			fs.StringVar(&c.policyAccount, "account", "", "its AWS account, 12 digits (default: the caller's, ${aws:PrincipalAccount})")
		}},
	{name: "seed", about: "load the demo shop on a table that has not had it (idempotent)"},
	{name: "seed subscriptions", about: "create N customers, each with one monthly subscription due on a date (for benchmarks and checks)",
		flags: func(fs *flag.FlagSet, c *config) {
			fs.IntVar(&c.count, "count", 0, "how many customers with a subscription (required, positive)")
			fs.StringVar(&c.due, "due", "", "their next payment date, YYYY-MM-DD (required)")
			fs.IntVar(&c.declining, "declining", 0, "percent of them paying with the card that is declined")
		}},
	{name: "import-workbench", args: "FILE...", about: "write the sample items of NoSQL Workbench models", minArgs: 1, maxArgs: -1},
	{name: "jobs run", args: "reminders|payments|archive|card-refunds", about: "run one job once and print its counts as JSON on the last line", minArgs: 1, maxArgs: 1,
		flags: func(fs *flag.FlagSet, c *config) {
			fs.StringVar(&c.date, "date", "", "the billing date to process, YYYY-MM-DD (default today in SHOP_TZ; never after today)")
			fs.BoolVar(&c.force, "force", false, "run without taking the lease (charges are still made exactly once)")
		}},
	{name: "customers index", about: "write every customer's finder items, by which staff find them by the start of a name or email (idempotent)"},
	{name: "cluster", about: "run replicas of the shop on one DynamoDB Local behind HAProxy on this machine (at SHOP_ADDR, loopback only); Ctrl-C stops them all",
		flags: func(fs *flag.FlagSet, c *config) {
			fs.IntVar(&c.replicas, "replicas", 3, "how many replicas, 1 to 9")
			fs.IntVar(&c.replicaPort, "replica-port", 0, "the first replica's port, the others' follow (default: the proxy's port + 1)")
			fs.IntVar(&c.enginePort, "engine-port", 0, "DynamoDB Local's port (default: a free one)")
		}},
	{name: "api-keys create", about: "add an integration (another system using the JSON API) and make its first key; the secret is the last line printed, and is not shown again (more keys: the console's API keys page)",
		flags: func(fs *flag.FlagSet, c *config) {
			fs.StringVar(&c.keyName, "name", "", "the integration's name, taken for good: 1 to 32 letters, digits, '-' and '_' (required)")
		}},
}

// usageError is a command line the shop does not understand: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// findCommand takes the longest command whose words begin args.
func findCommand(words []string) (command, bool) {
	best, found := command{}, false
	for _, c := range commands {
		cw := strings.Fields(c.name)
		if len(cw) <= len(words) && slices.Equal(cw, words[:len(cw)]) && len(cw) > len(strings.Fields(best.name)) {
			best, found = c, true
		}
	}
	return best, found
}

// subcommandsOf lists the commands under a word such as "jobs".
func subcommandsOf(word string) []string {
	var out []string
	for _, c := range commands {
		if w := strings.Fields(c.name); len(w) > 1 && w[0] == word {
			out = append(out, c.name)
		}
	}
	return out
}

// parseConfig reads the command line: the command's words, its positional
// arguments, then flags (after the last word). Anything it does not
// understand is a usageError; -h prints the command's help.
func parseConfig(args []string) (config, command, error) {
	var c config
	words := 0
	for words < len(args) && !strings.HasPrefix(args[words], "-") {
		words++
	}
	cmd := commands[0]
	if words > 0 {
		found, ok := findCommand(args[:words])
		if !ok {
			if subs := subcommandsOf(args[0]); len(subs) > 0 {
				return c, cmd, usagef("%s needs a subcommand: %s", args[0], strings.Join(subs, ", "))
			}
			return c, cmd, usagef("unknown command %q (run shop -h for the list)", args[0])
		}
		cmd = found
	}
	var positional []string
	if words > 0 {
		positional = args[len(strings.Fields(cmd.name)):words]
	}
	fs := flag.NewFlagSet("shop "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned, help is printed below
	if err := commonFlags(fs, &c); err != nil {
		return c, cmd, err
	}
	if cmd.flags != nil {
		cmd.flags(fs, &c)
	}
	err := fs.Parse(args[words:])
	if errors.Is(err, flag.ErrHelp) {
		printHelp(os.Stdout, cmd, fs)
		return c, cmd, err
	}
	if err != nil {
		return c, cmd, usagef("%s: %v", cmd.name, err)
	}
	if fs.NArg() > 0 {
		return c, cmd, usagef("%s: unexpected argument %q (flags come after the last word)", cmd.name, fs.Arg(0))
	}
	fs.Visit(func(f *flag.Flag) { c.setFlags = append(c.setFlags, "-"+f.Name+"="+f.Value.String()) })
	switch {
	case len(positional) < cmd.minArgs:
		return c, cmd, usagef("%s needs %s", cmd.name, cmd.args)
	case cmd.maxArgs >= 0 && len(positional) > cmd.maxArgs:
		return c, cmd, usagef("%s: unexpected argument %q", cmd.name, positional[cmd.maxArgs])
	}
	c.positional = positional
	if _, err := time.LoadLocation(c.tz); err != nil {
		return c, cmd, fmt.Errorf("SHOP_TZ %q: %w", c.tz, err)
	}
	if _, ok := store.CurrencyOf(c.currency); !ok {
		return c, cmd, usagef("SHOP_CURRENCY %q: not a currency the shop prices in (%s)", c.currency, strings.Join(store.Currencies(), ", "))
	}
	if _, err := store.ParseBookSeries(c.invoiceSeries); err != nil {
		return c, cmd, fmt.Errorf("SHOP_INVOICE_SERIES: %w", err)
	}
	if _, err := store.ParseVATRates(c.vatRates); err != nil {
		return c, cmd, fmt.Errorf("SHOP_VAT_RATES %q: %w", c.vatRates, err)
	}
	if c.reminderDays < 0 || c.reminderDays > 28 {
		return c, cmd, fmt.Errorf("SHOP_REMINDER_DAYS %d: use 0 to 28 days", c.reminderDays)
	}
	if c.returnDays < 1 || c.returnDays > 365 {
		return c, cmd, fmt.Errorf("SHOP_RETURN_DAYS %d: use 1 to 365 days", c.returnDays)
	}
	if c.dropMaxDays < 1 || c.dropMaxDays > 3650 {
		return c, cmd, fmt.Errorf("SHOP_DROP_MAX_DAYS %d: use 1 to 3650 days", c.dropMaxDays)
	}
	if c.billingShards < 1 || c.billingShards > 64 {
		return c, cmd, fmt.Errorf("SHOP_BILLING_SHARDS %d: use 1 to 64", c.billingShards)
	}
	if c.listShards < 1 || c.listShards > 256 {
		return c, cmd, fmt.Errorf("SHOP_LIST_SHARDS %d: use 1 to 256", c.listShards)
	}
	if c.shutdownTimeout < time.Second || c.shutdownTimeout > 10*time.Minute {
		return c, cmd, fmt.Errorf("SHOP_SHUTDOWN_TIMEOUT %s: use 1s to 10m", c.shutdownTimeout)
	}
	if c.shutdownDrain < 0 || c.shutdownDrain >= c.shutdownTimeout {
		return c, cmd, fmt.Errorf("SHOP_SHUTDOWN_DRAIN %s: use 0 up to less than SHOP_SHUTDOWN_TIMEOUT (%s)", c.shutdownDrain, c.shutdownTimeout)
	}
	if c.replica != "" && !validReplicaName(c.replica) {
		return c, cmd, fmt.Errorf("SHOP_REPLICA %q: 1 to 64 letters, digits, '-', '_' and '.'", c.replica)
	}
	// Renewed at a third of its life: below 3 s a renewal could not finish.
	if c.leaseTTL < 3*time.Second || c.leaseTTL > time.Hour {
		return c, cmd, fmt.Errorf("SHOP_LEASE_TTL %s: use 3s to 1h", c.leaseTTL)
	}
	if cmd.name == "cluster" {
		if err := checkCluster(c); err != nil {
			return c, cmd, err
		}
	}
	return c, cmd, nil
}

func printHelp(w io.Writer, cmd command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: shop %s", cmd.name)
	if cmd.args != "" {
		fmt.Fprintf(w, " %s", cmd.args)
	}
	fmt.Fprintf(w, " [flags]\n\n%s.\n", cmd.about)
	if cmd.name == "serve" {
		fmt.Fprintln(w, "\nCommands:")
		for _, c := range commands {
			fmt.Fprintf(w, "  %-20s %s\n", strings.TrimSpace(c.name+" "+c.args), c.about)
		}
	}
	fmt.Fprintln(w, "\nFlags (each also read from the environment variable named):")
	fs.SetOutput(w)
	fs.PrintDefaults()
}

func commonFlags(fs *flag.FlagSet, c *config) error {
	// String settings: flag, environment variable, default, help.
	strs := []struct {
		p             *string
		flag, ev, def string
		help          string
	}{
		{&c.addr, "addr", "SHOP_ADDR", "127.0.0.1:8080", "listen address"},
		{&c.endpoint, "dynamodb-endpoint", "DYNAMODB_ENDPOINT", "", "DynamoDB endpoint; empty starts DynamoDB Local, \"aws\" uses AWS"},
		{&c.table, "table", "SHOP_TABLE", "shop", "table name"},
		{&c.dataDir, "data-dir", "SHOP_DATA_DIR", "./data", "DynamoDB Local data and generated keys"},
		{&c.tz, "tz", "SHOP_TZ", "Europe/Stockholm", "the shop's time zone: billing dates and every time shown"},
		{&c.currency, "currency", "SHOP_CURRENCY", store.DefaultCurrency, "the currency the shop prices in, ISO 4217 (" + strings.Join(store.Currencies(), ", ") + "); the table keeps the first one it met"},
		{&c.sessionKeys, "session-keys", "SHOP_SESSION_KEYS", "", "comma-separated session signing keys, hex or base64, 32+ bytes; the first signs"},
		{&c.proxyHeader, "proxy-header", "SHOP_PROXY_HEADER", "", "header with the client address set by a reverse proxy, e.g. X-Forwarded-For"},
		{&c.proxies, "trusted-proxies", "SHOP_TRUSTED_PROXIES", "", "comma-separated addresses or CIDRs of the proxies believed"},
		{&c.logLevel, "log-level", "SHOP_LOG_LEVEL", "info", "debug, info, warn or error"},
		{&c.remindersCron, "reminders-cron", "SHOP_REMINDERS_CRON", "0 6 * * *", "when the reminder job runs, cron in SHOP_TZ (six fields: the first is seconds)"},
		{&c.paymentsCron, "payments-cron", "SHOP_PAYMENTS_CRON", "0 7 * * *", "when the payment job runs, cron in SHOP_TZ (six fields: the first is seconds)"},
		{&c.replica, "replica", "SHOP_REPLICA", "", "this replica's name in job runs, leases and the X-Shop-Replica header of every answer (default host-pid, no header)"},
		{&c.retryDays, "retry-days", "SHOP_RETRY_DAYS", "1,3,7", "days after a declined payment to retry, comma-separated"},
		{&c.baseURL, "base-url", "SHOP_BASE_URL", "", "the shop's address in mails (default http://<addr>)"},
		{&c.smtpURL, "smtp-url", "SHOP_SMTP_URL", "", "smtps://user:pass@host:465 or smtp://...:587 (STARTTLS); unset keeps mail in the outbox"},
		{&c.mailFrom, "mail-from", "SHOP_MAIL_FROM", "Fika & Field <shop@fikafield.example>", "sender of the shop's mail"},
		{&c.mediaBucket, "media-bucket", "SHOP_MEDIA_BUCKET", "", "S3 bucket for product photos (needed for more than one replica); unset keeps them under the data dir"},
		{&c.invoiceSeries, "invoice-series", "SHOP_INVOICE_SERIES", "", "number invoices and receipts in several series, e.g. A,B (A-2026-000123); unset: one series"},
		{&c.vatRates, "vat-rates", "SHOP_VAT_RATES", store.DefaultVATRates().String(), "VAT in percent: the standard rate, then category=rate"},
		{&c.archiveBucket, "archive-bucket", "SHOP_ARCHIVE_BUCKET", "", "S3 bucket for the archive of the books (needed for more than one replica); unset keeps it under <data dir>/archive"},
		{&c.archiveCron, "archive-cron", "SHOP_ARCHIVE_CRON", "0 5 * * *", "when the archive job looks for closed months to archive, cron in SHOP_TZ"},
		{&c.cardRefundsCron, "card-refunds-cron", "SHOP_CARD_REFUNDS_CRON", "*/15 * * * *", "when the card refunds job tries again the card refunds the gateway did not take, cron in SHOP_TZ"},
	}
	for _, v := range strs {
		fs.StringVar(v.p, v.flag, env(v.ev, v.def), v.help+" ("+v.ev+")")
	}
	// The demo data (with its published staff password) loads by default only
	// into the DynamoDB Local the shop starts itself.
	demoDefault := os.Getenv("DYNAMODB_ENDPOINT") == ""
	demo, err := envBool("SHOP_DEMO", demoDefault)
	if err != nil {
		return err
	}
	secure, err := envBool("SHOP_SECURE_COOKIES", false)
	if err != nil {
		return err
	}
	jobsOn, err := envBool("SHOP_JOBS", true)
	if err != nil {
		return err
	}
	fs.BoolVar(&c.demo, "demo", demo, "load demo data on first start; default on only with the shop's own DynamoDB Local (SHOP_DEMO)")
	fs.BoolVar(&c.secure, "secure-cookies", secure, "mark cookies Secure; set behind HTTPS (SHOP_SECURE_COOKIES)")
	fs.IntVar(&c.bcryptCost, "bcrypt-cost", 11, "bcrypt cost of password hashes")
	ints := []struct {
		p        *int
		flag, ev string
		def      int
		help     string
	}{
		{&c.reminderDays, "reminder-days", "SHOP_REMINDER_DAYS", store.DefaultReminderLead, "days between a subscription's reminder and its payment"},
		{&c.billingShards, "billing-shards", "SHOP_BILLING_SHARDS", store.DefaultBillingShards, "shards of the billing-due indexes of a new table; fixed once the table exists"},
		{&c.listShards, "list-shards", "SHOP_LIST_SHARDS", store.DefaultListShards, "shards of the lists every order writes (a month's orders, open card checkouts) of a new table; fixed once the table exists"},
		{&c.catchUpDays, "catch-up-days", "SHOP_CATCHUP_DAYS", 60, "how far back the payment job still charges a missed payment"},
		{&c.jobConcurrency, "job-concurrency", "SHOP_JOB_CONCURRENCY", 16, "subscriptions a billing job works on at once"},
		{&c.returnDays, "return-days", "SHOP_RETURN_DAYS", store.DefaultReturnDays, "days after delivery (or shipping, if never marked delivered) a customer may ask to return"},
		{&c.dropMaxDays, "drop-max-days", "SHOP_DROP_MAX_DAYS", store.DefaultDropMaxDays, "days after its opening a drop may close at most (1 to 3650)"},
	}
	for _, i := range ints {
		v, err := envInt(i.ev, i.def)
		if err != nil {
			return err
		}
		fs.IntVar(i.p, i.flag, v, i.help+" ("+i.ev+")")
	}
	leaseTTL, err := envParse("SHOP_LEASE_TTL", 30*time.Second, time.ParseDuration, "a duration such as 30s")
	if err != nil {
		return err
	}
	fs.DurationVar(&c.leaseTTL, "lease-ttl", leaseTTL, "life of a job's lease: a replica that dies holding one is taken over after about this long (SHOP_LEASE_TTL)")
	fs.BoolVar(&c.jobsOn, "jobs", jobsOn, "run the billing jobs' scheduler in serve; false for web-only replicas (SHOP_JOBS)")
	durations := []struct {
		p        *time.Duration
		flag, ev string
		def      time.Duration
		help     string
	}{
		// Below the 30 s a container runtime waits before it kills.
		{&c.shutdownTimeout, "shutdown-timeout", "SHOP_SHUTDOWN_TIMEOUT", 20 * time.Second, "on SIGTERM, how long in-flight requests and billing runs get to finish, drain included"},
		{&c.shutdownDrain, "shutdown-drain", "SHOP_SHUTDOWN_DRAIN", 0, "on SIGTERM, how long /healthz answers 503 while the shop still serves, before it stops taking connections (a proxy's check interval times its fall count)"},
	}
	for _, d := range durations {
		v, err := envParse(d.ev, d.def, time.ParseDuration, "a duration like 20s")
		if err != nil {
			return err
		}
		fs.DurationVar(d.p, d.flag, v, d.help+" ("+d.ev+")")
	}
	return nil
}

// retryDaysOf reads "1,3,7".
func retryDaysOf(s string) ([]int, error) {
	var days []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 60 {
			return nil, fmt.Errorf("SHOP_RETRY_DAYS %q: whole numbers of days from 1 to 60, comma-separated", s)
		}
		days = append(days, n)
	}
	return days, nil
}

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
			return usagef("jobs run: unknown job %q (want reminders, payments, archive or card-refunds)", cfg.positional[0])
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
		return printPlan(ctx, st, cfg.table, os.Stdout)
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
		loaded, err := demo.Load(ctx, st, cfg.bcryptCost)
		log.Info("demo data", "loaded_now", loaded, "table", cfg.table)
		if err != nil || loaded {
			return err
		}
		// Run again on a demo shop: bring its dates up to today.
		moved, err := demo.Refresh(ctx, st)
		log.Info("demo dates brought up to today", "subscriptions", moved)
		return err
	case "seed subscriptions":
		due, _ := store.ParseDate(cfg.due)
		_, err := seedSubscriptions(ctx, st, testPay, cfg.count, due, cfg.declining, os.Stdout)
		return err
	case "import-workbench":
		return importWorkbench(ctx, st, cfg.positional, os.Stdout)
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

func (c config) mailBaseURL() string {
	if c.baseURL != "" {
		return c.baseURL
	}
	return "http://" + c.addr
}

// healthcheck asks the shop listening on addr for /healthz; a wildcard
// listen address is asked on loopback.
func healthcheck(ctx context.Context, addr string, out io.Writer) error {
	base, err := loopbackURL(addr)
	if err != nil {
		return usagef("healthcheck: %v", err)
	}
	url := base + "/healthz"
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %s", url, resp.Status)
	}
	_, err = fmt.Fprintf(out, "%s: %s\n", url, resp.Status)
	return err
}

// loopbackURL is the shop listening on addr as this machine reaches it: a
// wildcard listen address on loopback.
func loopbackURL(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("SHOP_ADDR %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port), nil
}

// printPlan prints what migrate would change, one step a line.
func printPlan(ctx context.Context, st *store.Store, table string, out io.Writer) error {
	plan, err := st.PlanTable(ctx)
	if err != nil {
		return err
	}
	if len(plan) == 0 {
		_, err = fmt.Fprintf(out, "table %s is up to date: migrate would change nothing\n", table)
		return err
	}
	fmt.Fprintf(out, "migrate would, on table %s:\n", table)
	for _, step := range plan {
		if _, err := fmt.Fprintf(out, "  - %s\n", step); err != nil {
			return err
		}
	}
	return nil
}

// replicaName names this process in run records and leases: SHOP_REPLICA,
// else host and process id.
func (c config) replicaName() string {
	if c.replica != "" {
		return c.replica
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("%s-%d", host, os.Getpid())
}

// runJob runs one job once and prints its counts as one JSON object on the
// last line. Without force it takes the job's lease for the date and fails
// if another holds it.
func runJob(ctx context.Context, runner *jobs.Runner, st *store.Store, job string, date time.Time, force bool, out io.Writer) error {
	var run store.JobRun
	var err error
	if force {
		fmt.Fprintf(out, "running %s for %s without the lease (--force)\n", job, store.FormatDate(date))
		run, err = runner.Run(ctx, job, date, jobs.TriggerCommandLine)
	} else {
		fmt.Fprintf(out, "running %s for %s under its lease\n", job, store.FormatDate(date))
		run, err = jobs.RunLeased(ctx, runner, st, job, date, jobs.TriggerCommandLine, nil)
		if errors.Is(err, store.ErrLeaseHeld) || errors.Is(err, store.ErrLeaseDone) {
			return fmt.Errorf("%s for %s: %w (use --force to run anyway: charges are still made once)", job, store.FormatDate(date), err)
		}
	}
	if errors.Is(err, jobs.ErrFutureDate) {
		return usagef("jobs run: %v", err)
	}
	if run.ID == "" && err != nil {
		return err
	}
	line, jerr := json.Marshal(struct {
		store.RunCounts
		Run     string  `json:"run"`
		Job     string  `json:"job"`
		Date    string  `json:"date"`
		Outcome string  `json:"outcome"`
		Seconds float64 `json:"seconds"`
	}{run.Counts, run.ID, job, store.FormatDate(date), run.Outcome, run.Duration().Seconds()})
	if jerr != nil {
		return jerr
	}
	fmt.Fprintln(out, string(line))
	return err
}

// createAPIKey adds an integration with its first key and prints the
// secret alone on the last line, for a script to take (| tail -n 1). A
// name used before, even by a revoked integration, is refused.
func createAPIKey(ctx context.Context, st *store.Store, name string, out io.Writer) error {
	_, key, secret, err := st.CreateIntegration(ctx, name)
	if errors.Is(err, store.ErrBadIntegrationName) {
		return usagef("api-keys create: --name %q: %v", name, err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Integration %q added with a key (fingerprint %s). Copy it now: it is not shown again.\n", key.Integration, key.ID[:12])
	fmt.Fprintln(out, secret)
	return nil
}

// seedSubscriptions makes count customers, each with one active monthly
// subscription to a subscribable product (made if the shop has none), due
// on the date, paid by a card the test provider saved that pays or, for the
// declining percent, one short of funds (its charges are declined). The
// cards are saved once, for one customer of the provider's that every
// seeded subscriber shares (seeded load, not people). It charges nothing
// and writes no receipts. It returns the subscribers it made.
func seedSubscriptions(ctx context.Context, st *store.Store, p *payment.TestProvider, count int, due time.Time, declining int, out io.Writer) ([]store.Subscriber, error) {
	product, err := st.FirstSubscribableProduct(ctx)
	if errors.Is(err, store.ErrNotFound) {
		product = store.Product{ID: "seed-coffee", Name: "Seeded coffee subscription", Category: "coffee",
			Price: store.Money{Amount: 1490, Currency: store.DefaultCurrency}, Subscribable: true,
			MonthlyPrice: store.Money{Amount: 1290, Currency: store.DefaultCurrency}}
		if product, err = st.CreateProduct(ctx, product); err != nil && !errors.Is(err, store.ErrConflict) {
			return nil, err
		}
		err = nil
	}
	if err != nil {
		return nil, err
	}
	ref, err := p.EnsureCustomer(ctx, payment.CustomerRequest{CustomerID: "seed", Email: "subscribers@seed.example", Name: "Seeded subscribers", Key: "seed-subscribers"})
	if err != nil {
		return nil, err
	}
	good, err := saveTestCard(ctx, p, ref, payment.CardSucceeds)
	if err != nil {
		return nil, err
	}
	bad, err := saveTestCard(ctx, p, ref, payment.CardInsufficientFunds)
	if err != nil {
		return nil, err
	}
	now := st.Now()
	var seeded []store.Subscriber
	const batch = 400
	for done := 0; done < count; {
		n := min(batch, count-done)
		subs := make([]store.Subscriber, n)
		for i := range subs {
			k := done + i
			c := store.Customer{ID: store.NewID(), Name: fmt.Sprintf("Subscriber %d", k+1), Role: store.RoleCustomer, CreatedAt: now}
			c.Email = "subscriber-" + c.ID + "@seed.example"
			card := good
			if k*100 < count*declining { // the first P percent decline
				card = bad
			}
			subs[i] = store.Subscriber{Customer: c, Subscription: store.Subscription{
				ID: store.NewID(), AccountID: c.ID, ProductID: product.ID, ProductName: product.Name, Email: c.Email,
				MonthlyPrice: product.MonthlyPrice, PeriodMonths: 1, PaymentDay: due.Day(), Status: store.SubscriptionActive,
				Card: card, NextPaymentDate: due, NextReminderDate: store.ReminderDate(due, due.AddDate(0, 0, -st.ReminderLead()), st.ReminderLead()),
				CreatedAt: now, Version: 1,
			}}
		}
		if err := st.SeedSubscribers(ctx, subs); err != nil {
			return nil, err
		}
		seeded = append(seeded, subs...)
		done += n
		fmt.Fprintf(out, "seeded %d of %d subscriptions due %s\n", done, count, store.FormatDate(due))
	}
	return seeded, nil
}

// saveTestCard saves a test card for the provider's customer ref, as its
// setup page does, and returns it as a subscription keeps it.
func saveTestCard(ctx context.Context, p *payment.TestProvider, ref, number string) (store.Card, error) {
	cs, err := p.StartCheckout(ctx, payment.CheckoutRequest{Mode: payment.ModeSetup, Amount: store.Money{Currency: store.DefaultCurrency},
		CustomerRef: ref, SuccessURL: p.BaseURL + "/subscriptions", Key: "seed-card-" + store.NewID()})
	if err != nil {
		return store.Card{}, err
	}
	if _, err := p.PayCheckout(ctx, cs.ID, payment.CardForm{Number: number, Expiry: "12/99", CVC: "123", Name: "Seeded subscriber"}); err != nil {
		return store.Card{}, fmt.Errorf("save test card: %w", err)
	}
	if cs, err = p.RetrieveCheckout(ctx, cs.ID); err != nil || cs.Card == nil {
		return store.Card{}, fmt.Errorf("save test card: %v", err)
	}
	return jobs.CardOf(*cs.Card, ref), nil
}

// engine is what openStore connected to: its health, which every request
// of the store goes through, and for the shop's own DynamoDB Local while
// serving, the watcher that restarts it.
type engine struct {
	health *store.Health
	// lost receives why the watcher gave up restarting the shop's own
	// engine; nothing ever comes for an engine elsewhere.
	lost    chan error
	watcher *dynamolocal.Watcher
	stop    func()
}

// openStore connects to the configured engine, starting DynamoDB Local under
// the data dir when none is configured; serving, it watches that engine.
func openStore(ctx context.Context, cfg config, serving bool, log *slog.Logger, obs store.Observer) (*store.Store, *engine, error) {
	eng := &engine{health: store.NewHealth(store.Breaker{Log: log}), lost: make(chan error, 1), stop: func() {}}
	endpoint := cfg.endpoint
	endpointFile := filepath.Join(cfg.dataDir, "dynamodb-endpoint")
	if endpoint == "" {
		// A shop serving from this data dir runs its DynamoDB Local: use that
		// engine rather than start a second one on the same files.
		if running := runningEngine(endpointFile); running != "" {
			if serving {
				return nil, nil, fmt.Errorf("a shop is already serving from %s (its DynamoDB Local answers at %s)", cfg.dataDir, running)
			}
			log.Info("using the running shop's DynamoDB Local", "endpoint", running)
			endpoint = running
		}
	}
	switch endpoint {
	case "aws":
		endpoint = ""
	case "":
		started := time.Now()
		data := filepath.Join(cfg.dataDir, "dynamodb")
		local, err := dynamolocal.Start(ctx, dynamolocal.Options{DataDir: data, Log: engineLog(log)})
		if err != nil {
			return nil, nil, err
		}
		log.Info("DynamoDB Local started", "endpoint", local.Endpoint, "data", data, "took", time.Since(started).Round(time.Millisecond))
		endpoint = local.Endpoint
		if !serving {
			eng.stop = func() {
				local.Stop()
				log.Info("DynamoDB Local stopped")
			}
			break
		}
		if err := os.WriteFile(endpointFile, []byte(endpoint+"\n"), 0o600); err != nil {
			local.Stop()
			return nil, nil, fmt.Errorf("note the engine's address: %w", err)
		}
		// The watcher restarts the engine on the same port, so the client
		// below keeps its endpoint; while it is down, requests fail at once.
		eng.watcher = dynamolocal.Watch(local, dynamolocal.WatchOptions{
			Log: log, Down: eng.health.EngineDown, Up: eng.health.EngineUp,
		})
		watchCtx, stopWatching := context.WithCancel(context.WithoutCancel(ctx))
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			if err := eng.watcher.Run(watchCtx); err != nil {
				eng.health.EngineDown(err)
				eng.lost <- err
			}
		}()
		eng.stop = func() {
			began := time.Now()
			stopWatching()
			<-watched
			_ = os.Remove(endpointFile)
			eng.watcher.Stop()
			log.Info("DynamoDB Local stopped", "took", time.Since(began).Round(time.Millisecond))
		}
	}
	client, err := store.NewClient(ctx, store.ClientConfig{Endpoint: endpoint, Health: eng.health}, obs)
	if err != nil {
		eng.stop()
		return nil, nil, err
	}
	loc, err := time.LoadLocation(cfg.tz)
	if err != nil {
		eng.stop()
		return nil, nil, err
	}
	// Both were checked when the flags were read.
	series, err := store.ParseBookSeries(cfg.invoiceSeries)
	if err != nil {
		eng.stop()
		return nil, nil, err
	}
	vat, err := store.ParseVATRates(cfg.vatRates)
	if err != nil {
		eng.stop()
		return nil, nil, err
	}
	opts := []store.Option{store.WithTimeZone(loc), store.WithReminderLead(cfg.reminderDays),
		store.WithReturnDays(cfg.returnDays),
		store.WithDropMaxDays(cfg.dropMaxDays),
		store.WithBillingShards(cfg.billingShards), store.WithListShards(cfg.listShards),
		store.WithBookSeries(series), store.WithVATRates(vat), store.WithCurrency(cfg.currency)}
	if cfg.endpoint == "aws" {
		opts = append(opts, store.OnAmazonDynamoDB())
	}
	return store.New(client, cfg.table, opts...), eng, nil
}

// runningEngine is the address in the endpoint file if an engine answers
// there, else "".
func runningEngine(file string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	ep := strings.TrimSpace(string(b))
	u, err := url.Parse(ep)
	if err != nil || u.Host == "" {
		return ""
	}
	conn, err := net.DialTimeout("tcp", u.Host, time.Second)
	if err != nil {
		return "" // left behind by a shop that did not stop cleanly
	}
	conn.Close()
	return ep
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
		loaded, err := demo.Load(ctx, st, cfg.bcryptCost)
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
		sched, err = jobs.NewScheduler(runner, st, loc, jobs.Schedules{Reminders: cfg.remindersCron, Payments: cfg.paymentsCron, Archive: cfg.archiveCron, CardRefunds: cfg.cardRefundsCron}, log)
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
			if err := sched.RunNow(jobs.JobArchive, st.Today()); err != nil {
				log.Info("archive at start", "why not", err)
			}
		}
		log.Info("billing jobs scheduled", "reminders", cfg.remindersCron, "payments", cfg.paymentsCron, "archive", cfg.archiveCron, "card refunds", cfg.cardRefundsCron, "tz", cfg.tz)

		// Mail leaves the outbox by SMTP, or stays there (the admin shows it).
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
		Store: st, Gateway: gateway, Log: log, Metrics: metrics, SessionKeys: keys,
		SecureCookies: cfg.secure, BcryptCost: cfg.bcryptCost, ShuttingDown: &shuttingDown,
		ProxyHeader: cfg.proxyHeader, TrustedProxies: proxies, Replica: cfg.replica, Jobs: scheduler, Health: eng.health,
		Shelf: shelf, BaseURL: cfg.mailBaseURL(), Archive: books, ArchiveWhere: archiveWhere(cfg),
		Payments: pay.providers, PaymentHold: pay.hold, Settler: pay.settler, SubscriptionPayments: pay.subscriptions,
		Refunds: payment.NewCardRefunds(pay.providers, gateway), StripeDashboard: pay.dashboard,
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

// photoShelf is where product photos are kept: the S3 bucket of
// SHOP_MEDIA_BUCKET, or <data dir>/media (one replica only: the others
// would not see its photos).
func photoShelf(ctx context.Context, cfg config, log *slog.Logger) (photos.Shelf, error) {
	if cfg.mediaBucket != "" {
		log.Info("product photos are kept in S3", "bucket", cfg.mediaBucket)
		return photos.NewBucket(ctx, cfg.mediaBucket)
	}
	dir := filepath.Join(cfg.dataDir, "media")
	log.Info("product photos are kept on disk (set SHOP_MEDIA_BUCKET for more than one replica)", "dir", dir)
	return photos.Disk{Dir: dir}, nil
}

// booksArchive is the archive of the books: the S3 bucket of
// SHOP_ARCHIVE_BUCKET, or <data dir>/archive (one replica only).
func booksArchive(ctx context.Context, cfg config, st *store.Store, log *slog.Logger) (*archive.Archiver, error) {
	a := &archive.Archiver{Store: st, Sections: archive.Sections(st)}
	if cfg.archiveBucket != "" {
		b, err := archive.NewBucket(ctx, cfg.archiveBucket)
		if err != nil {
			return nil, err
		}
		log.Debug("the archive of the books is kept in S3", "bucket", cfg.archiveBucket)
		a.Shelf = b
		return a, nil
	}
	a.Shelf = archive.Disk{Dir: cfg.dataDir}
	return a, nil
}

// archiveWhere says where the archive's files are kept, for staff.
func archiveWhere(cfg config) views.ArchivePlace {
	if cfg.archiveBucket != "" {
		return views.ArchivePlace{Bucket: cfg.archiveBucket}
	}
	return views.ArchivePlace{Dir: filepath.Join(cfg.dataDir, "archive")}
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

// importWorkbench imports each model file and prints what it wrote and what
// it could not take.
func importWorkbench(ctx context.Context, st *store.Store, files []string, out io.Writer) error {
	failed := 0
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		rep, err := st.ImportWorkbench(ctx, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(out, "%s: wrote %d items, could not take %d\n", name, len(rep.Written), len(rep.Skipped))
		for _, w := range rep.Written {
			fmt.Fprintf(out, "  wrote    %s\n", w)
		}
		for _, s := range rep.Skipped {
			fmt.Fprintf(out, "  skipped  %s\n", s)
		}
		failed += len(rep.Skipped)
	}
	if failed > 0 {
		fmt.Fprintf(out, "%d items could not be taken (see above)\n", failed)
	}
	return nil
}
