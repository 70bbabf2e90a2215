package rules

import (
	"strings"
	"testing"
)

func TestNewIDIsValidAndSorted(t *testing.T) {
	prev := ""
	for range 1000 {
		id := NewID()
		if !ValidID(id) || len(id) != 20 {
			t.Fatalf("NewID() = %q", id)
		}
		if id[:9] < prev[:min(9, len(prev))] {
			t.Fatalf("ids go back in time: %q after %q", id, prev)
		}
		prev = id
	}
}

func TestValidID(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"12345", true}, {"abc-DEF_9", true}, {"", false}, {"p#1", false}, {"a b", false},
		{"../x", false}, {strings.Repeat("a", 64), true}, {strings.Repeat("a", 65), false}, {"é", false},
	} {
		if got := ValidID(tc.in); got != tc.ok {
			t.Errorf("ValidID(%q) = %v", tc.in, got)
		}
	}
}

func FuzzValidID(f *testing.F) {
	for _, s := range []string{"12345", "p#1", "", "a/b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ValidID(s) && (strings.ContainsAny(s, "#/ ?%") || len(s) > 64 || s == "") {
			t.Fatalf("ValidID accepted %q", s)
		}
	})
}
