package page

import (
	"sync"
	"time"
)

// Moment keeps values for a moment each (a second, say): what a replica
// read for a session or a customer, so that the next pages of the same
// visit need not read it again. Entries past their moment answer nothing;
// they are swept when the map reaches its bound, and a value that finds
// the map full of fresh entries is not kept (the next ask reads again).
type Moment[K comparable, V any] struct {
	ttl  time.Duration
	most int
	now  func() time.Time

	mu      sync.Mutex
	entries map[K]momentEntry[V]
}

type momentEntry[V any] struct {
	value V
	until time.Time
}

// NewMoment keeps each value for ttl, at most most of them, on the clock
// now (time.Now when nil).
func NewMoment[K comparable, V any](ttl time.Duration, most int, now func() time.Time) *Moment[K, V] {
	if now == nil {
		now = time.Now
	}
	return &Moment[K, V]{ttl: ttl, most: most, now: now, entries: map[K]momentEntry[V]{}}
}

// Get is the value kept under k within its moment.
func (m *Moment[K, V]) Get(k K) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[k]
	if !ok || !m.now().Before(e.until) {
		var none V
		return none, false
	}
	return e.value, true
}

// Put keeps v under k for a moment from now.
func (m *Moment[K, V]) Put(k K, v V) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.entries) >= m.most {
		for k, e := range m.entries {
			if !now.Before(e.until) {
				delete(m.entries, k)
			}
		}
	}
	if len(m.entries) < m.most {
		m.entries[k] = momentEntry[V]{value: v, until: now.Add(m.ttl)}
	}
}

// Update changes the value kept under k in place, within its moment (which
// it does not extend).
func (m *Moment[K, V]) Update(k K, change func(*V)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.entries[k]; ok && m.now().Before(e.until) {
		change(&e.value)
		m.entries[k] = e
	}
}

// Delete forgets the values under keys at once.
func (m *Moment[K, V]) Delete(keys ...K) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range keys {
		delete(m.entries, k)
	}
}
