package handlers

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// joinPerEmail bounds the sign-up links one guest's email is mailed an hour.
const joinPerEmail = 3

// joinGuest answers a sign-up whose email is a guest checkout's (a
// customer with no password): the account is that customer, so nothing is
// made now. The email's confirmation link is mailed with the password and
// name typed, and using it sets them on the customer (store.VerifyEmail):
// whoever owns the mailbox owns the guest's orders, and nobody else gets
// them by typing the email. joined is false for any other email.
func (h *Account) joinGuest(c *fiber.Ctx, f views.SignupForm, hash []byte) (joined bool, err error) {
	ctx := c.UserContext()
	email := store.NormalizeEmail(f.Email)
	cred, err := h.Store.CredentialsByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) || err == nil && (cred.PasswordHash != "" || cred.Deactivated) || h.VerifyMail == nil {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	n, err := h.Store.CountAttempt(ctx, "join-email", email, signupWindow)
	if err != nil {
		return false, err
	}
	if n <= joinPerEmail {
		cust := store.Customer{ID: cred.CustomerID, Email: email, Name: f.Name, Lang: string(page.Lang(c))}
		l := store.NewAccountLink(store.LinkVerifyEmail, cust, h.Store.Now(), store.VerifyLinkLife)
		l.PasswordHash, l.Name = string(hash), f.Name
		if err := h.Store.MailAccountLink(ctx, l, h.VerifyMail(cust, l)); err != nil {
			return false, err
		}
	}
	// The same answer when the mail was not sent again: the first one is
	// on its way.
	page.Flash(c, views.FlashInfo, page.T(c, "auth.signup.join_mailed", "Email", email))
	return true, page.Redirect(c, paths.Home)
}
