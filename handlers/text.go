package handlers

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"shop/views"
	"shop/views/lang"
)

// Free text as people type it (names, email addresses, postal addresses,
// titles, reasons, descriptions) passes cleanText before anything else
// looks at it. What cannot be typed on purpose is refused: bytes that are
// not UTF-8 (DynamoDB's JSON would turn them into U+FFFD silently), control
// characters (NUL, CR/LF in a one-line field: they split headers, logs and
// CSV rows), and the invisible characters that reverse the direction of
// what follows (they make "gpj.exe" read "exe.jpg" on a staff screen).
// Accepted text is stored in NFC, so the same words typed on two keyboards
// are the same string, and an email address is one account.

// textKind is what a field holds.
type textKind uint8

const (
	oneLine   textKind = iota // a name, an address line, a title
	multiLine                 // a description: line breaks (as \n) are kept
)

// textFault is why a field's text was refused; textOK when it was not.
type textFault uint8

// The faults by precedence: a text with several shows the last one's.
const (
	textOK textFault = iota
	textControl
	textDirection
	textNotUTF8
)

// cleanText is s as the shop keeps it (NFC, without surrounding spaces;
// a multi-line text's CRLF line breaks, as browsers send a textarea's, as
// \n) and why it is refused, if it is. A refused text comes back with the
// offending characters removed, for the form to show: sending it again as
// shown is then accepted. Nothing refused may be stored.
func cleanText(s string, kind textKind) (string, textFault) {
	fault := textOK
	if !utf8.ValidString(s) {
		fault = textNotUTF8
		s = strings.ToValidUTF8(s, "")
	}
	if kind == multiLine {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	if strings.IndexFunc(s, func(r rune) bool { return runeFault(r, kind) != textOK }) >= 0 {
		var b strings.Builder
		b.Grow(len(s))
		for _, r := range s {
			if f := runeFault(r, kind); f != textOK {
				fault = max(fault, f)
				continue
			}
			b.WriteRune(r)
		}
		s = b.String()
	}
	return strings.TrimSpace(norm.NFC.String(s)), fault
}

// runeFault is why r has no place in a text of kind.
func runeFault(r rune, kind textKind) textFault {
	switch {
	case r == '\n' && kind == multiLine:
		return textOK
	case unicode.IsControl(r), r == '\u2028', r == '\u2029': // C0, DEL, C1; the Unicode line and paragraph separators
		return textControl
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069': // embeddings, overrides, isolates
		return textDirection
	case r == utf8.RuneError: // what is left of bytes that were not text (a lone surrogate in JSON, say)
		return textNotUTF8
	}
	return textOK
}

// text is what a form says at a field whose text was refused, in the
// language of ctx; it shows the text back without the characters it names.
func (f textFault) text(ctx context.Context, kind textKind) string {
	switch f {
	case textControl:
		if kind == multiLine {
			return lang.T(ctx, "form.text.control_multiline")
		}
		return lang.T(ctx, "form.text.control")
	case textDirection:
		return lang.T(ctx, "form.text.direction")
	case textNotUTF8:
		return lang.T(ctx, "form.text.not_utf8")
	}
	return ""
}

// apiMessage is what the JSON API says about field's text.
func (f textFault) apiMessage(field string) string {
	switch f {
	case textControl:
		return field + ": control characters (NUL, CR, LF, tab, ...) are not allowed"
	case textDirection:
		return field + ": bidirectional embedding, override and isolate characters (U+202A-U+202E, U+2066-U+2069) are not allowed"
	case textNotUTF8:
		return field + ": not valid UTF-8 text"
	}
	return ""
}

// formTextIn is a form field's text, cleaned; a refused one leaves its
// message, in the language of ctx, at the field in errs.
func formTextIn(ctx context.Context, errs views.FieldErrors, field, raw string, kind textKind) string {
	s, fault := cleanText(raw, kind)
	if fault != textOK {
		errs[field] = fault.text(ctx, kind)
	}
	return s
}
