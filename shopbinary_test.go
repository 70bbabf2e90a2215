package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"shop/store/storetest/procmem"
)

// shopBinary is the shop binary serving on a free port of 127.0.0.1.
type shopBinary struct {
	cmd     *exec.Cmd
	base    string
	dataDir string
	logPath string
}

// startShopBinary builds the shop and serves the demo shop with its own
// DynamoDB Local under dir, its jobs off.
func startShopBinary(t *testing.T, dir string) *shopBinary {
	t.Helper()
	sh, logFile := launchShop(t, dir, append(os.Environ(), "SHOP_DATA_DIR="+filepath.Join(dir, "data"), "SHOP_JOBS=false"))
	t.Cleanup(func() {
		_ = sh.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- sh.cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the shop exited with %v:\n%s", err, sh.logTail())
			}
		case <-time.After(30 * time.Second):
			_ = sh.cmd.Process.Kill()
			t.Error("the shop did not stop within 30 s of SIGTERM")
		}
		logFile.Close()
	})
	if err := sh.waitReady(3 * time.Minute); err != nil {
		t.Fatalf("the shop did not start: %v\n%s", err, sh.logTail())
	}
	return sh
}

// launchShop builds the shop into dir and starts it serving on a free
// port of 127.0.0.1 with env, its log in dir; the caller stops it and
// closes the log.
func launchShop(t *testing.T, dir string, env []string) (*shopBinary, *os.File) {
	t.Helper()
	bin := buildShop(t, dir)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	sh := &shopBinary{base: "http://" + addr, dataDir: filepath.Join(dir, "data"), logPath: filepath.Join(dir, "shop.log")}
	logFile, err := os.Create(sh.logPath)
	if err != nil {
		t.Fatal(err)
	}
	sh.cmd = exec.Command(bin, "serve", "-bcrypt-cost", "4")
	sh.cmd.Env = append(env, "SHOP_ADDR="+addr)
	sh.cmd.Stdout, sh.cmd.Stderr = logFile, logFile
	if err := sh.cmd.Start(); err != nil {
		logFile.Close()
		t.Fatal(err)
	}
	return sh, logFile
}

// buildShop builds the shop binary into dir and returns its path.
// -trimpath, so that a fresh clone in another folder finds the packages
// an earlier build compiled in the build cache (without it the cache keys
// them by their folder).
func buildShop(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "shop")
	if out, err := exec.Command("go", "build", "-trimpath", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// killEngine kills -9 every Java process under the shop: its DynamoDB
// Local.
func (sh *shopBinary) killEngine() error {
	pids := descendants(sh.cmd.Process.Pid)
	killed := 0
	for _, pid := range pids {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if strings.TrimSpace(string(comm)) != "java" {
			continue
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err == nil {
			killed++
		}
	}
	if killed == 0 {
		return fmt.Errorf("no java process under the shop (pid %d; children %v)", sh.cmd.Process.Pid, pids)
	}
	return nil
}

func (sh *shopBinary) waitReady(within time.Duration) error {
	return procmem.WaitReady(sh.base, within)
}

func (sh *shopBinary) log() string {
	b, _ := os.ReadFile(sh.logPath)
	return string(b)
}

func (sh *shopBinary) logTail() string {
	l := sh.log()
	return l[max(0, len(l)-4000):]
}
