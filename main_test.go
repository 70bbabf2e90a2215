package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"shop/jobs"
	"shop/store"
	"shop/store/demo"
	"shop/store/payment"
	"shop/store/storetest"
)

func TestSessionKeys(t *testing.T) {
	hex64 := strings.Repeat("ab", 32)
	b64 := "YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXphYmNkZWY=" // 32 bytes
	for _, tc := range []struct {
		name, raw string
		keys      int
		bad       bool
	}{
		{"one hex", hex64, 1, false},
		{"rotation", hex64 + "," + b64, 2, false},
		{"spaces", " " + hex64 + " , ", 1, false},
		{"short", "abcd", 0, true},
		{"garbage", "not a key!", 0, true},
		{"empty list", ",,", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys, err := sessionKeys(config{sessionKeys: tc.raw, dataDir: t.TempDir()})
			if (err != nil) != tc.bad || len(keys) != tc.keys {
				t.Fatalf("sessionKeys(%q) = %d keys, %v", tc.raw, len(keys), err)
			}
		})
	}
}

func TestSessionKeyIsGeneratedOnceAndKept(t *testing.T) {
	dir := t.TempDir()
	first, err := sessionKeys(config{dataDir: dir})
	if err != nil || len(first) != 1 || len(first[0]) != 64 {
		t.Fatalf("generated %v, %v", first, err)
	}
	st, err := os.Stat(filepath.Join(dir, "session-keys"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", st, err)
	}
	again, err := sessionKeys(config{dataDir: dir})
	if err != nil || string(again[0]) != string(first[0]) {
		t.Fatal("the key changed on restart: every session would be lost")
	}
}

func TestParseConfig(t *testing.T) {
	t.Setenv("SHOP_TABLE", "from-env")
	cfg, cmd, err := parseConfig([]string{"migrate", "-addr", "127.0.0.1:9999"})
	if err != nil || cmd.name != "migrate" || cfg.table != "from-env" || cfg.addr != "127.0.0.1:9999" {
		t.Fatalf("parseConfig = %+v %q %v", cfg, cmd.name, err)
	}
	if _, cmd, _ := parseConfig(nil); cmd.name != "serve" {
		t.Fatalf("default command %q", cmd.name)
	}
	if _, _, err := parseConfig([]string{"-tz", "Mars/Olympus"}); err == nil {
		t.Fatal("unknown time zone accepted")
	}
	if _, _, err := parseConfig([]string{"-currency", "XYZ"}); err == nil || !strings.Contains(err.Error(), "SHOP_CURRENCY") {
		t.Fatalf("unknown currency: %v", err)
	}
	t.Setenv("SHOP_CURRENCY", "KRW")
	if cfg, _, err := parseConfig(nil); err != nil || cfg.currency != "KRW" {
		t.Fatalf("SHOP_CURRENCY=KRW: %q %v", cfg.currency, err)
	}
	if cfg.shutdownTimeout != 20*time.Second || cfg.shutdownDrain != 0 {
		t.Fatalf("shutdown defaults: %v, drain %v", cfg.shutdownTimeout, cfg.shutdownDrain)
	}
	for _, args := range [][]string{{"-shutdown-timeout", "500ms"}, {"-shutdown-timeout", "1h"}, {"-shutdown-drain", "20s"}, {"-shutdown-drain", "-1s"}} {
		if _, _, err := parseConfig(args); err == nil || !strings.Contains(err.Error(), "SHOP_SHUTDOWN_") {
			t.Errorf("%v: %v, want refused", args, err)
		}
	}
	if cfg.dropMaxDays != 365 {
		t.Fatalf("a drop lasts at most %d days by default, want 365", cfg.dropMaxDays)
	}
	if cfg, _, err := parseConfig([]string{"-drop-max-days", "30"}); err != nil || cfg.dropMaxDays != 30 {
		t.Fatalf("-drop-max-days 30: %d, %v", cfg.dropMaxDays, err)
	}
	for _, days := range []string{"0", "3651"} {
		if _, _, err := parseConfig([]string{"-drop-max-days", days}); err == nil || !strings.Contains(err.Error(), "SHOP_DROP_MAX_DAYS") {
			t.Errorf("-drop-max-days %s: %v, want refused", days, err)
		}
	}
	cfg, cmd, err = parseConfig([]string{"jobs", "run", "payments", "--date", "2026-03-15", "--force"})
	if err != nil || cmd.name != "jobs run" || cfg.positional[0] != "payments" || cfg.date != "2026-03-15" || !cfg.force {
		t.Fatalf("jobs run: %+v %q %v", cfg, cmd.name, err)
	}
	cfg, cmd, err = parseConfig([]string{"seed", "subscriptions", "--count", "5", "--due", "2026-03-15", "--declining", "20"})
	if err != nil || cmd.name != "seed subscriptions" || cfg.count != 5 || cfg.declining != 20 {
		t.Fatalf("seed subscriptions: %+v %q %v", cfg, cmd.name, err)
	}
	t.Setenv("SHOP_SHUTDOWN_TIMEOUT", "soon")
	if _, _, err := parseConfig(nil); err == nil || !strings.Contains(err.Error(), `SHOP_SHUTDOWN_TIMEOUT="soon" is not a duration`) {
		t.Errorf("SHOP_SHUTDOWN_TIMEOUT=soon: %v", err)
	}
}

// Every subcommand refuses what it does not understand, by name, as a usage
// error (exit status 2), and runs nothing.
func TestCommandLineRefusesWhatItDoesNotUnderstand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"seed", "anything"}, `unexpected argument "anything"`},
		{[]string{"migrate", "extra-arg", "--table", "x"}, `unexpected argument "extra-arg"`},
		{[]string{"migrate", "--no-such-flag"}, "no-such-flag"},
		{[]string{"serve", "now"}, `unexpected argument "now"`},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"jobs"}, "jobs needs a subcommand: jobs run"},
		{[]string{"jobs", "run"}, "jobs run needs reminders|payments|archive|card-refunds|ticket-stock"},
		{[]string{"jobs", "run", "payments", "reminders"}, `unexpected argument "reminders"`},
		{[]string{"jobs", "run", "payments", "--date", "2026-03-15", "stray"}, `unexpected argument "stray"`},
		{[]string{"jobs", "run", "payments", "--force=maybe"}, "force"},
		{[]string{"import-workbench"}, "import-workbench needs FILE..."},
		{[]string{"seed", "subscriptions", "--count", "x"}, "count"},
		{[]string{"customers"}, "customers needs a subcommand: customers index"},
		{[]string{"customers", "index", "all"}, `unexpected argument "all"`},
		{[]string{"customers", "index", "--dry-run"}, "dry-run"},
		{[]string{"iam-policy", "shop"}, `unexpected argument "shop"`},
		{[]string{"migrate", "--dry-run=perhaps"}, "dry-run"},
		{[]string{"cluster", "now"}, `unexpected argument "now"`},
		{[]string{"cluster", "--replicas", "0"}, "--replicas 0: use 1 to 9"},
		{[]string{"cluster", "--replicas", "10"}, "--replicas 10"},
		{[]string{"cluster", "--addr", "0.0.0.0:8080"}, "loopback only"},
		{[]string{"cluster", "--addr", "127.0.0.1"}, "SHOP_ADDR"},
		{[]string{"cluster", "--addr", "127.0.0.1:8080", "--replica-port", "8079"}, "one of the replicas'"},
		{[]string{"cluster", "--replica-port", "65534"}, "not all ports"},
		{[]string{"cluster", "--engine-port", "8082"}, "taken by the proxy or a replica"},
		{[]string{"cluster", "--dynamodb-endpoint", "aws"}, "not on AWS"},
	} {
		_, _, err := parseConfig(tc.args)
		var usage usageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("shop %s: %v, want a usage error with %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
	// Arguments checked once the line parses: still usage errors, nothing run.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"jobs", "run", "refunds"}, `unknown job "refunds"`},
		{[]string{"jobs", "run", "payments", "--date", "15/03/2026"}, "--date"},
		{[]string{"seed", "subscriptions", "--count", "0", "--due", "2026-03-15"}, "--count must be a positive number"},
		{[]string{"seed", "subscriptions", "--count", "3", "--due", "tomorrow"}, "--due"},
		{[]string{"seed", "subscriptions", "--count", "3", "--due", "2026-03-15", "--declining", "101"}, "--declining"},
		{[]string{"iam-policy", "--account", "12"}, "12 digits"},
		{[]string{"iam-policy", "--region", "north"}, "not an AWS region"},
		{[]string{"iam-policy", "--table", "a*"}, "table"},
	} {
		err := run(context.Background(), append(tc.args, "--dynamodb-endpoint", "http://127.0.0.1:1"))
		var usage usageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("shop %s: %v, want a usage error with %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

// -h prints each command's help and is not an error.
func TestEveryCommandHasHelp(t *testing.T) {
	for _, c := range commands {
		args := append(strings.Fields(c.name), "-h")
		if _, _, err := parseConfig(args); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("shop %s -h: %v", c.name, err)
		}
	}
}

// shop jobs run prints its counts as JSON on its last line; the lease makes
// a second run of the same date refuse, --force runs it (charging nobody
// twice); a date after today is refused.
func TestJobsRunCommand(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := context.Background()
	gw := payment.NewTestGateway(env.Store)
	testPay, err := payment.NewTestProvider(ctx, env.Store, "http://shop.test")
	if err != nil {
		t.Fatal(err)
	}
	today := env.Store.Today()
	var out strings.Builder
	seeded, err := demo.SeedSubscriptions(ctx, env.Store, testPay, 12, today, 25, &out)
	if err != nil {
		t.Fatal(err)
	}
	if len(seeded) != 12 {
		t.Fatalf("seeded %d subscribers, want 12", len(seeded))
	}
	if !strings.Contains(out.String(), "seeded 12 of 12") {
		t.Fatalf("seed output: %s", out.String())
	}
	runner := jobs.NewRunner(env.Store, gw, jobs.Config{Replica: "test", Payments: payment.NewProviders(testPay)})
	last := func(s string) map[string]any {
		t.Helper()
		lines := strings.Split(strings.TrimSpace(s), "\n")
		var m map[string]any
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &m); err != nil {
			t.Fatalf("last line is not JSON: %q", lines[len(lines)-1])
		}
		return m
	}
	out.Reset()
	if err := runJob(ctx, runner, env.Store, jobs.JobPayments, today, false, &out); err != nil {
		t.Fatal(err)
	}
	got := last(out.String())
	if got["due"] != 12.0 || got["charged"] != 9.0 || got["declined"] != 3.0 || got["skipped"] != 0.0 || got["failed"] != 0.0 {
		t.Fatalf("counts %v", got)
	}
	out.Reset()
	if err := runJob(ctx, runner, env.Store, jobs.JobPayments, today, false, &out); err == nil || !strings.Contains(err.Error(), "already ran") {
		t.Fatalf("second run under the lease: %v", err)
	}
	out.Reset()
	if err := runJob(ctx, runner, env.Store, jobs.JobPayments, today, true, &out); err != nil {
		t.Fatal(err)
	}
	if got := last(out.String()); got["charged"] != 0.0 {
		t.Fatalf("forced rerun charged %v", got["charged"])
	}
	var usage usageError
	if err := runJob(ctx, runner, env.Store, jobs.JobPayments, today.AddDate(0, 0, 1), true, &out); !errors.As(err, &usage) {
		t.Fatalf("tomorrow: %v", err)
	}
}

func TestImportWorkbenchCommand(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	var out strings.Builder
	err := env.Store.ImportWorkbenchFiles(context.Background(), []string{"store/testdata/AnOnlineShop_14.json"}, &out)
	if err != nil || !strings.Contains(out.String(), "wrote 19 items, could not take 0") || !strings.Contains(out.String(), "warehouseItem p#99887/w#12376") {
		t.Fatalf("import-workbench: %v\n%s", err, out.String())
	}
	if err := env.Store.ImportWorkbenchFiles(context.Background(), []string{"no-such-file.json"}, &out); err == nil {
		t.Fatal("a missing file is not an error")
	}
}

func TestMain(m *testing.M) { storetest.Main(m) }

// shop migrate --dry-run prints the plan and changes nothing.
func TestMigrateDryRun(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := context.Background()
	var out strings.Builder
	if err := env.Store.WritePlan(ctx, &out); err != nil || !strings.Contains(out.String(), "is up to date: migrate would change nothing") {
		t.Fatalf("a migrated table: %v\n%s", err, out.String())
	}
	out.Reset()
	fresh := env.Table + "-new"
	if err := store.New(env.Client, fresh).WritePlan(ctx, &out); err != nil || !strings.Contains(out.String(), "- create table "+fresh+": on-demand") {
		t.Fatalf("a table to create: %v\n%s", err, out.String())
	}
	if plan, err := store.New(env.Client, fresh).PlanTable(ctx); err != nil || len(plan) == 0 {
		t.Fatalf("the dry run made the table: %q %v", plan, err)
	}
}

// shop iam-policy prints a policy for the table named, and needs no table.
func TestIAMPolicyCommand(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	err = run(context.Background(), []string{"iam-policy", "--table", "shop-prod", "--region", "eu-north-1", "--dynamodb-endpoint", "http://127.0.0.1:1"})
	os.Stdout = stdout
	w.Close()
	got, _ := io.ReadAll(r)
	if err != nil || !strings.Contains(string(got), `"arn:aws:dynamodb:eu-north-1:${aws:PrincipalAccount}:table/shop-prod/index/GSI1"`) {
		t.Fatalf("iam-policy: %v\n%s", err, got)
	}
}

// shop api-keys create adds an integration and prints its key's secret
// alone on its last line; the store keeps only its hash. --name is required and checked before anything
// starts.
func TestAPIKeysCreateCommand(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := context.Background()
	var out strings.Builder
	if err := createAPIKey(ctx, env.Store, "partner-1", &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	secret := lines[len(lines)-1]
	if !strings.HasPrefix(secret, "shop_") || strings.ContainsAny(secret, " \t") {
		t.Fatalf("last line is not the key: %q", out.String())
	}
	if !strings.Contains(out.String(), "not shown again") {
		t.Fatalf("no warning that the key is shown once: %q", out.String())
	}
	access, err := env.Store.APIAccess(ctx)
	if err != nil || len(access.Keys) != 1 || access.Keys[0].Integration != "partner-1" || access.Keys[0].ID != store.HashAPIKey(secret) ||
		len(access.Integrations) != 1 || access.Integrations[0].Name != "partner-1" {
		t.Fatalf("stored %+v, %v", access, err)
	}
	// The name is taken for good: a second integration of it is refused,
	// and so it is once the first is revoked.
	if err := createAPIKey(ctx, env.Store, "partner-1", &out); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second integration named partner-1: %v", err)
	}
	if err := env.Store.RevokeIntegration(ctx, "partner-1"); err != nil {
		t.Fatal(err)
	}
	if err := createAPIKey(ctx, env.Store, "partner-1", &out); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("integration named partner-1 after the first was revoked: %v", err)
	}

	cfg, cmd, err := parseConfig([]string{"api-keys", "create", "--name", "partner-2"})
	if err != nil || cmd.name != "api-keys create" || cfg.keyName != "partner-2" {
		t.Fatalf("parseConfig: %+v %q %v", cfg, cmd.name, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"api-keys"}, "api-keys needs a subcommand: api-keys create"},
		{[]string{"api-keys", "create", "partner"}, `unexpected argument "partner"`},
		{[]string{"api-keys", "create"}, "--name is required"},
		{[]string{"api-keys", "create", "--name", "  "}, "--name is required"},
		{[]string{"api-keys", "create", "--name", "has space"}, "--name"},
		{[]string{"api-keys", "create", "--name", strings.Repeat("x", 33)}, "--name"},
	} {
		err := run(ctx, append(tc.args, "--dynamodb-endpoint", "http://127.0.0.1:1"))
		var usage usageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("shop %s: %v, want a usage error with %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}
