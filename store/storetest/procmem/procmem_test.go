package procmem_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"shop/store/storetest/procmem"
)

func TestParseStatus(t *testing.T) {
	for _, c := range []struct {
		name, status string
		want         procmem.Mem
		err          bool
	}{
		{"linux", "Name:\tshop\nVmPeak:\t 1300000 kB\nVmHWM:\t   48212 kB\nVmRSS:\t   40100 kB\nThreads:\t9\n", procmem.Mem{RSS: 40100, Peak: 48212}, false},
		{"no memory lines (a kernel thread)", "Name:\tkthreadd\nThreads:\t1\n", procmem.Mem{}, true},
		{"not a count", "VmHWM:\t lots kB\nVmRSS:\t 1 kB\n", procmem.Mem{}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := procmem.ParseStatus(c.status)
			if (err != nil) != c.err || got != c.want {
				t.Errorf("ParseStatus = %+v, %v; want %+v, error %v", got, err, c.want, c.err)
			}
		})
	}
}

func TestThisProcessHasMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: not Linux")
	}
	m, err := procmem.Of(0)
	if err != nil || m.RSS <= 0 || m.Peak < m.RSS {
		t.Fatalf("Of(self) = %+v, %v", m, err)
	}
	last, largest, err := procmem.Watch(os.Getpid(), time.Millisecond)()
	if err != nil || last.Peak < last.RSS || largest < last.RSS {
		t.Fatalf("Watch(self) = %+v, %d, %v", last, largest, err)
	}
}

func TestTraceKeepsTheLargestHeap(t *testing.T) {
	var out strings.Builder
	tr := procmem.NewTrace(&out)
	lines := "time=… level=INFO msg=\"serving\"\n" +
		"gc 1 @0.025s 5%: 0.14+4.6+0.008 ms clock, 0.29+1.5/1.9/0+0.016 ms cpu, 3->4->1 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P\n" +
		"gc 2 @1.043s 6%: 0.30+2.2+0.003 ms clock, 0.60+0.60/2.0/0.33+0.006 ms cpu, 41->43->20 MB, 45 MB goal, 0 MB stacks, 0 MB globals, 2 P\n" +
		"gc 3 @2.5s 1%: 0.074+2.2+0.002 ms clock, 0.14+1.0/0/0+0.004 ms cpu, 30->31->12 MB, 40 MB goal, 0 MB stacks, 0 MB globals, 2 P (forced)\n"
	// Written in pieces that split lines, as a pipe hands them on.
	for _, piece := range []string{lines[:50], lines[50:170], lines[170:]} {
		if _, err := tr.Write([]byte(piece)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := tr.Heap(), (procmem.Heap{GCs: 3, Largest: 43, Live: 20}); got != want {
		t.Errorf("Heap = %+v, want %+v", got, want)
	}
	if out.String() != lines {
		t.Errorf("lines handed on:\n%s\nwant\n%s", out.String(), lines)
	}
}

// A tail holds the end of what was written, never much more than Max.
func TestTailKeepsTheEnd(t *testing.T) {
	tail := &procmem.Tail{Max: 10}
	for i := range 30 {
		fmt.Fprintf(tail, "line %02d\n", i)
	}
	if got := tail.String(); !strings.HasSuffix(got, "line 29\n") || len(got) > 20 || len(got) < 10 {
		t.Fatalf("tail %q", got)
	}
}
