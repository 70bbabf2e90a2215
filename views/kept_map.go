package views

import (
	"sync"
	"sync/atomic"
)

// keptMap is a bounded map shared by a replica's requests: when full, it
// is emptied, so whatever keys a crawler makes up it holds at most most.
type keptMap[K comparable, V any] struct {
	mu   sync.RWMutex
	kept map[K]V
	most int
}

func newKeptMap[K comparable, V any](most int) *keptMap[K, V] {
	return &keptMap[K, V]{kept: map[K]V{}, most: most}
}

func (m *keptMap[K, V]) get(k K) (V, bool) {
	m.mu.RLock()
	v, ok := m.kept[k]
	m.mu.RUnlock()
	return v, ok
}

func (m *keptMap[K, V]) put(k K, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.kept) >= m.most {
		clear(m.kept)
	}
	m.kept[k] = v
}

// renderEverything makes every kept part and frame render as if nothing
// were kept: the tests that compare the two set it (atomic: a parallel test may render meanwhile).
var renderEverything atomic.Bool
