package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"shop/store"
	"shop/store/demo"
	"shop/store/payment"
	"shop/store/rules"
	"shop/store/storetest"
	"shop/store/storetest/procmem"
)

// TestPaymentRunMemory is the memory of a payment run measured apart from
// the load (go tool task bench-memory). SHOP_BENCH_DUE subscriptions due
// (default 10,000) among SHOP_BENCH_TOTAL (100,000) are seeded from this
// process; the shop's own binary charges them as a child process, `shop
// jobs run payments`; then as many again fall due and a serving shop (`shop
// serve`, the demo shop loaded, its payment job ticking each minute) charges
// them while 32 clients browse its storefront as visitors. For each the
// test prints the child's peak RSS and the Go heap its GC trace tells. A
// load run, not a check: set SHOP_BENCH=1.
func TestPaymentRunMemory(t *testing.T) {
	if os.Getenv("SHOP_BENCH") == "" {
		t.Skip("a load run: set SHOP_BENCH=1")
	}
	total, due := benchEnvInt(t, "SHOP_BENCH_TOTAL", 100_000), benchEnvInt(t, "SHOP_BENCH_DUE", 10_000)
	if due > total {
		t.Fatalf("SHOP_BENCH_DUE %d is more than SHOP_BENCH_TOTAL %d", due, total)
	}
	env := storetest.New(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "shop")
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, ".") // as the Dockerfile builds it
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Minute)
	defer cancel()
	shopEnv := append(os.Environ(), "DYNAMODB_ENDPOINT="+env.Endpoint, "SHOP_TABLE="+env.Table,
		"SHOP_DATA_DIR="+filepath.Join(dir, "data"), "GODEBUG=gctrace=1")

	// Due on today's date in UTC, which is never after the shop's today
	// (SHOP_TZ is east of it or UTC), the rest a month later.
	today := rules.DateOf(time.Now(), time.UTC)
	started := time.Now()
	seedSubscribers(t, ctx, env.Store, total-due, today.AddDate(0, 1, 0))
	seedSubscribers(t, ctx, env.Store, due, today)
	t.Logf("seeded %d subscriptions (%d due %s) in %v", total, due, store.FormatDate(today), time.Since(started).Round(time.Second))

	// --force: no lease of the date, which the serving shop's tick takes below.
	cmd := exec.CommandContext(ctx, bin, "jobs", "run", "payments", "-date", store.FormatDate(today), "-force")
	cmd.Env = append(shopEnv, "SHOP_LOG_LEVEL=warn")
	var out strings.Builder
	cmd.Stdout = &out
	m := runMeasured(t, cmd)
	last := strings.TrimSpace(out.String())
	last = last[strings.LastIndexByte(last, '\n')+1:]
	var counts struct {
		Charged int     `json:"charged"`
		Outcome string  `json:"outcome"`
		Seconds float64 `json:"seconds"`
	}
	if err := json.Unmarshal([]byte(last), &counts); err != nil {
		t.Fatalf("the run's last line %q: %v\n%s", last, err, m.stderr)
	}
	if counts.Charged != due {
		t.Errorf("charged %d of %d due (outcome %s)", counts.Charged, due, counts.Outcome)
	}
	fmt.Printf("\nPayment run of %d due among %d, the shop's binary alone (shop jobs run payments, a child process):\n", due, total)
	fmt.Printf("%d charged in %.1f s; %s\n", counts.Charged, counts.Seconds, m)

	seedSubscribers(t, ctx, env.Store, due, today)
	s := servingRun(t, bin, shopEnv)
	fmt.Printf("\nThe same in a serving shop (shop serve, the demo shop, 32 clients browsing as visitors meanwhile: %d views):\n", s.views)
	fmt.Printf("%s; %s\n", s.run, s.mem)
}

// childMemory is what a child process's memory was through its run.
type childMemory struct {
	peakKB int // its peak RSS: the kernel's high-water mark
	heap   procmem.Heap
	stderr string // its last lines, for a failure's message
}

func (m childMemory) String() string {
	return fmt.Sprintf("peak RSS %.1f MiB; Go heap at most %d MB, at most %d MB live after a collection (%d collections)",
		procmem.MiB(m.peakKB), m.heap.Largest, m.heap.Live, m.heap.GCs)
}

// runMeasured runs cmd (with GODEBUG=gctrace=1 in its environment) to its
// end and returns its memory. The peak is VmHWM read every 20 ms: not the
// ru_maxrss wait gives, which on Linux keeps the high-water mark of the
// memory the child had before its exec, this test process's own (large
// after seeding) since Go starts a child sharing it.
func runMeasured(t *testing.T, cmd *exec.Cmd) childMemory {
	t.Helper()
	tail := &procmem.Tail{Max: 8000}
	trace := procmem.NewTrace(tail)
	cmd.Stderr = trace
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := procmem.Watch(cmd.Process.Pid, 20*time.Millisecond)
	err := cmd.Wait()
	last, _, werr := stop()
	if cerr := trace.Close(); err == nil {
		err = cerr
	}
	m := childMemory{peakKB: last.Peak, heap: trace.Heap(), stderr: tail.String()}
	if err == nil {
		err = werr
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, m.stderr)
	}
	return m
}

// seedSubscribers writes n subscriptions due on due, paid by the test
// provider's cards, as `shop seed subscriptions` does but several batches
// at once.
func seedSubscribers(t *testing.T, ctx context.Context, st *store.Store, n int, due time.Time) {
	t.Helper()
	p, err := payment.NewTestProvider(ctx, st, "")
	if err != nil {
		t.Fatal(err)
	}
	var g errgroup.Group
	g.SetLimit(8)
	const chunk = 2000
	for start := 0; start < n; start += chunk {
		g.Go(func() error {
			var quiet strings.Builder
			_, err := demo.SeedSubscriptions(ctx, st, p, min(chunk, n-start), due, 0, &quiet)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
}

func benchEnvInt(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive count", name, s)
	}
	return n
}
