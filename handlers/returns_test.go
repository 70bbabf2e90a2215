package handlers

import (
	"strconv"
	"strings"
	"testing"

	"shop/store"
)

// Whatever a return form sends, what parseReturnLines accepts names order
// lines by valid ids with quantities a line can hold, one per line sent.
func FuzzParseReturnLines(f *testing.F) {
	for _, s := range [][4]string{
		{"cf-grinder", "1", "bk-cinnamon", ""},
		{"p drop-1", "2", "p", "0"},
		{"../x", "1", "a", "1"},
		{"a", "-1", "b", "99"},
		{"a", "100", "b b b", "1"},
		{"a", " 7 ", "", "1"},
		{"a", "1e2", "b", "0x10"},
		{"ä", "1", "a\x00", "1"},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, l0, q0, l1, q1 string) {
		asks, err := parseReturnLines([]string{l0, l1}, []string{q0, q1})
		if err != nil {
			return
		}
		if len(asks) != 2 {
			t.Fatalf("%d asks of 2 lines", len(asks))
		}
		for i, a := range asks {
			if !store.ValidID(a.ProductID) || (a.DropID != "" && !store.ValidID(a.DropID)) {
				t.Fatalf("line %d: ids %q %q accepted", i, a.ProductID, a.DropID)
			}
			if a.Quantity < 0 || a.Quantity > maxReturnUnits {
				t.Fatalf("line %d: quantity %d accepted", i, a.Quantity)
			}
			q := strings.TrimSpace([]string{q0, q1}[i])
			if n, err := strconv.Atoi(q); q != "" && (err != nil || n != a.Quantity) {
				t.Fatalf("line %d: %q read as %d", i, q, a.Quantity)
			}
		}
	})
}

func TestParseReturnLinesRefusesMismatch(t *testing.T) {
	if _, err := parseReturnLines([]string{"a", "b"}, []string{"1"}); err == nil {
		t.Fatal("two lines with one quantity accepted")
	}
	asks, err := parseReturnLines([]string{"a", "b d-1"}, []string{"", "2"})
	if err != nil || asks[0].Quantity != 0 || asks[1] != (store.ReturnAsk{ProductID: "b", DropID: "d-1", Quantity: 2}) {
		t.Fatalf("%+v %v", asks, err)
	}
}
