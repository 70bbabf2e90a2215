package views

import (
	"bytes"
	"context"
	"testing"

	"github.com/a-h/templ"
)

// A kept part's marks are read back as written (makeFrame), and a part with a NUL
// that is not a mark (a product's words could hold one) is not kept.
func TestKeptPartsHolesAreFilledInTheirPlaces(t *testing.T) {
	parts := []templ.Component{templ.Raw("<add>"), templ.Raw("<subscribe>")}
	for _, tc := range []struct {
		name, html string
		kept       bool
		want       string
	}{
		{"no holes", "<p>words</p>", true, "<p>words</p>"},
		{"both, in order", "a" + holeMark(0) + "b" + holeMark(1) + "c", true, "a<add>b<subscribe>c"},
		{"out of order, twice", holeMark(1) + holeMark(0) + holeMark(1), true, "<subscribe><add><subscribe>"},
		{"at the ends", holeMark(0) + "middle" + holeMark(1), true, "<add>middle<subscribe>"},
		{"a hole past the parts", "a" + holeMark(2) + "b", false, ""},
		{"a lone NUL", "a\x00b", false, ""},
		{"a NUL around words", "a\x00words\x00b", false, ""},
		{"an empty mark", "a\x00\x00b", false, ""},
		{"a negative number", "a\x00-1\x00b", false, ""},
		{"a long number", "a\x0000000\x00b", false, ""},
	} {
		f, err := makeFrame(context.Background(), templ.Raw(tc.html), len(parts))
		if got := err == nil; got != tc.kept {
			t.Errorf("%s: kept = %v, want %v (%v)", tc.name, got, tc.kept, err)
			continue
		}
		if !tc.kept {
			continue
		}
		var buf bytes.Buffer
		if err := f.render(context.Background(), &buf, []framePart{{c: parts[0]}, {c: parts[1]}}); err != nil {
			t.Fatal(err)
		}
		if buf.String() != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, buf.String(), tc.want)
		}
	}
}
