package web_test

import (
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"shop/store/storetest/procmem"
)

// aloneMemory is the shop's memory measured apart from the load: its own
// binary serving the bench's table as a child process, read from
// /proc/<pid>/status, with the Go heap its GC trace tells.
type aloneMemory struct {
	ready, end, peak procmem.Mem
	heap             procmem.Heap
}

// alone runs the bench's shop rows (not the plain pages, nor the bare page
// only the in-process shop has) for d each, then n cookieless GETs of each
// of paths, against the shop's binary (`shop serve` on this run's table,
// its jobs off, the test's session keys, so the signed-in customers' cookies
// are good there), and returns its memory through all of it.
func (l *load) alone(rows []benchView, d time.Duration, paths []string, n int) aloneMemory {
	b := l.b
	dir := b.TempDir()
	bin := filepath.Join(dir, "shop")
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "shop") // as the Dockerfile builds it
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build the shop: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	l.s.env.WrittenElsewhere("the shop's own binary serves it") // its writes are put back by a scan
	cmd := exec.Command(bin, "serve", "-bcrypt-cost", "4")
	cmd.Env = append(os.Environ(), "SHOP_ADDR="+addr, "DYNAMODB_ENDPOINT="+l.s.env.Endpoint, "SHOP_TABLE="+l.s.env.Table,
		"SHOP_DATA_DIR="+filepath.Join(dir, "data"), "SHOP_SESSION_KEYS="+hex.EncodeToString(keyA), "SHOP_JOBS=false",
		"SHOP_DEMO=false", "GODEBUG=gctrace=1")
	tail := &procmem.Tail{Max: 8000}
	trace := procmem.NewTrace(tail)
	cmd.Stdout, cmd.Stderr = trace, trace // the access log and the GC trace
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	stop := procmem.Stopper(cmd, trace)
	b.Cleanup(stop)
	base := "http://" + addr
	if err := procmem.WaitReady(base, 2*time.Minute); err != nil {
		stop()
		b.Fatalf("the shop's binary did not start: %v\n%s", err, tail.String())
	}

	var m aloneMemory
	read := func() procmem.Mem {
		mem, err := procmem.Of(cmd.Process.Pid)
		if err != nil {
			stop()
			b.Fatalf("the shop's memory: %v\n%s", err, tail.String())
		}
		return mem
	}
	m.ready = read()
	for _, v := range rows {
		if v.base != "" || v.path == barePath {
			continue
		}
		v.base = base
		l.measure(v, benchClients, 0)
		l.measure(v, 0, d)
	}
	for _, p := range paths {
		l.measure(benchView{name: p, path: p, base: base}, n, 0)
	}
	m.end = read()
	m.peak = m.end // VmHWM is the peak of the whole life
	stop()
	m.heap = trace.Heap()
	return m
}

func (m aloneMemory) print() {
	fmt.Printf("\nThe shop alone (its binary serving this table, a child process; the rows above but the plain and bare pages, then the cookieless GETs):\n")
	fmt.Printf("peak RSS %.1f MiB (%.1f MiB when ready, %.1f MiB after the load); Go heap at most %d MB, at most %d MB live after a collection (%d collections).\n",
		procmem.MiB(m.peak.Peak), procmem.MiB(m.ready.RSS), procmem.MiB(m.end.RSS), m.heap.Largest, m.heap.Live, m.heap.GCs)
}
