package handlers

import "testing"

func TestSafeNext(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "/"},
		{"/", "/"},
		{"/admin/warehouses", "/admin/warehouses"},
		{"/products?category=coffee&after=x", "/products?category=coffee&after=x"},
		{"//evil.example", "/"},
		{"/\\evil.example", "/"},
		{"/\t/evil.example", "/"},
		{"/\r\nSet-Cookie: x=y", "/"},
		{"https://evil.example/", "/"},
		{"javascript:alert(1)", "/"},
		{"evil.example", "/"},
		{"/%2F%2Fevil.example", "/"}, // decodes to ///evil.example
		{"/ok\x7f", "/"},
	} {
		if got := safeNext(tc.in); got != tc.want {
			t.Errorf("safeNext(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzSafeNext(f *testing.F) {
	for _, s := range []string{"/", "//x", "/\\x", "https://x", "/a?b=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := safeNext(s)
		if len(got) == 0 || got[0] != '/' || (len(got) > 1 && (got[1] == '/' || got[1] == '\\')) {
			t.Fatalf("safeNext(%q) = %q leaves the site", s, got)
		}
		for _, r := range got {
			if r < 0x20 || r == 0x7f {
				t.Fatalf("safeNext(%q) = %q carries a control character", s, got)
			}
		}
	})
}
