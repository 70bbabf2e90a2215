package store

import (
	"strings"
	"unicode/utf8"
)

// mailTextWidth is where a mail's plain-text part wraps: mail readers show
// plain text as it comes, and 72 characters leave room for quoting
// ("> ") in a reply within the 78 of RFC 5322.
const mailTextWidth = 72

// wrapMailText wraps each line of a plain-text mail longer than width at
// its last space within the width. A word longer than the width (a link)
// is never broken: it gets a line of its own, so it still opens. Lines
// within the width are kept as they are (an order's aligned lines), so
// wrapping a wrapped text changes nothing.
func wrapMailText(text string, width int) string {
	lines := strings.Split(text, "\n")
	var b strings.Builder
	b.Grow(len(text) + len(text)/width)
	for i, line := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		wrapLine(&b, line, width)
	}
	return b.String()
}

// wrapLine writes one line, wrapped: words (split at plain spaces only, so
// a no-break space in an amount holds) joined by single spaces, a new line
// before the word that would pass the width.
func wrapLine(b *strings.Builder, line string, width int) {
	if utf8.RuneCountInString(line) <= width {
		b.WriteString(line)
		return
	}
	n := 0 // characters on the line so far
	for word := range strings.SplitSeq(line, " ") {
		if word == "" {
			continue
		}
		w := utf8.RuneCountInString(word)
		switch {
		case n == 0:
		case n+1+w > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += w
	}
}
