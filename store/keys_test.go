package store

import (
	"strings"
	"testing"
)

func TestKeyBuilders(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{customerKey("12345"), "c#12345"},
		{productKey("99887"), "p#99887"},
		{warehouseKey("12376"), "w#12376"},
		{emailKey(" Ada@Example.COM "), "email#ada@example.com"},
		{sessionKey("s1"), "session#s1"},
		{categoryKey("books"), "cat#books"},
		{catalogueSortKey("The Book", "99887"), "p#the book#99887"},
		{limitKey("login-ip", "127.0.0.1"), "limit#login-ip#127.0.0.1"},
		{trimPrefix("p#99887", prefixProduct), "99887"},
		{trimPrefix("w#99887", prefixProduct), ""},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

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
