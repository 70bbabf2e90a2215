package dropgate_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/dropgate"
	"shop/store/storetest"
)

// notices records what a gate's Notice is told.
type notices struct {
	mu  sync.Mutex
	got []string
}

func (n *notices) notice(_ context.Context, d store.Drop, typ string) {
	n.mu.Lock()
	n.got = append(n.got, typ+" "+d.ID)
	n.mu.Unlock()
}

func (n *notices) list() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.got...)
}

// The gate tells its Notice of a sell-out and of a drop open past its
// close once each, from what it knows: no request of its own, and none
// for the claims that neither sell out nor are refused.
func TestGateNoticesSoldOutAndDeadlineOnce(t *testing.T) {
	t.Parallel()
	var now time.Time
	var clockMu sync.Mutex
	clock := func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); return now }
	now = time.Now()
	env := storetest.New(t)
	ctx := ctxT(t, time.Minute)
	d, err := env.Store.CreateDrop(ctx, store.NewDrop{Title: "Noticed", Quantity: 2, Opens: now, Closes: now.Add(time.Hour), Published: true})
	if err != nil {
		t.Fatal(err)
	}
	g := dropgate.New(env.Store, clock)
	n := &notices{}
	g.OnNotice(n.notice)
	if _, err := g.Claim(ctx, store.ClaimRequest{DropID: d.ID, Client: "a", CustomerID: "a"}); err != nil {
		t.Fatal(err)
	}
	env.Counter.Reset()
	if _, err := g.Claim(ctx, store.ClaimRequest{DropID: d.ID, Client: "b", CustomerID: "b"}); err != nil {
		t.Fatal(err)
	}
	if ops := env.Counter.Ops(); env.Counter.Total() != 1 || ops["TransactWriteItems"] != 1 {
		t.Fatalf("a claim made %v", ops)
	}
	if got := n.list(); len(got) != 0 {
		t.Fatalf("told %v before the sell-out is known", got)
	}
	for _, who := range []string{"c", "d", "e"} {
		if _, err := g.Claim(ctx, store.ClaimRequest{DropID: d.ID, Client: who, CustomerID: who}); !errors.Is(err, store.ErrSoldOut) {
			t.Fatalf("claim %s: %v", who, err)
		}
	}
	g.Refresh(ctx)
	clockMu.Lock()
	now = now.Add(time.Hour)
	clockMu.Unlock()
	for _, who := range []string{"f", "g"} {
		if _, err := g.Claim(ctx, store.ClaimRequest{DropID: d.ID, Client: who, CustomerID: who}); !errors.Is(err, store.ErrDropClosed) {
			t.Fatalf("claim %s after the close: %v", who, err)
		}
	}
	g.Refresh(ctx)
	want := map[string]bool{store.EventDropSoldOut + " " + d.ID: true, store.EventDropClosed + " " + d.ID: true}
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		got := n.list()
		if len(got) == 2 && want[got[0]] && want[got[1]] && got[0] != got[1] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("told %v, want each of %v once", got, want)
		}
	}
	time.Sleep(50 * time.Millisecond)
	if got := n.list(); len(got) != 2 {
		t.Fatalf("told %v", got)
	}
}
