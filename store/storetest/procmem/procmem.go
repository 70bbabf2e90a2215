// Package procmem reads a process's memory as the kernel counts it
// (/proc/<pid>/status) and the Go heap a child's GODEBUG=gctrace=1 lines
// tell, for the benchmarks that run the shop's binary as a child process
// and measure it apart from the load they send it. Linux only.
package procmem

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Mem is a process's resident memory in kB: now and at its peak.
type Mem struct {
	RSS  int // VmRSS
	Peak int // VmHWM, the high-water mark of VmRSS
}

// MiB is kB in MiB.
func MiB(kB int) float64 { return float64(kB) / 1024 }

// Of reads /proc/<pid>/status (pid 0: this process).
func Of(pid int) (Mem, error) {
	path := "/proc/self/status"
	if pid != 0 {
		path = fmt.Sprintf("/proc/%d/status", pid)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Mem{}, err
	}
	return ParseStatus(string(b))
}

// ParseStatus reads VmRSS and VmHWM from the text of /proc/<pid>/status.
func ParseStatus(status string) (Mem, error) {
	var m Mem
	var seen int
	for line := range strings.Lines(status) {
		name, v, ok := strings.Cut(line, ":")
		var p *int
		switch name {
		case "VmRSS":
			p = &m.RSS
		case "VmHWM":
			p = &m.Peak
		}
		if !ok || p == nil {
			continue
		}
		kB, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
		if err != nil {
			return Mem{}, fmt.Errorf("%s: %q is not a count of kB", name, strings.TrimSpace(v))
		}
		*p = kB
		seen++
	}
	if seen != 2 {
		return Mem{}, fmt.Errorf("no VmRSS and VmHWM in the status (a kernel thread, or not Linux)")
	}
	return m, nil
}

// Heap is what a Go program's GC trace said of its heap, in MB: the
// largest heap a collection saw (at its start or end: live and garbage,
// the most the heap held) and the largest it left live.
type Heap struct {
	GCs           int
	Largest, Live int
}

// gcLine is one line of GODEBUG=gctrace=1: "gc 12 @3.1s 2%: ... ms cpu,
// 41->43->20 MB, 45 MB goal, ...": the heap at the start of the
// collection, at its end, and live after it.
var gcLine = regexp.MustCompile(`^gc \d+ @[\d.]+s \d+%: .* (\d+)->(\d+)->(\d+) MB`)

// Trace is an io.Writer for a child's stderr: it keeps what the GC trace
// lines say and hands every line on to out (nil: drops them).
type Trace struct {
	mu   sync.Mutex
	heap Heap
	pw   *io.PipeWriter
	done chan struct{}
}

// NewTrace starts reading lines written to it until Close.
func NewTrace(out io.Writer) *Trace {
	pr, pw := io.Pipe()
	t := &Trace{pw: pw, done: make(chan struct{})}
	go func() {
		defer close(t.done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			t.line(sc.Text())
			if out != nil {
				fmt.Fprintln(out, sc.Text())
			}
		}
		_, _ = io.Copy(io.Discard, pr) // a line past 1 MiB: drain the rest
	}()
	return t
}

func (t *Trace) Write(p []byte) (int, error) { return t.pw.Write(p) }

// Close ends the reading once every line written is read.
func (t *Trace) Close() error {
	err := t.pw.Close()
	<-t.done
	return err
}

func (t *Trace) line(s string) {
	m := gcLine.FindStringSubmatch(s)
	if m == nil {
		return
	}
	start, _ := strconv.Atoi(m[1])
	end, _ := strconv.Atoi(m[2]) // more than at the start: what was allocated while it ran
	live, _ := strconv.Atoi(m[3])
	t.mu.Lock()
	defer t.mu.Unlock()
	t.heap.GCs++
	t.heap.Largest = max(t.heap.Largest, start, end)
	t.heap.Live = max(t.heap.Live, live)
}

// Heap is what the lines read so far said.
func (t *Trace) Heap() Heap {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.heap
}

// Watch reads pid's memory every interval until stop is called, which
// returns the last reading (its Peak is the process's peak so far) and
// the largest RSS seen. A process gone meanwhile ends the watch with the
// readings made before.
func Watch(pid int, every time.Duration) (stop func() (last Mem, largestRSS int, err error)) {
	var (
		mu      sync.Mutex
		last    Mem
		largest int
		werr    error
	)
	read := func() bool {
		m, err := Of(pid)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			if last.Peak == 0 {
				werr = err
			}
			return false
		}
		last, largest = m, max(largest, m.RSS)
		return true
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for read() {
			select {
			case <-quit:
				return
			case <-tick.C:
			}
		}
	}()
	return func() (Mem, int, error) {
		close(quit)
		<-done
		read()
		mu.Lock()
		defer mu.Unlock()
		return last, largest, werr
	}
}

// Stopper is a stop for cmd, a child started with its output to trace:
// SIGTERM, then a kill after 30 s if it has not ended, then trace closed.
// It stops once, however often it is called (a test's cleanup and its
// failure path both call it).
func Stopper(cmd *exec.Cmd, trace *Trace) (stop func()) {
	var once sync.Once
	return func() {
		once.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				<-done
			}
			_ = trace.Close()
		})
	}
}

// Tail keeps the last Max bytes of a child's output written to it, for a
// failure's message.
type Tail struct {
	Max int
	b   strings.Builder
}

func (w *Tail) Write(p []byte) (int, error) {
	w.b.Write(p)
	if s := w.b.String(); len(s) > 2*w.Max {
		w.b.Reset()
		w.b.WriteString(s[len(s)-w.Max:])
	}
	return len(p), nil
}

// String is what is kept.
func (w *Tail) String() string { return w.b.String() }

// WaitReady waits for the shop at base to answer /readyz with 200.
func WaitReady(base string, within time.Duration) error {
	end := time.Now().Add(within)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
		if time.Now().After(end) {
			return fmt.Errorf("not ready after %s (last: %v)", within, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
