package views

import (
	"context"
	"io"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"shop/views/lang"
)

// Markers around a value that is an element of its own (an amount, a date,
// a count with its data-testid) while the message is translated; the
// private-use characters never occur in a message.
const (
	markOpen  = "\ue000"
	markClose = "\ue001"
)

// tMarked is the message id with values that may be elements: a value that
// is a templ.Component renders in its place in the sentence, wherever the
// language puts it ("<time>22 Nov</time> stays" and "<time>…</time>은
// 유지됩니다"), so a sentence is never glued together from fragments.
func tMarked(ctx context.Context, id string, args ...any) templ.Component {
	return marked(func(vals []any) string { return lang.T(ctx, id, vals...) }, args)
}

// tnMarked is tMarked in the form for count.
func tnMarked(ctx context.Context, id string, count int, args ...any) templ.Component {
	return marked(func(vals []any) string { return lang.N(ctx, id, count, vals...) }, args)
}

func marked(localize func([]any) string, args []any) templ.Component {
	vals := make([]any, len(args))
	var parts []templ.Component
	for i, a := range args {
		c, ok := a.(templ.Component)
		if !ok || i%2 == 0 {
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

// nowrap is text kept on one line (a date in a button).
func nowrap(s string) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		_, err := io.WriteString(w, `<span class="nowrap">`+templ.EscapeString(s)+`</span>`)
		return err
	})
}
