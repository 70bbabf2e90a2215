package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"shop/store"
	"shop/store/rules"
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
	hooksPrivate   bool // SHOP_WEBHOOK_ALLOW_PRIVATE: webhooks may go to http:// and local addresses
	remindersCron  string
	paymentsCron   string
	retryDays      string
	baseURL        string
	smtpURL        string
	mailFrom       string
	staffMail      string // SHOP_STAFF_MAIL: where staff's notices go (default the sender's address)
	mediaBucket    string
	// The books: invoice and receipt number series, VAT rates.
	invoiceSeries string
	vatRates      string
	archiveBucket string
	archiveCron   string
	// card refunds the gateway did not take, tried again
	cardRefundsCron string
	ticketStockCron string
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
	return c, cmd, c.check(cmd.name)
}

// check checks the settings the flags' types do not: ranges, and values
// other packages parse (time zone, currency, series, VAT rates).
func (c config) check(cmd string) error {
	if _, err := time.LoadLocation(c.tz); err != nil {
		return fmt.Errorf("SHOP_TZ %q: %w", c.tz, err)
	}
	if _, ok := rules.CurrencyOf(c.currency); !ok {
		return usagef("SHOP_CURRENCY %q: not a currency the shop prices in (%s)", c.currency, strings.Join(rules.Currencies(), ", "))
	}
	if _, err := store.ParseBookSeries(c.invoiceSeries); err != nil {
		return fmt.Errorf("SHOP_INVOICE_SERIES: %w", err)
	}
	if _, err := rules.ParseVATRates(c.vatRates); err != nil {
		return fmt.Errorf("SHOP_VAT_RATES %q: %w", c.vatRates, err)
	}
	if c.reminderDays < 0 || c.reminderDays > 28 {
		return fmt.Errorf("SHOP_REMINDER_DAYS %d: use 0 to 28 days", c.reminderDays)
	}
	if c.returnDays < 1 || c.returnDays > 365 {
		return fmt.Errorf("SHOP_RETURN_DAYS %d: use 1 to 365 days", c.returnDays)
	}
	if c.dropMaxDays < 1 || c.dropMaxDays > 3650 {
		return fmt.Errorf("SHOP_DROP_MAX_DAYS %d: use 1 to 3650 days", c.dropMaxDays)
	}
	if c.billingShards < 1 || c.billingShards > 64 {
		return fmt.Errorf("SHOP_BILLING_SHARDS %d: use 1 to 64", c.billingShards)
	}
	if c.listShards < 1 || c.listShards > 256 {
		return fmt.Errorf("SHOP_LIST_SHARDS %d: use 1 to 256", c.listShards)
	}
	if c.shutdownTimeout < time.Second || c.shutdownTimeout > 10*time.Minute {
		return fmt.Errorf("SHOP_SHUTDOWN_TIMEOUT %s: use 1s to 10m", c.shutdownTimeout)
	}
	if c.shutdownDrain < 0 || c.shutdownDrain >= c.shutdownTimeout {
		return fmt.Errorf("SHOP_SHUTDOWN_DRAIN %s: use 0 up to less than SHOP_SHUTDOWN_TIMEOUT (%s)", c.shutdownDrain, c.shutdownTimeout)
	}
	if c.replica != "" && !validReplicaName(c.replica) {
		return fmt.Errorf("SHOP_REPLICA %q: 1 to 64 letters, digits, '-', '_' and '.'", c.replica)
	}
	// Renewed at a third of its life: below 3 s a renewal could not finish.
	if c.leaseTTL < 3*time.Second || c.leaseTTL > time.Hour {
		return fmt.Errorf("SHOP_LEASE_TTL %s: use 3s to 1h", c.leaseTTL)
	}
	if cmd == "cluster" {
		return checkCluster(c)
	}
	return nil
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

// commonFlags declares the flags every command takes, each with its
// environment variable; a variable that does not parse is an error.
func commonFlags(fs *flag.FlagSet, c *config) error {
	stringFlags(fs, c)
	if err := boolFlags(fs, c); err != nil {
		return err
	}
	if err := intFlags(fs, c); err != nil {
		return err
	}
	return durationFlags(fs, c)
}

func stringFlags(fs *flag.FlagSet, c *config) {
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
		{&c.currency, "currency", "SHOP_CURRENCY", store.DefaultCurrency, "the currency the shop prices in, ISO 4217 (" + strings.Join(rules.Currencies(), ", ") + "); the table keeps the first one it met"},
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
		{&c.staffMail, "staff-mail", "SHOP_STAFF_MAIL", "", "where mails to staff go (a webhook endpoint disabled); unset: the sender's address"},
		{&c.mediaBucket, "media-bucket", "SHOP_MEDIA_BUCKET", "", "S3 bucket for product photos (needed for more than one replica); unset keeps them under the data dir"},
		{&c.invoiceSeries, "invoice-series", "SHOP_INVOICE_SERIES", "", "number invoices and receipts in several series, e.g. A,B (A-2026-000123); unset: one series"},
		{&c.vatRates, "vat-rates", "SHOP_VAT_RATES", rules.DefaultVATRates().String(), "VAT in percent: the standard rate, then category=rate"},
		{&c.archiveBucket, "archive-bucket", "SHOP_ARCHIVE_BUCKET", "", "S3 bucket for the archive of the books (needed for more than one replica); unset keeps it under <data dir>/archive"},
		{&c.archiveCron, "archive-cron", "SHOP_ARCHIVE_CRON", "0 5 * * *", "when the archive job looks for closed months to archive, cron in SHOP_TZ"},
		{&c.cardRefundsCron, "card-refunds-cron", "SHOP_CARD_REFUNDS_CRON", "*/15 * * * *", "when the card refunds job tries again the card refunds the gateway did not take, cron in SHOP_TZ"},
		{&c.ticketStockCron, "ticket-stock-cron", "SHOP_TICKET_STOCK_CRON", "*/15 * * * *", "when the ticket stock job gives back the units of product drop tickets that expired unused or were voided, cron in SHOP_TZ"},
	}
	for _, v := range strs {
		fs.StringVar(v.p, v.flag, env(v.ev, v.def), v.help+" ("+v.ev+")")
	}
}

func boolFlags(fs *flag.FlagSet, c *config) error {
	// The demo data (with its published staff password) loads by default only
	// into the DynamoDB Local the shop starts itself.
	demoDefault := os.Getenv("DYNAMODB_ENDPOINT") == ""
	bools := []struct {
		p        *bool
		flag, ev string
		def      bool
		help     string
	}{
		{&c.demo, "demo", "SHOP_DEMO", demoDefault, "load demo data on first start; default on only with the shop's own DynamoDB Local"},
		{&c.secure, "secure-cookies", "SHOP_SECURE_COOKIES", false, "mark cookies Secure; set behind HTTPS"},
		{&c.jobsOn, "jobs", "SHOP_JOBS", true, "run the billing jobs' scheduler in serve; false for web-only replicas"},
		{&c.hooksPrivate, "webhook-allow-private", "SHOP_WEBHOOK_ALLOW_PRIVATE", false, "let webhooks go to http:// URLs and local or private addresses, for development"},
	}
	for _, b := range bools {
		v, err := envBool(b.ev, b.def)
		if err != nil {
			return err
		}
		fs.BoolVar(b.p, b.flag, v, b.help+" ("+b.ev+")")
	}
	return nil
}

func intFlags(fs *flag.FlagSet, c *config) error {
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
	return nil
}

func durationFlags(fs *flag.FlagSet, c *config) error {
	leaseTTL, err := envParse("SHOP_LEASE_TTL", 30*time.Second, time.ParseDuration, "a duration such as 30s")
	if err != nil {
		return err
	}
	fs.DurationVar(&c.leaseTTL, "lease-ttl", leaseTTL, "life of a job's lease: a replica that dies holding one is taken over after about this long (SHOP_LEASE_TTL)")
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
