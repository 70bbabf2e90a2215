package page

import (
	"testing"
	"time"
)

// A value answers within its moment only; a full map sweeps what is past
// its moment, and keeps nothing more while every entry is fresh.
func TestMoment(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	m := NewMoment[string, int](time.Second, 2, func() time.Time { return now })
	m.Put("a", 1)
	m.Put("b", 2)
	m.Put("c", 3) // full of fresh entries: not kept
	m.Update("a", func(v *int) { *v = 10 })
	for _, tc := range []struct {
		k    string
		want int
		ok   bool
	}{{"a", 10, true}, {"b", 2, true}, {"c", 0, false}} {
		if v, ok := m.Get(tc.k); v != tc.want || ok != tc.ok {
			t.Errorf("%s: %d, %v; want %d, %v", tc.k, v, ok, tc.want, tc.ok)
		}
	}
	m.Delete("b")
	if _, ok := m.Get("b"); ok {
		t.Error("b answers after its delete")
	}
	now = now.Add(time.Second)
	if _, ok := m.Get("a"); ok {
		t.Error("a answers after its moment")
	}
	m.Update("a", func(v *int) { *v = 11 }) // past its moment: nothing to change
	m.Put("c", 3)
	m.Put("d", 4) // full: sweeps a, past its moment
	if v, ok := m.Get("d"); !ok || v != 4 || len(m.entries) != 2 {
		t.Errorf("d: %d, %v; %d entries, want d kept and a swept", v, ok, len(m.entries))
	}
}
