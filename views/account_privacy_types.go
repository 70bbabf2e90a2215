package views

import (
	"context"

	"shop/store"
)

// DeleteAccountForm asks for the password before the account is deleted;
// the password is never echoed back.
type DeleteAccountForm struct {
	Errors FieldErrors
	CSRF   string
}

// customerName is how staff see a customer: a deleted account by what it
// is, never who it was.
func customerName(ctx context.Context, c store.Customer) string {
	switch {
	case c.Deleted():
		return t(ctx, "privacy.deleted_account")
	case c.Closing:
		return t(ctx, "privacy.being_deleted")
	}
	return c.Name
}

// deletedNote says when an account was deleted (or that it is being).
func deletedNote(ctx context.Context, c store.Customer) string {
	if c.Deleted() {
		return t(ctx, "privacy.deleted_on", "Day", adminDay(ctx, c.DeletedAt))
	}
	return t(ctx, "privacy.deletion_under_way")
}
