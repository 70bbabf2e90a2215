package handlers

import (
	"strconv"
	"testing"
)

func TestParseRefundUnits(t *testing.T) {
	for _, tc := range []struct {
		in   string
		left int
		want int
		ok   bool
	}{
		{"1", 3, 1, true}, {" 3 ", 3, 3, true}, {"4", 3, 0, false}, {"0", 3, 0, false},
		{"-1", 3, 0, false}, {"1.5", 3, 0, false}, {"two", 3, 0, false}, {"", 3, 0, false},
		{"99999999999999999999", 3, 0, false}, {"1", 0, 0, false},
	} {
		n, problem := parseRefundUnits(tc.in, tc.left)
		if (problem == "") != tc.ok || n != tc.want {
			t.Errorf("parseRefundUnits(%q, %d) = %d, %q", tc.in, tc.left, n, problem)
		}
	}
}

// Whatever is typed, the units are a whole number from 1 to what is left,
// or refused with a reason.
func FuzzParseRefundUnits(f *testing.F) {
	for _, s := range []string{"1", "0", "-3", "+2", "1e3", " 7 ", "９", strconv.Itoa(1 << 40)} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, s string, left int) {
		n, problem := parseRefundUnits(s, left)
		if problem == "" && (n < 1 || n > left) {
			t.Fatalf("parseRefundUnits(%q, %d) = %d", s, left, n)
		}
		if problem != "" && n != 0 {
			t.Fatalf("parseRefundUnits(%q, %d) refused with %d", s, left, n)
		}
	})
}
