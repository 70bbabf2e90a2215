package views

import (
	"context"
	"io"

	"github.com/a-h/templ"
)

// CSRFField carries the visit's CSRF token in a plain form. It is written
// here rather than in templ: it is in every form of every page, and
// templ's `value={ token }` formats the string through fmt.Sprint (two
// allocations) before escaping it. The HTML is what templ wrote.
func CSRFField(token string) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		if _, err := io.WriteString(w, `<input type="hidden" name="_csrf" value="`); err != nil {
			return err
		}
		if _, err := io.WriteString(w, templ.EscapeString(token)); err != nil {
			return err
		}
		_, err := io.WriteString(w, `">`)
		return err
	})
}
