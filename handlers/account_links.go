package handlers

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/crypto/bcrypt"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/views/mail"
	"shop/web/paths"
)

// LinkSigner signs the secrets of mailed account links, so a made-up or
// altered link is refused before the table is asked. Its keys derive from
// the session keys (the first signs, all are checked: a rotated key keeps
// its links working until they expire).
type LinkSigner struct {
	keys [][]byte
}

// NewLinkSigner derives the link keys from the session keys.
func NewLinkSigner(sessionKeys [][]byte) (LinkSigner, error) {
	if len(sessionKeys) == 0 {
		return LinkSigner{}, errors.New("link signer: no keys")
	}
	var s LinkSigner
	for _, k := range sessionKeys {
		m := hmac.New(sha256.New, k)
		m.Write([]byte("shop account links"))
		s.keys = append(s.keys, m.Sum(nil))
	}
	return s, nil
}

func (s LinkSigner) mac(key []byte, purpose store.LinkPurpose, secret string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(string(purpose) + "|" + secret))
	return m.Sum(nil)[:16]
}

// Sign is the token of a link: the secret and its signature for purpose.
func (s LinkSigner) Sign(purpose store.LinkPurpose, secret string) string {
	return secret + "." + base64.RawURLEncoding.EncodeToString(s.mac(s.keys[0], purpose, secret))
}

// maxLinkToken is longer than any token Sign makes.
const maxLinkToken = 128

// Open checks a token's signature for purpose and returns its secret.
func (s LinkSigner) Open(purpose store.LinkPurpose, token string) (string, bool) {
	if len(token) > maxLinkToken {
		return "", false
	}
	secret, sig, ok := strings.Cut(token, ".")
	if !ok || secret == "" {
		return "", false
	}
	// Strict: one signature, one spelling (unused trailing bits refused).
	got, err := base64.RawURLEncoding.Strict().DecodeString(sig)
	if err != nil {
		return "", false
	}
	for _, k := range s.keys {
		if hmac.Equal(got, s.mac(k, purpose, secret)) {
			return secret, true
		}
	}
	return "", false
}

// AccountLinksStore is what the mailed links need.
type AccountLinksStore interface {
	Customer(ctx context.Context, id string) (store.Customer, error)
	CredentialsByEmail(ctx context.Context, email string) (store.Credentials, error)
	MailAccountLink(ctx context.Context, l store.AccountLink, m store.Mail) error
	AccountLink(ctx context.Context, purpose store.LinkPurpose, secret string) (store.AccountLink, error)
	VerifyEmail(ctx context.Context, secret string) (store.AccountLink, error)
	ResetPassword(ctx context.Context, secret, newHash string) (store.AccountLink, error)
	EndSessions(ctx context.Context, customerID, keep string) (int, error)
	CountAttempt(ctx context.Context, scope, subject string, window time.Duration) (int, error)
	Now() time.Time
	Location() *time.Location
}

// Limits of mailing links, per fixed window: a reset per email (known or
// not, the same count) and per client address, and the verification mail
// sent again per account.
const (
	linkMailWindow     = time.Hour
	resetPerEmail      = 3
	resetPerAddress    = 20
	verifyResendPerAcc = 3
)

// AccountLinks serves what mailed links do: the forgotten password, the
// reset form, the email verification and sending it again.
type AccountLinks struct {
	Store      AccountLinksStore
	Signer     LinkSigner
	Mail       mail.Links
	BcryptCost int
	Log        *slog.Logger
}

// VerifyMail is the verification mail of a new account's link (for the
// sign-up's transaction).
func (h *AccountLinks) VerifyMail(c store.Customer, l store.AccountLink) store.Mail {
	return h.Mail.VerifyEmail(c, l, paths.EmailVerifyLink(h.Signer.Sign(store.LinkVerifyEmail, l.Secret)), h.Store.Location())
}

// linkError is the page of a link that cannot be used: forged, unknown,
// used or expired, each said plainly, with where to go next.
func linkError(c *fiber.Ctx, err error, again string) error {
	switch {
	case errors.Is(err, store.ErrLinkUsed):
		return &page.Error{Status: fiber.StatusGone, Message: page.T(c, "account.link.used", "Again", page.T(c, again))}
	case errors.Is(err, store.ErrLinkExpired):
		return &page.Error{Status: fiber.StatusGone, Message: page.T(c, "account.link.expired", "Again", page.T(c, again))}
	case errors.Is(err, store.ErrNotFound):
		return &page.Error{Status: fiber.StatusNotFound, Message: page.T(c, "account.link.unknown", "Again", page.T(c, again))}
	}
	return err
}

// badLink is the page of a link that was cut short or changed.
func badLink(c *fiber.Ctx) error {
	return &page.Error{Status: fiber.StatusBadRequest, Message: page.T(c, "account.link.bad")}
}

// Where to get a new link, by the link's purpose (message ids).
const (
	resetAgain  = "account.link.reset_again"
	verifyAgain = "account.link.verify_again"
)

// openLink checks the token of the request (?t= or the form's t) and reads
// its link, usable now.
func (h *AccountLinks) openLink(c *fiber.Ctx, purpose store.LinkPurpose, token, again string) (store.AccountLink, error) {
	secret, ok := h.Signer.Open(purpose, token)
	if !ok {
		return store.AccountLink{}, badLink(c)
	}
	l, err := h.Store.AccountLink(c.UserContext(), purpose, secret)
	if err == nil {
		err = l.Check(h.Store.Now())
	}
	if err != nil {
		return l, linkError(c, err, again)
	}
	return l, nil
}

// ForgotForm is "Forgot your password?".
func (h *AccountLinks) ForgotForm(c *fiber.Ctx) error {
	page.CSRFToken(c)
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "auth.login.forgot"), Page: page.Full(views.ForgotPage, views.ForgotForm{})})
}

// Forgot mails a reset link if the email has an active account. The answer
// is the same either way, and so are the limits: nothing tells whether
// the email has an account.
func (h *AccountLinks) Forgot(c *fiber.Ctx) error {
	f := views.ForgotForm{Errors: views.FieldErrors{}}
	f.Email = formTextIn(c.UserContext(), f.Errors, "email", page.Field(c, "email"), oneLine)
	if msg := emailProblem(c, f.Email); msg != "" && !f.Errors.Has("email") {
		f.Errors["email"] = msg
	}
	status := fiber.StatusUnprocessableEntity
	if !f.Errors.Any() {
		limited, err := h.mailReset(c, f.Email)
		switch {
		case err != nil:
			return err
		case limited:
			status = fiber.StatusTooManyRequests
			f.Errors[""] = page.T(c, "account.link.too_many")
		default:
			status, f.Sent = fiber.StatusOK, true
		}
	}
	csrf := page.CSRFToken(c)
	return page.Render(c, status, page.View{Title: page.T(c, "auth.login.forgot"), Page: page.Full(views.ForgotPage, f), Partial: views.ForgotFormPartial(f, csrf)})
}

func (h *AccountLinks) mailReset(c *fiber.Ctx, email string) (limited bool, err error) {
	ctx, addr, email := c.UserContext(), page.ClientAddress(c), store.NormalizeEmail(email)
	n, err := h.Store.CountAttempt(ctx, "reset-ip", addr, linkMailWindow)
	if err != nil || n > resetPerAddress {
		return err == nil, err
	}
	if n, err = h.Store.CountAttempt(ctx, "reset-email", email, linkMailWindow); err != nil || n > resetPerEmail {
		return err == nil, err
	}
	cred, err := h.Store.CredentialsByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		h.Log.Info("password reset for an unknown email", "address", addr)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if cred.Deactivated {
		h.Log.Info("password reset refused: account deactivated", "customer", cred.CustomerID, "address", addr)
		return false, nil
	}
	l := store.NewAccountLink(store.LinkResetPassword, store.Customer{ID: cred.CustomerID, Email: email}, h.Store.Now(), store.ResetLinkLife)
	m := h.Mail.PasswordReset(mail.Lang(ctx, ""), cred.Name, l, paths.PasswordResetLink(h.Signer.Sign(store.LinkResetPassword, l.Secret)))
	return false, h.Store.MailAccountLink(ctx, l, m)
}

// ResetForm is a reset link's page: the new password form, or a 4xx page
// saying why the link does not work.
func (h *AccountLinks) ResetForm(c *fiber.Ctx) error {
	token := c.Query("t")
	l, err := h.openLink(c, store.LinkResetPassword, token, resetAgain)
	if err != nil {
		return err
	}
	page.CSRFToken(c)
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "account.reset.title"), Page: page.Full(views.ResetPage, views.ResetForm{Token: token, Email: l.Email})})
}

// Reset sets the new password (the rules of sign-up, typed twice), uses
// the link up, and ends every session of the account.
func (h *AccountLinks) Reset(c *fiber.Ctx) error {
	token := page.Field(c, "t")
	l, err := h.openLink(c, store.LinkResetPassword, token, resetAgain)
	if err != nil {
		return err
	}
	next, again := page.Field(c, "new_password"), page.Field(c, "new_password_again")
	f := views.ResetForm{Token: token, Email: l.Email, Errors: views.FieldErrors{}}
	switch {
	case utf8.RuneCountInString(next) < minPasswordRunes:
		f.Errors["new_password"] = page.T(c, "auth.password.short")
	case len(next) > maxPasswordBytes:
		f.Errors["new_password"] = page.T(c, "auth.password.long")
	case again != next:
		f.Errors["new_password_again"] = page.T(c, "account.reset.differ")
	}
	if f.Errors.Any() {
		csrf := page.CSRFToken(c)
		return page.Render(c, fiber.StatusUnprocessableEntity, page.View{Title: page.T(c, "account.reset.title"), Page: page.Full(views.ResetPage, f), Partial: views.ResetFormPartial(f, csrf)})
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(next), h.BcryptCost)
	if err != nil {
		return err
	}
	secret, _ := h.Signer.Open(store.LinkResetPassword, token) // opened above
	if _, err := h.Store.ResetPassword(c.UserContext(), secret, string(hash)); err != nil {
		return linkError(c, err, resetAgain)
	}
	// Whoever had the old password is signed out, here too.
	if _, err := h.Store.EndSessions(c.UserContext(), l.CustomerID, ""); err != nil {
		return err
	}
	page.SignOut(c)
	h.Log.Info("password reset", "customer", l.CustomerID, "address", page.ClientAddress(c))
	page.Flash(c, views.FlashSuccess, page.T(c, "account.reset.done"))
	return page.Redirect(c, paths.Login)
}

// VerifyForm is a verification link's page: a button that confirms.
func (h *AccountLinks) VerifyForm(c *fiber.Ctx) error {
	token := c.Query("t")
	l, err := h.openLink(c, store.LinkVerifyEmail, token, verifyAgain)
	if err != nil {
		return err
	}
	page.CSRFToken(c)
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "account.verify.title"), Page: page.Full(views.VerifyEmailView, views.VerifyEmailPage{Token: token, Email: l.Email})})
}

// Verify uses the link: the account is verified.
func (h *AccountLinks) Verify(c *fiber.Ctx) error {
	secret, ok := h.Signer.Open(store.LinkVerifyEmail, page.Field(c, "t"))
	if !ok {
		return badLink(c)
	}
	l, err := h.Store.VerifyEmail(c.UserContext(), secret)
	if errors.Is(err, store.ErrConflict) {
		// A guest's sign-up whose email got a password meanwhile.
		return &page.Error{Status: fiber.StatusConflict, Message: page.T(c, "auth.signup.join_taken")}
	}
	if err != nil {
		return linkError(c, err, verifyAgain)
	}
	if l.Joins() {
		page.Flash(c, views.FlashSuccess, page.T(c, "auth.signup.joined", "Email", l.Email))
		return page.Redirect(c, paths.LoginThen(paths.Orders))
	}
	page.Flash(c, views.FlashSuccess, page.T(c, "account.verify.done", "Email", l.Email))
	if page.Viewer(c).SignedIn() {
		return page.Redirect(c, paths.Account)
	}
	return page.Redirect(c, paths.Login)
}

// Resend mails the verification link again, a few times an hour.
func (h *AccountLinks) Resend(c *fiber.Ctx) error {
	v, err := accountViewer(c)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	cust, err := h.Store.Customer(ctx, v.ID)
	if err != nil {
		return err
	}
	if !cust.EmailUnverified {
		page.Flash(c, views.FlashInfo, page.T(c, "account.verify.already"))
		return page.Redirect(c, paths.Account)
	}
	n, err := h.Store.CountAttempt(ctx, "verify-resend", cust.ID, linkMailWindow)
	if err != nil {
		return err
	}
	if n > verifyResendPerAcc {
		return &page.Error{Status: fiber.StatusTooManyRequests, Message: page.T(c, "account.verify.too_many")}
	}
	l := store.NewAccountLink(store.LinkVerifyEmail, cust, h.Store.Now(), store.VerifyLinkLife)
	if err := h.Store.MailAccountLink(ctx, l, h.VerifyMail(cust, l)); err != nil {
		return err
	}
	page.Flash(c, views.FlashSuccess, page.T(c, "account.verify.sent", "Email", cust.Email))
	return page.Redirect(c, paths.Account)
}
