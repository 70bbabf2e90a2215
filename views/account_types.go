// Package views holds the templ layouts, shared components, pages and the
// partials htmx swaps, with the typed data each one takes.
package views

// SignupForm is the sign-up form, as typed.
type SignupForm struct {
	Email  string
	Name   string
	Next   string
	Errors FieldErrors
	// EmailTaken: an account has the email; the form offers to sign in
	// with it, or to reset its password, as links.
	EmailTaken bool
}

// LoginForm is the sign-in form, as typed (never the password).
type LoginForm struct {
	Email  string
	Next   string
	Errors FieldErrors
}
