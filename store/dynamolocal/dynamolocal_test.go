package dynamolocal_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"shop/store"
	"shop/store/dynamolocal"
)

// helperEnv makes this test binary a process that starts an engine, says
// so and waits to be killed (TestKilledShopLeavesNoLauncherBehind).
const helperEnv = "DYNAMOLOCAL_TEST_HELPER"

func TestHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("run by TestKilledShopLeavesNoLauncherBehind")
	}
	e, err := dynamolocal.Start(context.Background(), dynamolocal.Options{})
	if err != nil {
		fmt.Println("failed:", err)
		os.Exit(1)
	}
	fmt.Println("ready", e.Endpoint)
	select {}
}

// kill -9 of a shop runs none of its cleanup: what it leaves in the temp
// dir must not pile up. Its engine's launcher is gone once the engine is
// up, and a Start removes what a shop killed earlier (during its engine's
// start) left behind, but nothing a living process may still need.
func TestKilledShopLeavesNoLauncherBehind(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)

	helper := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	helper.Env = append(os.Environ(), helperEnv+"=1")
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if !strings.HasPrefix(line, "ready") {
		_ = helper.Process.Kill()
		t.Fatalf("helper: %q %v", line, err)
	}
	if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = helper.Wait()
	if left := launcherDirs(t, tmp); len(left) != 0 {
		t.Fatalf("a killed shop left %v in the temp dir", left)
	}

	// What shops killed while their engine started left, and what is not
	// stale: a dir of a living process, a recent dir named the old way.
	dead := filepath.Join(tmp, "dynamolocal-"+strconv.Itoa(helper.Process.Pid)+"-1")
	oldUnnamed := filepath.Join(tmp, "dynamolocal-123456")
	living := filepath.Join(tmp, "dynamolocal-"+strconv.Itoa(os.Getpid())+"-2")
	recentUnnamed := filepath.Join(tmp, "dynamolocal-654321")
	for _, d := range []string{dead, oldUnnamed, living, recentUnnamed} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "Launcher.java"), []byte("//"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	twoHoursAgo := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(oldUnnamed, twoHoursAgo, twoHoursAgo); err != nil {
		t.Fatal(err)
	}
	e, err := dynamolocal.Start(context.Background(), dynamolocal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Stop()
	want := []string{filepath.Base(living), filepath.Base(recentUnnamed)}
	slices.Sort(want) // as Glob lists them: the order depends on this process's id
	if got := launcherDirs(t, tmp); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("after a start the temp dir holds %v, want %v", got, want)
	}
}

func launcherDirs(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "dynamolocal-*"))
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range names {
		names[i] = filepath.Base(n)
	}
	return names
}

// A killed engine is started again on its port and its data: a client
// made before goes on working, with the table it had.
func TestWatcherRestartsAKilledEngine(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	ctx := context.Background()
	e, err := dynamolocal.Start(ctx, dynamolocal.Options{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	client, err := store.NewClient(ctx, store.ClientConfig{Endpoint: e.Endpoint})
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(client, "kept")
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}

	down, up := make(chan error, 4), make(chan struct{}, 4)
	w := dynamolocal.Watch(e, dynamolocal.WatchOptions{Down: func(err error) { down <- err }, Up: func() { up <- struct{}{} }})
	watchCtx, stopWatching := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- w.Run(watchCtx) }()
	defer func() {
		stopWatching()
		if err := <-ran; err != nil {
			t.Errorf("Run after its context ended: %v", err)
		}
		w.Stop()
	}()

	if err := e.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-down:
		if !strings.Contains(fmt.Sprint(err), "killed") {
			t.Errorf("down because %v, want the kill", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the watcher did not see the engine die")
	}
	select {
	case <-up:
	case err := <-ran:
		t.Fatalf("the watcher gave up: %v", err)
	case <-time.After(90 * time.Second):
		t.Fatal("the engine was not restarted")
	}
	if again := w.Engine(); again == e || again.Endpoint != e.Endpoint {
		t.Fatalf("restarted at %s, want a new engine at %s", again.Endpoint, e.Endpoint)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := st.Ping(pingCtx); err != nil {
		t.Fatalf("the old client over the restarted engine: %v", err)
	}
}
