package paths

import "testing"

// fill puts each value, escaped, in its own segment, and a value that
// needs escaping stays one segment.
func TestFillPutsEachValueInItsSegment(t *testing.T) {
	for _, c := range []struct {
		pattern string
		values  []string
		want    string
	}{
		{"/orders", nil, "/orders"},
		{"/orders/:id", []string{"o1"}, "/orders/o1"},
		{"/orders/:id/returns/:rid/slip", []string{"o 1", "r/2"}, "/orders/o%201/returns/r%2F2/slip"},
		{"/products/:id", []string{"a b/c?d#e"}, "/products/a%20b%2Fc%3Fd%23e"},
		{"/admin/drops/:id/tickets.csv", []string{"d1"}, "/admin/drops/d1/tickets.csv"},
		{"/media/photos/:key/:file", []string{"k", "640.jpg"}, "/media/photos/k/640.jpg"},
		{"/orders/:id", []string{""}, "/orders/"},
	} {
		if got := fill(c.pattern, c.values...); got != c.want {
			t.Errorf("fill(%q, %q) = %q, want %q", c.pattern, c.values, got, c.want)
		}
	}
}

// A builder that gives its pattern too few or too many values is a bug
// that must not draw a link with ":id" in it.
func TestFillRefusesTheWrongNumberOfValues(t *testing.T) {
	for _, c := range []struct {
		pattern string
		values  []string
	}{
		{"/orders/:id", nil},
		{"/orders/:id/returns/:rid", []string{"o1"}},
		{"/orders", []string{"o1"}},
		{"/orders/:id", []string{"o1", "o2"}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("fill(%q, %q) did not panic", c.pattern, c.values)
				}
			}()
			fill(c.pattern, c.values...)
		}()
	}
}
