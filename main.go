// Command shop runs the online shop: its storefront, its staff console, and
// (with no DYNAMODB_ENDPOINT) its own DynamoDB Local.
//
//	shop [serve]   start the shop (the default)
//	shop migrate   create or update the table
//	shop seed      load the demo data (once per table)
//	shop import-workbench FILE...
//	               write the sample items of NoSQL Workbench models
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	_ "time/tzdata" // SHOP_TZ works on machines without a zone database

	"shop/store"
	"shop/store/demo"
	"shop/store/dynamolocal"
	"shop/store/payment"
	"shop/web"
)

type config struct {
	addr        string
	endpoint    string
	table       string
	dataDir     string
	tz          string
	sessionKeys string
	demo        bool
	secure      bool
	proxyHeader string
	proxies     string
	files       []string // import-workbench
	bcryptCost  int
	logLevel    string
	// Recurring payments.
	reminderDays  int
	billingShards int
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

// envInt reads a whole-number variable; a value that is not one is an error.
func envInt(name string, def int) (int, error) {
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%q is not a whole number", name, v)
	}
	return n, nil
}

// envBool reads a boolean variable; a value that is not one is an error,
// not the default: SHOP_DEMO=off must not quietly mean on.
func envBool(name string, def bool) (bool, error) {
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q is not true or false", name, v)
	}
	return b, nil
}

func parseConfig(args []string) (config, string, error) {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	var c config
	fs := flag.NewFlagSet("shop "+cmd, flag.ContinueOnError)
	fs.StringVar(&c.addr, "addr", env("SHOP_ADDR", "127.0.0.1:8080"), "listen address (SHOP_ADDR)")
	fs.StringVar(&c.endpoint, "dynamodb-endpoint", env("DYNAMODB_ENDPOINT", ""), "DynamoDB endpoint; empty starts DynamoDB Local, \"aws\" uses AWS (DYNAMODB_ENDPOINT)")
	fs.StringVar(&c.table, "table", env("SHOP_TABLE", "shop"), "table name (SHOP_TABLE)")
	fs.StringVar(&c.dataDir, "data-dir", env("SHOP_DATA_DIR", "./data"), "DynamoDB Local data and generated keys (SHOP_DATA_DIR)")
	fs.StringVar(&c.tz, "tz", env("SHOP_TZ", "Europe/Stockholm"), "the shop's time zone for billing dates (SHOP_TZ)")
	fs.StringVar(&c.sessionKeys, "session-keys", env("SHOP_SESSION_KEYS", ""), "comma-separated session signing keys, hex or base64, 32+ bytes; the first signs (SHOP_SESSION_KEYS)")
	// The demo data (with its published staff password) loads by default only
	// into the DynamoDB Local the shop starts itself.
	demoDefault := os.Getenv("DYNAMODB_ENDPOINT") == ""
	demo, err := envBool("SHOP_DEMO", demoDefault)
	if err != nil {
		return c, cmd, err
	}
	secure, err := envBool("SHOP_SECURE_COOKIES", false)
	if err != nil {
		return c, cmd, err
	}
	fs.BoolVar(&c.demo, "demo", demo, "load demo data on first start; default on only with the shop's own DynamoDB Local (SHOP_DEMO)")
	fs.BoolVar(&c.secure, "secure-cookies", secure, "mark cookies Secure; set behind HTTPS (SHOP_SECURE_COOKIES)")
	fs.StringVar(&c.proxyHeader, "proxy-header", env("SHOP_PROXY_HEADER", ""), "header with the client address set by a reverse proxy, e.g. X-Forwarded-For (SHOP_PROXY_HEADER)")
	fs.StringVar(&c.proxies, "trusted-proxies", env("SHOP_TRUSTED_PROXIES", ""), "comma-separated addresses or CIDRs of the proxies believed (SHOP_TRUSTED_PROXIES)")
	fs.IntVar(&c.bcryptCost, "bcrypt-cost", 11, "bcrypt cost of password hashes")
	reminderDays, err := envInt("SHOP_REMINDER_DAYS", store.DefaultReminderLead)
	if err != nil {
		return c, cmd, err
	}
	shards, err := envInt("SHOP_BILLING_SHARDS", store.DefaultBillingShards)
	if err != nil {
		return c, cmd, err
	}
	fs.IntVar(&c.reminderDays, "reminder-days", reminderDays, "days between a subscription's reminder and its payment (SHOP_REMINDER_DAYS)")
	fs.IntVar(&c.billingShards, "billing-shards", shards, "shards of the billing-due indexes of a new table; fixed once the table exists (SHOP_BILLING_SHARDS)")
	fs.StringVar(&c.logLevel, "log-level", env("SHOP_LOG_LEVEL", "info"), "debug, info, warn or error (SHOP_LOG_LEVEL)")
	if err := fs.Parse(args); err != nil {
		return c, cmd, err
	}
	c.files = fs.Args()
	if c.reminderDays < 0 || c.reminderDays > 28 {
		return c, cmd, fmt.Errorf("SHOP_REMINDER_DAYS %d: use 0 to 28 days", c.reminderDays)
	}
	if c.billingShards < 1 || c.billingShards > 64 {
		return c, cmd, fmt.Errorf("SHOP_BILLING_SHARDS %d: use 1 to 64", c.billingShards)
	}
	if _, err := time.LoadLocation(c.tz); err != nil {
		return c, cmd, fmt.Errorf("SHOP_TZ %q: %w", c.tz, err)
	}
	return c, cmd, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
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

	switch cmd {
	case "serve", "migrate", "seed", "import-workbench":
	default:
		return fmt.Errorf("unknown command %q (want serve, migrate, seed or import-workbench)", cmd)
	}
	if cmd == "import-workbench" && len(cfg.files) == 0 {
		return errors.New("import-workbench needs one or more model files")
	}

	metrics := web.NewMetrics()
	st, shutdownEngine, err := openStore(ctx, cfg, log, metrics)
	if err != nil {
		return err
	}
	defer shutdownEngine()

	store.MigrateLog = log.Info
	if err := st.Migrate(ctx); err != nil {
		return err
	}
	switch cmd {
	case "migrate":
		log.Info("table ready", "table", cfg.table)
		return nil
	case "seed":
		loaded, err := demo.Load(ctx, st, cfg.bcryptCost)
		log.Info("demo data", "loaded_now", loaded, "table", cfg.table)
		return err
	case "import-workbench":
		return importWorkbench(ctx, st, cfg.files, os.Stdout)
	}
	return serve(ctx, cfg, st, log, metrics)
}

// openStore connects to the configured engine, starting DynamoDB Local under
// the data dir when none is configured.
func openStore(ctx context.Context, cfg config, log *slog.Logger, obs store.Observer) (*store.Store, func(), error) {
	endpoint, stop := cfg.endpoint, func() {}
	switch endpoint {
	case "aws":
		endpoint = ""
	case "":
		started := time.Now()
		eng, err := dynamolocal.Start(ctx, dynamolocal.Options{DataDir: filepath.Join(cfg.dataDir, "dynamodb"), Log: engineLog(log)})
		if err != nil {
			return nil, nil, err
		}
		log.Info("DynamoDB Local started", "endpoint", eng.Endpoint, "data", filepath.Join(cfg.dataDir, "dynamodb"), "took", time.Since(started).Round(time.Millisecond))
		endpoint = eng.Endpoint
		stop = func() {
			eng.Stop()
			log.Info("DynamoDB Local stopped")
		}
	}
	client, err := store.NewClient(ctx, store.ClientConfig{Endpoint: endpoint}, obs)
	if err != nil {
		stop()
		return nil, nil, err
	}
	loc, err := time.LoadLocation(cfg.tz)
	if err != nil {
		stop()
		return nil, nil, err
	}
	return store.New(client, cfg.table, store.WithTimeZone(loc), store.WithReminderLead(cfg.reminderDays),
		store.WithBillingShards(cfg.billingShards)), stop, nil
}

func engineLog(log *slog.Logger) io.Writer {
	if log.Enabled(context.Background(), slog.LevelDebug) {
		return os.Stderr
	}
	return io.Discard
}

func serve(ctx context.Context, cfg config, st *store.Store, log *slog.Logger, metrics *web.Metrics) error {
	if cfg.demo {
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
	app, err := web.New(web.Config{
		// The built-in test gateway: this shop takes no real payments yet.
		Store: st, Gateway: payment.NewTestGateway(st), Log: log, Metrics: metrics, SessionKeys: keys,
		SecureCookies: cfg.secure, BcryptCost: cfg.bcryptCost,
		ProxyHeader: cfg.proxyHeader, TrustedProxies: proxies,
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

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	return app.ShutdownWithTimeout(10 * time.Second)
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
