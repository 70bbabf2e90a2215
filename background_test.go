package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A shop started in the background the way a script starts one, `nohup
// ./bin/shop serve > log 2>&1 &` from `sh -c` with no terminal and no
// stdin, outlives its DynamoDB Local child's SIGKILL: it answers /healthz
// all along (503 while the engine is down) and comes back to 200 on the
// engine it restarted; a hangup leaves it be (nohup). Killed itself
// (SIGKILL, as a harness cleaning up the process group of the command
// that started it does: a `nohup &` shop stays in that group), it takes
// its engine with it at once and logs nothing, which is what "the shop
// ended with no log line the moment its engine was killed" was.
func TestBackgroundShopOutlivesItsEngine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := buildShop(t, dir)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	sh := &shopBinary{base: "http://" + addr, dataDir: filepath.Join(dir, "data"), logPath: filepath.Join(dir, "shop.log")}
	// Its own engine (no endpoint), whatever the test's environment says.
	start := exec.Command("sh", "-c", `nohup "$0" serve -addr "$1" -data-dir "$2" -dynamodb-endpoint= -demo=false -jobs=false -bcrypt-cost 4 > "$3" 2>&1 & echo $!`,
		bin, addr, sh.dataDir, sh.logPath)
	start.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal, as in CI or a tool's shell
	out, err := start.Output()
	if err != nil {
		t.Fatalf("sh -c 'nohup …&': %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("the shop's pid: %q", out)
	}
	proc, _ := os.FindProcess(pid) // not this process's child: sh has gone
	sh.cmd = &exec.Cmd{Process: proc}
	t.Cleanup(func() {
		_ = proc.Signal(syscall.SIGTERM)
		for end := time.Now().Add(30 * time.Second); alive(pid) && time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		}
		if alive(pid) {
			_ = proc.Kill()
		}
		if t.Failed() {
			t.Logf("shop log:\n%s", sh.logTail())
		}
	})
	began := time.Now()
	if err := answersWhileAlive(pid, sh.base+"/healthz", http.StatusOK, 3*time.Minute, nil); err != nil {
		t.Fatalf("the shop did not start: %v", err)
	}
	t.Logf("the shop answered in %s", time.Since(began).Round(100*time.Millisecond))

	engine := engineOf(t, pid)
	killed := time.Now()
	if err := sh.killEngine(); err != nil {
		t.Fatal(err)
	}
	seen := map[int]int{}
	if err := answersWhileAlive(pid, sh.base+"/healthz", http.StatusServiceUnavailable, 10*time.Second, seen); err != nil {
		t.Fatalf("after its engine's SIGKILL: %v (answers %v)", err, seen)
	}
	if err := answersWhileAlive(pid, sh.base+"/healthz", http.StatusOK, 2*time.Minute, seen); err != nil {
		t.Fatalf("after its engine's SIGKILL: %v (answers %v)", err, seen)
	}
	t.Logf("back to 200 %s after the engine's kill; /healthz answered %v meanwhile",
		time.Since(killed).Round(100*time.Millisecond), seen)
	for _, want := range []string{"DynamoDB Local stopped; restarting it", "DynamoDB Local restarted"} {
		if !strings.Contains(sh.log(), want) {
			t.Errorf("the log does not say %q", want)
		}
	}
	restarted := engineOf(t, pid)
	if restarted == engine {
		t.Fatalf("the engine is still pid %d", engine)
	}

	// nohup's hangup stays ignored: the shop carries on.
	if err := proc.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if err := answersWhileAlive(pid, sh.base+"/healthz", http.StatusOK, 10*time.Second, seen); err != nil {
		t.Fatalf("after a SIGHUP under nohup: %v", err)
	}

	// The shop killed outright: the engine goes too, at once (Pdeathsig),
	// and does not sit on the data dir for the next shop.
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(5 * time.Second); alive(restarted); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the engine (pid %d) outlived the shop's SIGKILL by 5 s", restarted)
		}
	}
}

// answersWhileAlive asks url until it answers want, at most within; every
// answer is counted in seen by status. An error if the process pid ended
// or, once seen is kept, stopped answering: the shop died.
func answersWhileAlive(pid int, url string, want int, within time.Duration, seen map[int]int) error {
	deadline := time.Now().Add(within)
	for {
		a, err := get(url)
		var refused *net.OpError
		switch {
		case !alive(pid):
			return fmt.Errorf("the shop (pid %d) ended", pid)
		case err == nil && seen != nil:
			seen[a.status]++
		case seen != nil && errors.As(err, &refused):
			return fmt.Errorf("the shop stopped answering: %w", err)
		}
		if err == nil && a.status == want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no %d from %s within %v (last: %d, %v)", want, url, within, a.status, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// alive says whether pid runs: not gone, not a zombie left unreaped.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
	return len(fields) > 0 && string(fields[0]) != "Z" && string(fields[0]) != "X"
}

// engineOf is the pid of the Java process under the shop's pid.
func engineOf(t *testing.T, pid int) int {
	t.Helper()
	for _, p := range descendants(pid) {
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p)); strings.TrimSpace(string(comm)) == "java" {
			return p
		}
	}
	t.Fatalf("no java process under the shop (pid %d)", pid)
	return 0
}
