package views

// DeleteAccountForm asks for the password before the account is deleted;
// the password is never echoed back.
type DeleteAccountForm struct {
	Errors FieldErrors
	CSRF   string
}
