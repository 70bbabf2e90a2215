package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"shop/store/storetest/procmem"
)

// servingMemory is a serving shop's memory through a payment run.
type servingMemory struct {
	run   string // the scheduler's "job run" line
	views int64  // visitors' views served meanwhile
	mem   childMemory
}

// servingRun serves the shop's binary with env (its table holding
// subscriptions due today), the demo shop loaded and the payment job
// ticking each minute, and browses its storefront as visitors from 32
// clients until the scheduler logs the run; then it stops the shop and
// returns its memory through all of it.
func servingRun(t *testing.T, bin string, env []string) servingMemory {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve", "-bcrypt-cost", "4")
	cmd.Env = append(env, "SHOP_ADDR="+addr, "SHOP_DEMO=true", "SHOP_PAYMENTS_CRON=0 * * * * *")
	tail := &procmem.Tail{Max: 8000}
	ran := make(chan string, 1)
	trace := procmem.NewTrace(&runLine{tail: tail, ran: ran})
	cmd.Stdout, cmd.Stderr = trace, trace
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sh := &shopBinary{cmd: cmd, base: "http://" + addr}
	stop := procmem.Stopper(cmd, trace)
	t.Cleanup(stop)
	if err := sh.waitReady(5 * time.Minute); err != nil {
		stop()
		t.Fatalf("the shop did not start: %v\n%s", err, tail.String())
	}

	var (
		views atomic.Int64
		quit  atomic.Bool
		wg    sync.WaitGroup
		fail  atomic.Value
	)
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
	pages := []string{"/", "/products?category=coffee", "/products/cf-light", "/search?q=coffee", "/drops", "/cart"}
	for c := range 32 {
		wg.Go(func() {
			for i := c; !quit.Load(); i++ {
				resp, err := client.Get(sh.base + pages[i%len(pages)])
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if err == nil && resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("GET %s: status %d", pages[i%len(pages)], resp.StatusCode)
					}
				}
				if err != nil {
					fail.CompareAndSwap(nil, err)
					return
				}
				views.Add(1)
			}
		})
	}
	var line string
	select {
	case line = <-ran:
	case <-time.After(45 * time.Minute):
	}
	quit.Store(true)
	wg.Wait()
	mem, err := procmem.Of(cmd.Process.Pid)
	stop()
	if err != nil || line == "" {
		t.Fatalf("no payment run within 45 minutes (%v)\n%s", err, tail.String())
	}
	if err, _ := fail.Load().(error); err != nil {
		t.Errorf("visitors: %v", err)
	}
	return servingMemory{run: line, views: views.Load(), mem: childMemory{peakKB: mem.Peak, heap: trace.Heap(), stderr: tail.String()}}
}

// runLine hands lines on to tail and sends the scheduler's line of the
// payment job's run (done or failed) on ran.
type runLine struct {
	tail io.Writer
	ran  chan string
}

func (w *runLine) Write(p []byte) (int, error) {
	if s := string(p); strings.Contains(s, `msg="job run"`) && strings.Contains(s, "job=payments") {
		select {
		case w.ran <- strings.TrimSpace(s):
		default:
		}
	}
	return w.tail.Write(p)
}
