package store

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"
)

// The shop window: what visitors browse (catalogue pages, categories,
// product pages with their stock, the pages of /drops) read through a small
// in-process cache. However many requests want a key at once, one DynamoDB
// read answers them (single flight). Stock and drops are kept a second (a
// drop's opening and closing must show promptly), products and lists a
// minute; a write this replica makes (stock adjustment, checkout, product
// edit, a product drop setting stock aside, a drop made, closed or
// cancelled) drops what it touched at once, and the other replicas see it
// when their copy expires. Checkout, the cart's stock
// check and everything with money read the table, never the window.
//
// A map and a mutex serve: the entries are few (the whole catalogue, a
// sorted list per category and order, one per product viewed), expire
// within a minute, and the map is swept when it grows past
// windowMaxEntries.

const (
	windowStockTTL   = time.Second
	windowDropsTTL   = time.Second
	windowListTTL    = time.Minute
	windowMaxEntries = 10_000
	windowLoadWait   = 5 * time.Second
)

// Window reads the shop window of this store.
type Window struct {
	s       *Store
	flights singleflight.Group

	mu      sync.Mutex
	entries map[string]windowEntry
	// lists counts product and category changes, drops the drops made,
	// closed or cancelled here, zones the shipping zones changed here: a
	// page cached under an older count is stale.
	lists, drops, zones uint64
	// changes counts every change of the kinds above and of stock: what
	// was made from the window before it is stale (Changes).
	changes atomic.Uint64
}

type windowEntry struct {
	value   any
	expires time.Time
	gen     uint64 // the count of its kind (lists, drops) when it was read
}

type productWithStock struct {
	product Product
	stock   []StockLevel
	change  *PriceChange // its scheduled price change, if any
}

// Window is the store's shop window (one per Store, so one per replica).
func (s *Store) Window() *Window {
	s.windowOnce.Do(func() { s.window = &Window{s: s, entries: map[string]windowEntry{}} })
	return s.window
}

// Categories are the catalogue's categories, at most a minute old.
func (w *Window) Categories(ctx context.Context) ([]Category, error) {
	v, err := windowGet(ctx, w, "categories", windowListTTL, &w.lists, w.s.Categories)
	return slices.Clone(v), err
}

// ProductWithStock is a product and its stock, at most a second old.
func (w *Window) ProductWithStock(ctx context.Context, id string) (Product, []StockLevel, error) {
	v, err := w.product(ctx, id)
	return v.product, slices.Clone(v.stock), err
}

// ProductOnSale is a product's page as the window reads it, in one look
// (a product's page asked for the product and then its price change, two
// looks at one entry): the product, its stock in every warehouse, and its
// scheduled price change, nil when none is scheduled.
func (w *Window) ProductOnSale(ctx context.Context, id string) (Product, []StockLevel, *PriceChange, error) {
	v, err := w.product(ctx, id)
	var change *PriceChange
	if v.change != nil {
		c := *v.change // the window's own stays as read
		change = &c
	}
	return v.product, slices.Clone(v.stock), change, err
}

// errNoPriceChange is made once: most products have no change scheduled,
// and every signed-in view of one asks (a fresh error cost a tenth of the
// subscribe form's own work).
var errNoPriceChange = fmt.Errorf("no price change scheduled: %w", ErrNotFound)

// ProductPriceChange is a product's scheduled price change, at most a
// second old, from the same read as its page (the subscribe form's
// preview); ErrNotFound when none is scheduled.
func (w *Window) ProductPriceChange(ctx context.Context, id string) (PriceChange, error) {
	v, err := w.product(ctx, id)
	switch {
	case err != nil:
		return PriceChange{}, err
	case v.change == nil:
		return PriceChange{}, errNoPriceChange
	}
	return *v.change, nil
}

func (w *Window) product(ctx context.Context, id string) (productWithStock, error) {
	return windowGet(ctx, w, "product\x00"+id, windowStockTTL, nil, func(ctx context.Context) (productWithStock, error) {
		return w.s.productCollection(ctx, id)
	})
}

// PublishedDrops is a page of /drops (open and coming drops, closing
// soonest first), at most a second old.
func (w *Window) PublishedDrops(ctx context.Context, limit int, cursor string) (Page[Drop], error) {
	key := "drops\x00" + cursor + "\x00" + strconv.Itoa(limit)
	p, err := windowGet(ctx, w, key, windowDropsTTL, &w.drops, func(ctx context.Context) (Page[Drop], error) {
		return w.s.PublishedDrops(ctx, limit, cursor)
	})
	p.Items = slices.Clone(p.Items)
	return p, err
}

// windowGet answers key from the window while fresh, else loads it once
// for every caller waiting. A load outlives a caller that gives up (the
// others still want it), within windowLoadWait. Errors are not kept. gen,
// if not nil, is the count of changes (w.lists, w.drops) that make the
// entry stale; read and written under w.mu.
func windowGet[T any](ctx context.Context, w *Window, key string, ttl time.Duration, gen *uint64, load func(context.Context) (T, error)) (T, error) {
	now := w.s.now()
	w.mu.Lock()
	e, ok := w.entries[key]
	var seen uint64
	if gen != nil {
		seen = *gen
	}
	w.mu.Unlock()
	if ok && now.Before(e.expires) && e.gen == seen {
		noteRead(ctx, e.expires)
		return e.value.(T), nil
	}
	ch := w.flights.DoChan(key, func() (any, error) {
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), windowLoadWait)
		defer cancel()
		v, err := load(lctx)
		if err != nil {
			return nil, err
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if len(w.entries) >= windowMaxEntries {
			w.sweepLocked(w.s.now())
		}
		e := windowEntry{value: v, expires: now.Add(ttl), gen: seen}
		// A change made while loading is newer than what was read.
		if gen == nil || *gen == seen {
			w.entries[key] = e
		}
		return e, nil
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			var zero T
			return zero, r.Err
		}
		e := r.Val.(windowEntry) // perhaps loaded for an earlier caller
		noteRead(ctx, e.expires)
		return e.value.(T), nil
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// sweepLocked drops expired entries, and everything if that is not enough.
func (w *Window) sweepLocked(now time.Time) {
	for k, e := range w.entries {
		if !now.Before(e.expires) {
			delete(w.entries, k)
		}
	}
	if len(w.entries) >= windowMaxEntries {
		clear(w.entries)
	}
}

// forgetStock drops the products' pages: their stock changed here.
func (s *Store) forgetStock(productIDs ...string) {
	w := s.Window()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.changes.Add(1)
	for _, id := range productIDs {
		delete(w.entries, "product\x00"+id)
		w.flights.Forget("product\x00" + id)
	}
}

// forgetProducts drops the products' pages and every list: a product or a
// category changed here.
func (s *Store) forgetProducts(productIDs ...string) {
	s.forgetStock(productIDs...)
	w := s.Window()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lists++
	w.changes.Add(1)
	delete(w.entries, "categories")
	w.flights.Forget("categories")
}

// forgetDrops drops the pages of /drops: a drop was made, closed or
// cancelled here.
func (s *Store) forgetDrops() {
	w := s.Window()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.drops++
	w.changes.Add(1)
}
