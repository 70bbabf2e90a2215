package store

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrapMailText(t *testing.T) {
	t.Parallel()
	long := "We charged €12.90 to your Visa •••• 4242 for Göteborg Dark Roast 500 g, 1 December 2026 to 31 December 2026."
	link := "https://shop.example/account/reset?token=" + strings.Repeat("x", 90)
	for _, tc := range []struct {
		name, in, want string
	}{
		{"short lines stay", "Hello Ada,\n\n  2 × Coffee      €25.80\n", "Hello Ada,\n\n  2 × Coffee      €25.80\n"},
		{"a long line wraps at the last space", long,
			"We charged €12.90 to your Visa •••• 4242 for Göteborg Dark Roast 500 g,\n1 December 2026 to 31 December 2026."},
		{"a link longer than the width keeps its line", "Open it: " + link + " today",
			"Open it:\n" + link + "\ntoday"},
		{"exactly the width stays", strings.Repeat("a", 72), strings.Repeat("a", 72)},
		{"Korean wraps by characters", strings.Repeat("결제가 완료되었습니다 ", 8),
			strings.TrimSpace(strings.Repeat("결제가 완료되었습니다 ", 6)) + "\n" + strings.TrimSpace(strings.Repeat("결제가 완료되었습니다 ", 2))},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := wrapMailText(tc.in, mailTextWidth)
			if got != tc.want {
				t.Fatalf("wrapped\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// Whatever the text: wrapping keeps its words in order, breaks no word,
// passes the width only with a word longer than it, and wrapping twice
// changes nothing.
func FuzzWrapMailText(f *testing.F) {
	for _, s := range []string{"", "Hello\n\nWorld", strings.Repeat("word ", 40), "a\tb  c\n" + strings.Repeat("x", 100), "결제 완료 " + strings.Repeat("가", 80)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		got := wrapMailText(s, mailTextWidth)
		if again := wrapMailText(got, mailTextWidth); again != got {
			t.Fatalf("wrapping twice changed it:\n%q\n%q", got, again)
		}
		if words(got) != words(s) {
			t.Fatalf("words changed:\n%q\n%q", s, got)
		}
		for _, line := range strings.Split(got, "\n") {
			if utf8.RuneCountInString(line) > mailTextWidth && strings.Contains(line, " ") {
				t.Fatalf("line of %d characters: %q", utf8.RuneCountInString(line), line)
			}
		}
	})
}

// words is a text's words (split at plain spaces and line ends) joined by
// one space.
func words(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\n' }), " ")
}
