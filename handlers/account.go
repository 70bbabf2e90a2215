package handlers

import (
	"context"
	"errors"
	"log/slog"
	"net/mail"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/crypto/bcrypt"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// AccountStore is what sign-up and sign-in need.
type AccountStore interface {
	CreateCustomer(ctx context.Context, nc store.NewCustomer) (store.Customer, error)
	MergeCart(ctx context.Context, from, to string) (store.Cart, error)
	Cart(ctx context.Context, owner string) (store.Cart, error)
	CredentialsByEmail(ctx context.Context, email string) (store.Credentials, error)
	RecordSignIn(ctx context.Context, email string, cred store.Credentials, addr string) error
	CountAttempt(ctx context.Context, scope, subject string, window time.Duration) (int, error)
	ReturnAttempt(ctx context.Context, scope, subject string, window time.Duration) error
	SpaceAttempt(ctx context.Context, scope, subject string, window time.Duration, free int, maxWait time.Duration) error
	Customer(ctx context.Context, id string) (store.Customer, error)
	SetCustomerLanguage(ctx context.Context, customerID, lang string) error
	MailAccountLink(ctx context.Context, l store.AccountLink, m store.Mail) error
	Now() time.Time
}

// Sign-in and sign-up limits, in fixed windows. Each attempt is counted
// before the password is checked, so parallel guesses cannot all pass a
// count read before any raised it; a sign-in that succeeds gives its
// attempts back. A sign-in counts per client address (any email), and per
// email and address together, so an attacker elsewhere cannot lock the
// owner out. Guesses at one email spread over many addresses are slowed,
// not locked: past loginPerEmailFree an hour each waits twice as long as
// the one before, except from an address the owner signed in from lately.
// Sign-ups count per address, and those that find the email taken per
// email domain, which makes probing for accounts slow.
const (
	loginWindow          = 15 * time.Minute
	loginPerEmailAndAddr = 10
	loginPerAddress      = 50
	loginEmailWindow     = time.Hour
	loginPerEmailFree    = 30
	loginEmailMaxWait    = 5 * time.Minute
	signupWindow         = time.Hour
	signupPerAddress     = 20
	signupTakenPerDomain = 30
	minPasswordRunes     = 10
	maxPasswordBytes     = 72 // bcrypt ignores the rest
	maxNameRunes         = 100
	maxEmailBytes        = 254
	giveBackTimeout      = 5 * time.Second // a right password's counts, given back
)

// Account serves sign-up, sign-in and sign-out.
type Account struct {
	Store      AccountStore
	BcryptCost int
	Log        *slog.Logger
	// VerifyMail is a new account's verification mail, written with the
	// account (nil: accounts start verified).
	VerifyMail func(store.Customer, store.AccountLink) store.Mail
	// SecureCookies marks the language cookie sign-in sets Secure.
	SecureCookies bool

	dummyHash []byte
}

// NewAccount prepares the handlers; the dummy hash makes a sign-in with an
// unknown email take as long as one with a wrong password.
func NewAccount(st AccountStore, cost int, log *slog.Logger) (*Account, error) {
	h, err := bcrypt.GenerateFromPassword([]byte("not a real password"), cost)
	if err != nil {
		return nil, err
	}
	return &Account{Store: st, BcryptCost: cost, Log: log, dummyHash: h}, nil
}

// safeNext keeps a redirect after sign-in inside the shop: a path of this
// site, or "/". Control characters and backslashes are refused outright:
// browsers drop or reinterpret them (a header split, "/\\evil", "/\t/evil").
func safeNext(next string) string {
	if next == "" || len(next) > 2048 || strings.ContainsAny(next, "\\") {
		return paths.Home
	}
	for _, r := range next {
		if r < 0x20 || r == 0x7f {
			return paths.Home
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || !strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") {
		return paths.Home
	}
	return u.RequestURI()
}

// SignupForm shows the empty sign-up form.
func (h *Account) SignupForm(c *fiber.Ctx) error {
	page.CSRFToken(c)
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "auth.signup.title"), Page: page.Full(views.SignupPage, views.SignupForm{Next: c.Query("next")})})
}

// validateSignup checks the form as typed (f.Email and f.Name raw) and
// keeps them cleaned.
func validateSignup(c *fiber.Ctx, f *views.SignupForm, password string) {
	f.Errors = views.FieldErrors{}
	f.Email = formTextIn(c.UserContext(), f.Errors, "email", f.Email, oneLine)
	f.Name = formTextIn(c.UserContext(), f.Errors, "name", f.Name, oneLine)
	if msg := emailProblem(c, f.Email); msg != "" && !f.Errors.Has("email") {
		f.Errors["email"] = msg
	}
	switch n := utf8.RuneCountInString(f.Name); {
	case f.Errors.Has("name"):
	case n == 0:
		f.Errors["name"] = page.T(c, "auth.name.missing")
	case n > maxNameRunes:
		f.Errors["name"] = page.T(c, "auth.name.long")
	}
	switch {
	case utf8.RuneCountInString(password) < minPasswordRunes:
		f.Errors["password"] = page.T(c, "auth.password.short")
	case len(password) > maxPasswordBytes:
		f.Errors["password"] = page.T(c, "auth.password.long")
	}
}

func emailProblem(c *fiber.Ctx, email string) string {
	if email == "" {
		return page.T(c, "auth.email.missing")
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email || len(email) > maxEmailBytes {
		return page.T(c, "auth.email.invalid")
	}
	_, domain, _ := strings.Cut(email, "@")
	if !strings.Contains(domain, ".") || strings.HasSuffix(domain, ".") {
		return page.T(c, "auth.email.invalid")
	}
	return ""
}

// Signup creates the account and signs it in; on bad input the form comes
// back with a message at each field and nothing is written.
func (h *Account) Signup(c *fiber.Ctx) error {
	f := views.SignupForm{Email: page.Field(c, "email"), Name: page.Field(c, "name"), Next: page.Field(c, "next")}
	password := page.Field(c, "password")
	validateSignup(c, &f, password)
	status := fiber.StatusUnprocessableEntity
	if !f.Errors.Any() {
		n, err := h.Store.CountAttempt(c.UserContext(), "signup-ip", page.ClientAddress(c), signupWindow)
		if err != nil {
			return err
		}
		if n > signupPerAddress {
			status = fiber.StatusTooManyRequests
			f.Errors[""] = page.T(c, "auth.signup.limited")
		}
	}
	if !f.Errors.Any() {
		hash, err := bcrypt.GenerateFromPassword([]byte(password), h.BcryptCost)
		if err != nil {
			return err
		}
		cust, err := h.Store.CreateCustomer(c.UserContext(), store.NewCustomer{Email: f.Email, Name: f.Name, PasswordHash: string(hash), Lang: string(page.Lang(c)), VerifyMail: h.VerifyMail})
		switch {
		case errors.Is(err, store.ErrEmailTaken):
			// Saying so is what people need, and what a prober wants:
			// past a few an hour per email domain, it is no longer said.
			_, domain, _ := strings.Cut(store.NormalizeEmail(f.Email), "@")
			n, err := h.Store.CountAttempt(c.UserContext(), "signup-taken", domain, signupWindow)
			if err != nil {
				return err
			}
			if n > signupTakenPerDomain {
				h.Log.Warn("sign-up probing limited", "domain", domain, "address", page.ClientAddress(c))
				status = fiber.StatusTooManyRequests
				f.Errors[""] = page.T(c, "auth.signup.domain_limited", "Domain", domain)
				break
			}
			if joined, err := h.joinGuest(c, f, hash); err != nil || joined {
				return err
			}
			f.Errors["email"] = page.T(c, "auth.signup.taken")
			f.EmailTaken = true
		case err != nil:
			return err
		default:
			if err := h.signIn(c, cust.ID, cust.Name, string(cust.Role)); err != nil {
				return err
			}
			noteRecordLanguage(c, cust.Lang)
			msg := page.T(c, "auth.signup.welcome", "Name", cust.Name)
			if cust.EmailUnverified {
				msg = page.T(c, "auth.signup.welcome_verify", "Name", cust.Name)
			}
			page.Flash(c, views.FlashSuccess, msg)
			return page.Redirect(c, safeNext(f.Next))
		}
	}
	csrf := page.CSRFToken(c)
	return page.Render(c, status, page.View{Title: page.T(c, "auth.signup.title"), Page: page.Full(views.SignupPage, f), Partial: views.SignupFormPartial(f, csrf)})
}

// LoginForm shows the empty sign-in form.
func (h *Account) LoginForm(c *fiber.Ctx) error {
	page.CSRFToken(c)
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "auth.login.title"), Page: page.Full(views.LoginPage, views.LoginForm{Next: c.Query("next")})})
}

// Login checks the email and password, at most so many times per window
// per client address and so many failures per email, and signs the visit in
// under a new session id.
func (h *Account) Login(c *fiber.Ctx) error {
	f := views.LoginForm{Next: page.Field(c, "next"), Errors: views.FieldErrors{}}
	f.Email = formTextIn(c.UserContext(), f.Errors, "email", page.Field(c, "email"), oneLine)
	password := page.Field(c, "password")
	status := fiber.StatusUnprocessableEntity
	switch {
	case f.Errors.Has("email"):
	case f.Email == "":
		f.Errors["email"] = page.T(c, "auth.email.missing")
	case len(f.Email) > maxEmailBytes:
		f.Errors["email"] = page.T(c, "auth.email.too_long")
	}
	switch {
	case password == "":
		f.Errors["password"] = page.T(c, "auth.password.missing")
	case len(password) > 1024:
		f.Errors["password"] = page.T(c, "auth.password.too_long")
	}
	if !f.Errors.Any() {
		signedIn, limited, err := h.checkPassword(c, f.Email, password)
		switch {
		case errors.Is(err, errDeactivated):
			status = fiber.StatusForbidden
			f.Errors[""] = page.T(c, "auth.login.deactivated")
		case err != nil:
			return err
		case limited != "":
			status = fiber.StatusTooManyRequests
			f.Errors[""] = limited
		case !signedIn:
			f.Errors[""] = page.T(c, "auth.login.incorrect")
		default:
			return page.Redirect(c, landing(c, f.Next))
		}
	}
	csrf := page.CSRFToken(c)
	return page.Render(c, status, page.View{Title: page.T(c, "auth.login.title"), Page: page.Full(views.LoginPage, f), Partial: views.LoginFormPartial(f, csrf)})
}

// landing is where a sign-in goes: the page it was asked from, else the
// console for staff (their work is there) and the shop for customers.
func landing(c *fiber.Ctx, next string) string {
	if next == "" && page.Viewer(c).Staff {
		return paths.Admin
	}
	return safeNext(next)
}

// errDeactivated is the right password of a deactivated account.
var errDeactivated = errors.New("account deactivated")

// checkPassword takes the attempt from each limit, then checks the
// password and, if right, signs the visit in. limited is the message for
// an attempt a limit refused (nothing was checked).
func (h *Account) checkPassword(c *fiber.Ctx, email, password string) (signedIn bool, limited string, err error) {
	ctx, addr, email := c.UserContext(), page.ClientAddress(c), store.NormalizeEmail(email)
	if limited, err := h.countAttempt(c, addr, email); limited != "" || err != nil {
		return false, limited, err
	}
	cred, err := h.Store.CredentialsByEmail(ctx, email)
	// A guest checkout's customer has no password: signed in as never.
	found := err == nil && cred.PasswordHash != ""
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return false, "", err
	}
	// Known or not, the same limits and the same work: nothing tells
	// whether the email has an account.
	spaced := !cred.Knows(addr)
	if spaced {
		if limited, err := h.spaceAttempt(c, addr, email); limited != "" || err != nil {
			return false, limited, err
		}
	}
	if !found {
		_ = bcrypt.CompareHashAndPassword(h.dummyHash, []byte(password)) // the same work as a known email's
		return false, "", nil
	}
	if bcrypt.CompareHashAndPassword([]byte(cred.PasswordHash), []byte(password)) != nil {
		return false, "", nil
	}
	if err := h.giveAttemptsBack(ctx, addr, email, spaced); err != nil {
		return false, "", err
	}
	// Said only to someone who knows the password.
	if cred.Deactivated {
		h.Log.Info("sign-in refused: account deactivated", "customer", cred.CustomerID, "address", addr)
		return false, "", errDeactivated
	}
	if err := h.admit(c, email, addr, cred); err != nil {
		return false, "", err
	}
	return true, "", nil
}

// countAttempt counts the attempt against the address's limit and the
// email's at that address; limited is the message when one refuses it.
func (h *Account) countAttempt(c *fiber.Ctx, addr, email string) (limited string, err error) {
	ctx := c.UserContext()
	n, err := h.Store.CountAttempt(ctx, "login-ip", addr, loginWindow)
	if err != nil {
		return "", err
	}
	if n > loginPerAddress {
		h.Log.Warn("sign-in rate limited", "by", "address", "address", addr)
		return page.T(c, "auth.login.limited_network"), nil
	}
	if n, err = h.Store.CountAttempt(ctx, "login-email-addr", email+" "+addr, loginWindow); err != nil {
		return "", err
	}
	if n > loginPerEmailAndAddr {
		h.Log.Warn("sign-in rate limited", "by", "email and address", "address", addr)
		return page.T(c, "auth.login.limited"), nil
	}
	return "", nil
}

// spaceAttempt spaces the attempts on an email from an address it was
// not signed in from; limited is the message saying how long to wait.
func (h *Account) spaceAttempt(c *fiber.Ctx, addr, email string) (limited string, err error) {
	err = h.Store.SpaceAttempt(c.UserContext(), "login-email", email, loginEmailWindow, loginPerEmailFree, loginEmailMaxWait)
	var wait *store.WaitError
	if errors.As(err, &wait) {
		h.Log.Warn("sign-in slowed", "by", "email", "address", addr, "wait", wait.Wait)
		return page.T(c, "auth.login.slowed", "Wait", waitText(c, wait.Wait)), nil
	}
	return "", err
}

// giveAttemptsBack returns a right password's attempts: they were no
// failures. The address's too: fifty people behind one office's or
// carrier's address sign in all day. They are given back on a time of
// their own: a sign-in whose page ran out of time (a busy replica, a slow
// hash) must not leave a right password counted as a guess.
func (h *Account) giveAttemptsBack(ctx context.Context, addr, email string, spaced bool) error {
	back, cancel := context.WithTimeout(context.WithoutCancel(ctx), giveBackTimeout)
	defer cancel()
	if err := h.Store.ReturnAttempt(back, "login-ip", addr, loginWindow); err != nil {
		return err
	}
	if err := h.Store.ReturnAttempt(back, "login-email-addr", email+" "+addr, loginWindow); err != nil {
		return err
	}
	if spaced {
		return h.Store.ReturnAttempt(back, "login-email", email, loginEmailWindow)
	}
	return nil
}

// admit signs the visit in as the customer whose password it gave, in the
// customer's own language, and welcomes them.
func (h *Account) admit(c *fiber.Ctx, email, addr string, cred store.Credentials) error {
	ctx := c.UserContext()
	if err := h.Store.RecordSignIn(ctx, email, cred, addr); err != nil {
		return err
	}
	if err := h.signIn(c, cred.CustomerID, cred.Name, string(cred.Role)); err != nil {
		return err
	}
	// The customer's own language, read once here so that no page has to.
	cust, err := h.Store.Customer(ctx, cred.CustomerID)
	if err != nil {
		return err
	}
	if err := h.languageAtSignIn(c, cust); err != nil {
		return err
	}
	page.Flash(c, views.FlashSuccess, page.T(c, "auth.login.welcome", "Name", cred.Name))
	return nil
}

// waitText says a wait in whole seconds or minutes.
func waitText(c *fiber.Ctx, d time.Duration) string {
	if d <= time.Minute {
		return page.N(c, "auth.wait.seconds", max(1, int(d.Round(time.Second)/time.Second)))
	}
	return page.N(c, "auth.wait.minutes", int((d+time.Minute-1)/time.Minute))
}

// signIn starts the customer's session and moves what the visitor put in
// the cart into the customer's cart; the session keeps the number of items
// of the cart as it is then, for the header.
func (h *Account) signIn(c *fiber.Ctx, id, name, role string) error {
	visitorCart := page.VisitorCart(c)
	page.SignIn(c, id, name, role)
	var cart store.Cart
	var err error
	if visitorCart == "" {
		cart, err = h.Store.Cart(c.UserContext(), store.CustomerOwner(id))
	} else {
		cart, err = h.Store.MergeCart(c.UserContext(), visitorCart, store.CustomerOwner(id))
	}
	if err != nil {
		return err
	}
	page.SetCartUnits(c, cart.Units())
	return nil
}

// Logout revokes the session: the old cookie no longer signs anyone in.
func (h *Account) Logout(c *fiber.Ctx) error {
	page.SignOut(c)
	page.Flash(c, views.FlashInfo, page.T(c, "auth.logout.done"))
	return page.Redirect(c, paths.Home)
}
