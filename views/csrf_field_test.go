package views

import (
	"context"
	"strings"
	"testing"
)

// TestCSRFFieldIsWhatTemplWrote: the hand-written field is byte for byte
// what the templ component it replaced rendered, escaping included.
func TestCSRFFieldIsWhatTemplWrote(t *testing.T) {
	for _, tc := range []struct{ token, want string }{
		{"", `<input type="hidden" name="_csrf" value="">`},
		{"AbC-_09", `<input type="hidden" name="_csrf" value="AbC-_09">`},
		{`"><script>&'`, `<input type="hidden" name="_csrf" value="&#34;&gt;&lt;script&gt;&amp;&#39;">`},
	} {
		var b strings.Builder
		if err := CSRFField(tc.token).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("CSRFField(%q) = %s, want %s", tc.token, b.String(), tc.want)
		}
	}
}
