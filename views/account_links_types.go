package views

// ForgotForm asks for a password reset link, as typed. Sent: the answer
// (the same whether or not the email has an account).
type ForgotForm struct {
	Email  string
	Sent   bool
	Errors FieldErrors
}

// ResetForm sets a new password from a mailed link; Token is the link's.
type ResetForm struct {
	Token  string
	Email  string
	Errors FieldErrors
}

// VerifyEmailPage confirms an email address from a mailed link.
type VerifyEmailPage struct {
	Token string
	Email string
}
