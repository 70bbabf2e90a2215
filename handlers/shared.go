package handlers

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/views"
	"shop/web/paths"
)

// Helpers every area of handlers uses, kept in one known place.

// refusalText is what a page says of a store error (at a form's top, in
// the cart, in a flash): a refusal in the language of ctx, its values
// (a limit, a product's name) in it; any other error keeps the store's
// English words.
func refusalText(ctx context.Context, err error) string {
	if r, ok := page.RefusalOf(ctx, err); ok {
		return r.Text
	}
	return sentence(err)
}

// refusedAtField puts the refusal err carries, in the language of ctx, at
// its field of a form's errors ("" for the form as a whole) and says
// whether err was one; any other error (or none) is the caller's, and so
// is a broken form's (formRefusal).
func refusedAtField(ctx context.Context, errs views.FieldErrors, err error) bool {
	r, ok := formRefusal(ctx, err)
	if ok {
		errs[r.Field] = r.Text
	}
	return ok
}

// formRefusal is the refusal err carries that a form can show, in the
// language of ctx: any but a request the shop's pages never send
// (store.Broken, a 400), which the error page says.
func formRefusal(ctx context.Context, err error) (page.Refused, bool) {
	r, ok := page.RefusalOf(ctx, err)
	if !ok || r.Status == fiber.StatusBadRequest {
		return page.Refused{}, false
	}
	return r, true
}

// fieldRefusal is the refusal err carries when it is about one field of
// a form: that field and its sentence in the language of ctx; false for
// any other error, and for a refusal of the form as a whole.
func fieldRefusal(ctx context.Context, err error) (field, text string, ok bool) {
	r, ok := formRefusal(ctx, err)
	if !ok || r.Field == "" {
		return "", "", false
	}
	return r.Field, r.Text, true
}

// signedInFor is the viewer of a page for customers; one not signed in is
// sent to sign in, then back.
func signedInFor(c *fiber.Ctx, back string) (views.Viewer, error) {
	v := page.Viewer(c)
	if !v.SignedIn() {
		return v, page.Redirect(c, paths.LoginThen(back))
	}
	return v, nil
}

// sentence is an error message with a capital letter and a full stop.
func sentence(err error) string {
	s := err.Error()
	if s == "" {
		return s
	}
	if s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	if s[len(s)-1] != '.' {
		s += "."
	}
	return s
}
