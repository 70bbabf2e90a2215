package views

import (
	"context"
	"io"
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"shop/store"
	"shop/views/lang"
)

// t is the message id in the page's language (see package lang); args
// are name, value pairs.
func t(ctx context.Context, id string, args ...any) string { return lang.T(ctx, id, args...) }

// tn is the message id in its form for count.
func tn(ctx context.Context, id string, count int, args ...any) string {
	return lang.N(ctx, id, count, args...)
}

// money is an amount as the page's language writes it.
func money(ctx context.Context, m store.Money) string { return lang.Money(ctx, m) }

// pageLang is the page's language code, for lang and hreflang attributes.
func pageLang(ctx context.Context) string { return string(lang.From(ctx)) }

// inLang is the page at path in language l: the link of the language
// switcher and of the hreflang alternates.
func inLang(path string, l lang.Lang) string {
	return path + "?" + url.Values{"lang": {string(l)}}.Encode()
}

// Markers around a value that is an element of its own (an amount, a date,
// a link) while its sentence is translated; the private-use characters
// never occur in a message.
const (
	markOpen  = "\ue000"
	markClose = "\ue001"
)

var unmark = strings.NewReplacer(markOpen, "", markClose, "")

// tMarked is the message id with values that may be elements: a value that
// is a templ.Component renders in its place in the sentence, wherever the
// language puts it ("<time>22 Nov</time> stays" and "<time>…</time>은
// 유지됩니다"), so a sentence is never glued together from fragments. The
// message's own text and every other value are escaped: the catalogues
// hold no HTML.
func tMarked(ctx context.Context, id string, args ...any) templ.Component {
	return marked(func(vals []any) string { return lang.T(ctx, id, vals...) }, args)
}

// tnMarked is tMarked in the form for count.
func tnMarked(ctx context.Context, id string, count int, args ...any) templ.Component {
	return marked(func(vals []any) string { return lang.N(ctx, id, count, vals...) }, args)
}

// MarkedIn is tMarked in the language l, for a mail, which is written
// outside the customer's request.
func MarkedIn(l lang.Lang, id string, args ...any) templ.Component {
	return marked(func(vals []any) string { return lang.In(l, id, vals...) }, args)
}

func marked(localize func([]any) string, args []any) templ.Component {
	vals := make([]any, len(args))
	var parts []templ.Component
	for i, a := range args {
		c, ok := a.(templ.Component)
		if !ok || i%2 == 0 {
			if s, ok := a.(string); ok {
				// A visitor's text (a search) must not pose as an element.
				a = unmark.Replace(s)
			}
			vals[i] = a
			continue
		}
		vals[i] = markOpen + strconv.Itoa(len(parts)) + markClose
		parts = append(parts, c)
	}
	msg := localize(vals)
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		rest := msg
		for {
			before, after, found := strings.Cut(rest, markOpen)
			if _, err := io.WriteString(w, templ.EscapeString(before)); err != nil {
				return err
			}
			if !found {
				return nil
			}
			n, tail, ok := strings.Cut(after, markClose)
			i, err := strconv.Atoi(n)
			if !ok || err != nil || i < 0 || i >= len(parts) {
				// Not one of ours: the text as it is.
				if _, err := io.WriteString(w, markOpen); err != nil {
					return err
				}
				rest = after
				continue
			}
			if err := parts[i].Render(ctx, w); err != nil {
				return err
			}
			rest = tail
		}
	})
}

// Mark is text in an element of its own for a sentence (tMarked,
// MarkedIn): <strong>, <code>, <span>, with a data-testid when testid is
// set. tag is the shop's own, never a visitor's.
func Mark(tag, testid, text string) templ.Component {
	return element(tag, testidAttr(testid), text)
}

// Link is a link for a sentence, with a data-testid when testid is set.
func Link(href, testid, text string) templ.Component {
	return element("a", ` href="`+templ.EscapeString(href)+`"`+testidAttr(testid), text)
}

// nowrap is text kept on one line (a date in a button).
func nowrap(s string) templ.Component { return element("span", ` class="nowrap"`, s) }

// element is text, escaped, in <tag attrs>; attrs are escaped already.
func element(tag, attrs, text string) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		_, err := io.WriteString(w, "<"+tag+attrs+">"+templ.EscapeString(text)+"</"+tag+">")
		return err
	})
}

func testidAttr(testid string) string {
	if testid == "" {
		return ""
	}
	return ` data-testid="` + templ.EscapeString(testid) + `"`
}
