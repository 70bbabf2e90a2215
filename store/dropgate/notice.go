package dropgate

import (
	"context"
	"time"

	"shop/store"
)

// What the gate notices: a drop that sold out (across its counters, or
// its last ticket taken on any replica) and a drop still open past its
// closing time. No single write makes these changes, so the gate, which
// reads every drop in use each second on every replica, tells its Notice
// the first time it sees each, once per drop it remembers. It adds no
// request to a claim: it looks at what the gate already knows.

// Notice is told of a drop's change the gate saw: store.EventDropSoldOut
// or store.EventDropClosed (its deadline passed while open). It runs in a
// goroutine of its own, with a context that outlives the request that
// saw the change by noticeTimeout.
type Notice func(ctx context.Context, d store.Drop, typ string)

const noticeTimeout = 10 * time.Second

// OnNotice sets the gate's Notice (nil: none).
func (g *Gate) OnNotice(n Notice) {
	g.mu.Lock()
	g.notice = n
	g.mu.Unlock()
}

// observe tells Notice of what st shows that it was not told yet.
// Called with g.mu held.
func (g *Gate) observe(ctx context.Context, st *dropState) {
	if g.notice == nil || st.drop.Status != store.DropOpen {
		return
	}
	d := st.drop
	d.Claimed = min(d.Quantity, d.Claimed+st.claimed)
	if st.soldOut && !st.told[store.EventDropSoldOut] {
		st.told[store.EventDropSoldOut] = true
		d.Claimed = d.Quantity
		g.tell(ctx, d, store.EventDropSoldOut)
	}
	if !g.now().Before(d.Closes) && !st.told[store.EventDropClosed] {
		st.told[store.EventDropClosed] = true
		g.tell(ctx, d, store.EventDropClosed)
	}
}

func (g *Gate) tell(ctx context.Context, d store.Drop, typ string) {
	n := g.notice
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), noticeTimeout)
	go func() {
		defer cancel()
		n(ctx, d, typ)
	}()
}
