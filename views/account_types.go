// Package views holds the templ layouts, shared components, pages and the
// partials htmx swaps, with the typed data each one takes.
package views

// SignupForm is the sign-up form, as typed.
type SignupForm struct {
	Email  string
	Name   string
	Next   string
	Errors FieldErrors
}

// LoginForm is the sign-in form, as typed (never the password).
type LoginForm struct {
	Email  string
	Next   string
	Errors FieldErrors
}
