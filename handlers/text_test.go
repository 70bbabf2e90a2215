package handlers

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

func TestCleanText(t *testing.T) {
	const (
		nfc = "Jos\u00e9"  // é as one code point
		nfd = "Jose\u0301" // e and a combining acute
	)
	for _, tc := range []struct {
		name  string
		in    string
		kind  textKind
		want  string
		fault textFault
	}{
		{"plain", "Ada Lovelace", oneLine, "Ada Lovelace", textOK},
		{"trimmed", "  Ada \t", oneLine, "Ada", textControl},
		{"spaces trimmed", "  Ada  ", oneLine, "Ada", textOK},
		{"NFC kept", nfc, oneLine, nfc, textOK},
		{"NFD made NFC", nfd, oneLine, nfc, textOK},
		{"right-to-left text", "\u05e9\u05dc\u05d5\u05dd", oneLine, "\u05e9\u05dc\u05d5\u05dd", textOK},
		{"direction marks kept", "a\u200fb\u200e", oneLine, "a\u200fb\u200e", textOK},
		{"emoji with joiner", "\U0001f469\u200d\U0001f4bb", oneLine, "\U0001f469\u200d\U0001f4bb", textOK},
		{"NUL", "Ev\x00e", oneLine, "Eve", textControl},
		{"CR LF", "Eve\r\nSet-Cookie: x", oneLine, "EveSet-Cookie: x", textControl},
		{"DEL", "Eve\x7f", oneLine, "Eve", textControl},
		{"C1 next line", "Eve\u0085x", oneLine, "Evex", textControl},
		{"line separator", "Eve\u2028x", oneLine, "Evex", textControl},
		{"right-to-left override", "invoice\u202egpj.exe", oneLine, "invoicegpj.exe", textDirection},
		{"isolate", "a\u2066b\u2069", oneLine, "ab", textDirection},
		{"embedding", "\u202ab\u202c", oneLine, "b", textDirection},
		{"invalid UTF-8", "Ev\xffe", oneLine, "Eve", textNotUTF8},
		{"lone surrogate bytes", "a\xed\xa0\x80b", oneLine, "ab", textNotUTF8},
		{"replacement character", "a\ufffdb", oneLine, "ab", textNotUTF8},
		{"worst fault wins", "\x00\u202e\xff", oneLine, "", textNotUTF8},
		{"only an override", "\u202e", oneLine, "", textDirection},
		{"description keeps line breaks", "Dark roast.\r\n\r\nWhole beans.\n", multiLine, "Dark roast.\n\nWhole beans.", textOK},
		{"description: lone CR", "a\rb", multiLine, "ab", textControl},
		{"description: tab", "a\tb", multiLine, "ab", textControl},
		{"description: NUL", "a\n\x00b", multiLine, "a\nb", textControl},
		{"description: override", "a\n\u202eb", multiLine, "a\nb", textDirection},
		{"one line: LF", "a\nb", oneLine, "ab", textControl},
		{"empty", "", oneLine, "", textOK},
	} {
		got, fault := cleanText(tc.in, tc.kind)
		if got != tc.want || fault != tc.fault {
			t.Errorf("%s: cleanText(%q) = %q, %d; want %q, %d", tc.name, tc.in, got, fault, tc.want, tc.fault)
		}
		if (fault == textOK) != (fault.text(context.Background(), tc.kind) == "") || (fault == textOK) != (fault.apiMessage("f") == "") {
			t.Errorf("%s: fault %d has message %q / %q", tc.name, fault, fault.text(context.Background(), tc.kind), fault.apiMessage("f"))
		}
	}
}

// Whatever comes in, what cleanText gives back is text the shop can keep:
// UTF-8, NFC, trimmed, nothing it refuses, and accepted as it is when sent
// again (a refused form shows it back for that).
func FuzzCleanText(f *testing.F) {
	for _, s := range []string{"Ada", " José ", "Jose\u0301", "a\x00b", "a\r\nb", "\u202egpj.exe", "\xff\xfe", "a\ufffd",
		"\u0301", " \u0301", "\u2000x\u2001", "\u1100\u1161\u11a8", "x\u0300\x00\u0301"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, multi bool) {
		kind := oneLine
		if multi {
			kind = multiLine
		}
		got, fault := cleanText(s, kind)
		if !utf8.ValidString(got) || !norm.NFC.IsNormalString(got) || got != strings.TrimSpace(got) {
			t.Fatalf("cleanText(%q) = %q: not valid, NFC and trimmed", s, got)
		}
		for _, r := range got {
			if runeFault(r, kind) != textOK {
				t.Fatalf("cleanText(%q) = %q keeps %U", s, got, r)
			}
		}
		if again, f2 := cleanText(got, kind); again != got || f2 != textOK {
			t.Fatalf("cleanText(%q) = %q, but that gives %q, %d", s, got, again, f2)
		}
		// Accepted text only loses its surrounding spaces, and changes form
		// (NFC, a textarea's CRLF): no character goes.
		if fault == textOK {
			want := s
			if kind == multiLine {
				want = strings.ReplaceAll(want, "\r\n", "\n")
			}
			if want = strings.TrimSpace(norm.NFC.String(want)); got != want {
				t.Fatalf("cleanText(%q) accepted it but made it %q, not %q", s, got, want)
			}
		}
	})
}
