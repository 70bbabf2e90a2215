package handlers

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/sync/errgroup"

	"shop/handlers/page"
	"shop/store"
	"shop/store/rules"
	"shop/views"
	"shop/web/paths"
)

// AccountDetailsStore is what /account reads and changes.
type AccountDetailsStore interface {
	Customer(ctx context.Context, id string) (store.Customer, error)
	Addresses(ctx context.Context, customerID string) (store.AddressBook, error)
	CredentialsByEmail(ctx context.Context, email string) (store.Credentials, error)
	RenameCustomer(ctx context.Context, customerID, email, name string) error
	ChangePassword(ctx context.Context, customerID, email, checkedHash, newHash string) error
	EndSessions(ctx context.Context, customerID, keep string) (int, error)
	CountAttempt(ctx context.Context, scope, subject string, window time.Duration) (int, error)
	ReturnAttempt(ctx context.Context, scope, subject string, window time.Duration) error
	AddAddress(ctx context.Context, customerID string, a store.Address, asDefault bool) (store.SavedAddress, error)
	UpdateAddress(ctx context.Context, customerID, id string, a store.Address) error
	SetDefaultAddress(ctx context.Context, customerID, id string) error
	DeleteAddress(ctx context.Context, customerID, id string) error
}

// Wrong current passwords a signed-in session may type per window: a
// stolen session cannot guess the password to take the account over.
const (
	passwordChangeWindow   = 15 * time.Minute
	passwordChangeAttempts = 10
)

// AccountDetails serves /account: the name, the password and the saved
// addresses.
type AccountDetails struct {
	Store      AccountDetailsStore
	BcryptCost int
}

// load reads the customer and their address book, in parallel.
func (h *AccountDetails) load(c *fiber.Ctx, customerID string) (views.AccountPage, error) {
	var cust store.Customer
	var book store.AddressBook
	g, ctx := errgroup.WithContext(c.UserContext())
	g.Go(func() (err error) { cust, err = h.Store.Customer(ctx, customerID); return err })
	g.Go(func() (err error) { book, err = h.Store.Addresses(ctx, customerID); return err })
	if err := g.Wait(); err != nil {
		return views.AccountPage{}, err
	}
	return views.AccountPage{
		Email: cust.Email, EmailUnverified: cust.EmailUnverified, Name: views.NameForm{Name: cust.Name}, Addresses: book.Addresses,
		NewAddress: views.AddressForm{Recipient: cust.Name, Default: len(book.Addresses) == 0},
		CSRF:       page.CSRFToken(c),
	}, nil
}

// accountViewer is the signed-in viewer, or a 403 for a form posted without one.
func accountViewer(c *fiber.Ctx) (views.Viewer, error) {
	v := page.Viewer(c)
	if !v.SignedIn() {
		return v, page.Forbidden(page.T(c, "account.sign_in_first"))
	}
	return v, nil
}

// Show is /account.
func (h *AccountDetails) Show(c *fiber.Ctx) error {
	v, err := signedInFor(c, paths.Account)
	if err != nil || !v.SignedIn() {
		return err
	}
	data, err := h.load(c, v.ID)
	if err != nil {
		return err
	}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "account.title"), Page: page.Full(views.AccountView, data)})
}

// Rename changes the customer's name everywhere it is kept: the account,
// the copy sign-in reads, and this session's header.
func (h *AccountDetails) Rename(c *fiber.Ctx) error {
	v, err := accountViewer(c)
	if err != nil {
		return err
	}
	f := views.NameForm{Errors: views.FieldErrors{}}
	f.Name = formTextIn(c.UserContext(), f.Errors, "name", page.Field(c, "name"), oneLine)
	switch n := utf8.RuneCountInString(f.Name); {
	case f.Errors.Has("name"):
	case n == 0:
		f.Errors["name"] = page.T(c, "auth.name.missing")
	case n > maxNameRunes:
		f.Errors["name"] = page.T(c, "auth.name.long")
	}
	if !f.Errors.Any() {
		cust, err := h.Store.Customer(c.UserContext(), v.ID)
		if err != nil {
			return err
		}
		if err := h.Store.RenameCustomer(c.UserContext(), v.ID, cust.Email, f.Name); err != nil {
			return err
		}
		page.Rename(c, f.Name)
		page.Flash(c, views.FlashSuccess, page.T(c, "account.renamed", "Name", f.Name))
		return page.Redirect(c, paths.Account)
	}
	data, err := h.load(c, v.ID)
	if err != nil {
		return err
	}
	data.Name = f
	return page.Render(c, fiber.StatusUnprocessableEntity, page.View{Title: page.T(c, "account.title"), Page: page.Full(views.AccountView, data),
		Partial: views.NameFormPartial(f, data.CSRF)})
}

// ChangePassword checks the current password (so many tries per window),
// sets the new one (the rules of sign-up, typed twice), signs out every
// other session of the customer and gives this one a new id.
func (h *AccountDetails) ChangePassword(c *fiber.Ctx) error {
	v, err := accountViewer(c)
	if err != nil {
		return err
	}
	current, next, again := page.Field(c, "current_password"), page.Field(c, "new_password"), page.Field(c, "new_password_again")
	f := views.PasswordForm{Errors: views.FieldErrors{}}
	status := fiber.StatusUnprocessableEntity
	switch {
	case current == "":
		f.Errors["current_password"] = page.T(c, "account.password.enter_current")
	case len(current) > 1024:
		f.Errors["current_password"] = page.T(c, "auth.password.too_long")
	}
	switch {
	case utf8.RuneCountInString(next) < minPasswordRunes:
		f.Errors["new_password"] = page.T(c, "auth.password.short")
	case len(next) > maxPasswordBytes:
		f.Errors["new_password"] = page.T(c, "auth.password.long")
	case again != next:
		f.Errors["new_password_again"] = page.T(c, "account.password.differ")
	}
	if !f.Errors.Any() {
		changed, limited, err := h.changePassword(c, v.ID, current, next)
		switch {
		case err != nil:
			return err
		case limited:
			status = fiber.StatusTooManyRequests
			f.Errors[""] = page.T(c, "account.password.too_many")
		case !changed:
			f.Errors["current_password"] = page.T(c, "account.password.wrong")
		default:
			return page.Redirect(c, paths.Account)
		}
	}
	data, err := h.load(c, v.ID)
	if err != nil {
		return err
	}
	data.Password = f
	return page.Render(c, status, page.View{Title: page.T(c, "account.title"), Page: page.Full(views.AccountView, data),
		Partial: views.PasswordFormPartial(f, data.CSRF)})
}

func (h *AccountDetails) changePassword(c *fiber.Ctx, customerID, current, next string) (changed, limited bool, err error) {
	ctx := c.UserContext()
	n, err := h.Store.CountAttempt(ctx, "password-change", customerID, passwordChangeWindow)
	if err != nil {
		return false, false, err
	}
	if n > passwordChangeAttempts {
		return false, true, nil
	}
	cust, err := h.Store.Customer(ctx, customerID)
	if err != nil {
		return false, false, err
	}
	cred, err := h.Store.CredentialsByEmail(ctx, cust.Email)
	if err != nil {
		return false, false, err
	}
	if cred.CustomerID != customerID || bcrypt.CompareHashAndPassword([]byte(cred.PasswordHash), []byte(current)) != nil {
		return false, false, nil
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(next), h.BcryptCost)
	if err != nil {
		return false, false, err
	}
	if err := h.Store.ChangePassword(ctx, customerID, cust.Email, cred.PasswordHash, string(hash)); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return false, false, nil // changed elsewhere meanwhile: what was typed is no longer it
		}
		return false, false, err
	}
	if err := h.Store.ReturnAttempt(ctx, "password-change", customerID, passwordChangeWindow); err != nil {
		return false, false, err
	}
	ended, err := h.Store.EndSessions(ctx, customerID, page.SessionID(c))
	if err != nil {
		return false, false, err
	}
	page.RenewSession(c)
	msg := page.T(c, "account.password.changed")
	if ended > 0 {
		msg = page.N(c, "account.password.changed_ended", ended)
	}
	page.Flash(c, views.FlashSuccess, msg)
	return true, false, nil
}

// readAddressForm reads an address form as typed and checks it; the
// country must be a code of the list (a name from an older page is taken).
func readAddressForm(c *fiber.Ctx) views.AddressForm {
	f := views.AddressForm{Recipient: page.Field(c, "recipient"), Street: page.Field(c, "street"), Number: page.Field(c, "number"),
		ZipCode: page.Field(c, "zip"), City: page.Field(c, "city"), Country: page.Field(c, "country"),
		Default: page.Field(c, "default") != "", Errors: views.FieldErrors{}}
	// The messages name each field in the request's language: the
	// address book's own check (checkout's is checkAddressFields).
	for _, fld := range []struct {
		field string
		value *string
		enter string
	}{
		{"recipient", &f.Recipient, "account.address.enter_recipient"}, {"street", &f.Street, "account.address.enter_street"},
		{"number", &f.Number, "account.address.enter_number"}, {"zip", &f.ZipCode, "account.address.enter_zip"},
		{"city", &f.City, "account.address.enter_city"},
	} {
		*fld.value = formTextIn(c.UserContext(), f.Errors, fld.field, *fld.value, oneLine)
		switch n := utf8.RuneCountInString(*fld.value); {
		case f.Errors.Has(fld.field):
		case n == 0:
			f.Errors[fld.field] = page.T(c, fld.enter)
		case n > 100:
			f.Errors[fld.field] = page.T(c, "account.address.keep_short")
		}
	}
	raw := strings.TrimSpace(f.Country)
	f.Country = rules.CountryCode(raw)
	switch {
	case raw == "":
		f.Errors["country"] = page.T(c, "account.address.choose_country")
	case f.Country == "":
		f.Errors["country"] = page.T(c, "account.address.country_from_list")
	}
	return f
}

// addressFrom is the address an address form holds.
func addressFrom(f views.AddressForm) store.Address {
	return store.Address{Name: f.Recipient, Street: f.Street, Number: f.Number, ZipCode: f.ZipCode, City: f.City, Country: f.Country}
}

// AddAddress saves a new address.
func (h *AccountDetails) AddAddress(c *fiber.Ctx) error {
	v, err := accountViewer(c)
	if err != nil {
		return err
	}
	f := readAddressForm(c)
	if !f.Errors.Any() {
		_, err := h.Store.AddAddress(c.UserContext(), v.ID, addressFrom(f), f.Default)
		switch {
		case errors.Is(err, store.ErrAddressBookFull):
			f.Errors[""] = page.T(c, "account.addresses.full_error", "Max", store.MaxAddresses)
		case err != nil:
			return err
		default:
			page.Flash(c, views.FlashSuccess, page.T(c, "account.address.saved"))
			return page.Redirect(c, paths.Account)
		}
	}
	data, err := h.load(c, v.ID)
	if err != nil {
		return err
	}
	data.NewAddress = f
	return page.Render(c, fiber.StatusUnprocessableEntity, page.View{Title: page.T(c, "account.title"), Page: page.Full(views.AccountView, data),
		Partial: views.AddressFormPartial(f, data.CSRF)})
}

// EditAddress is a saved address's edit form.
func (h *AccountDetails) EditAddress(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "account.address.not_found")
	if err != nil {
		return err
	}
	v, err := signedInFor(c, paths.AccountAddress(id))
	if err != nil || !v.SignedIn() {
		return err
	}
	book, err := h.Store.Addresses(c.UserContext(), v.ID)
	if err != nil {
		return err
	}
	a, ok := book.Find(id)
	if !ok {
		return page.NotFound("account.address.not_found")
	}
	page.CSRFToken(c)
	f := views.AddressForm{ID: a.ID, Recipient: a.Name, Street: a.Street, Number: a.Number, ZipCode: a.ZipCode, City: a.City, Country: a.Country}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "account.address.edit_title"), Page: page.Full(views.AddressEditView, views.AddressEditPage{Form: f})})
}

// UpdateAddress saves an edited address.
func (h *AccountDetails) UpdateAddress(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "account.address.not_found")
	if err != nil {
		return err
	}
	v, err := accountViewer(c)
	if err != nil {
		return err
	}
	f := readAddressForm(c)
	f.ID = id
	if !f.Errors.Any() {
		if err := h.Store.UpdateAddress(c.UserContext(), v.ID, id, addressFrom(f)); err != nil {
			return notFoundAs(err, "account.address.not_found")
		}
		page.Flash(c, views.FlashSuccess, page.T(c, "account.address.updated"))
		return page.Redirect(c, paths.Account)
	}
	csrf := page.CSRFToken(c)
	return page.Render(c, fiber.StatusUnprocessableEntity, page.View{Title: page.T(c, "account.address.edit_title"), Page: page.Full(views.AddressEditView, views.AddressEditPage{Form: f}),
		Partial: views.AddressFormPartial(f, csrf)})
}

// DefaultAddress makes a saved address the default, which checkout fills in.
func (h *AccountDetails) DefaultAddress(c *fiber.Ctx) error {
	return h.addressAction(c, h.Store.SetDefaultAddress, "account.address.default_changed")
}

// DeleteAddress deletes a saved address.
func (h *AccountDetails) DeleteAddress(c *fiber.Ctx) error {
	return h.addressAction(c, h.Store.DeleteAddress, "account.address.deleted")
}

func (h *AccountDetails) addressAction(c *fiber.Ctx, act func(ctx context.Context, customerID, id string) error, done string) error {
	id, err := pathID(c, "id", "account.address.not_found")
	if err != nil {
		return err
	}
	v, err := accountViewer(c)
	if err != nil {
		return err
	}
	err = act(c.UserContext(), v.ID, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		page.Flash(c, views.FlashInfo, page.T(c, "account.address.gone"))
	case err != nil:
		return err
	default:
		page.Flash(c, views.FlashSuccess, page.T(c, done))
	}
	return page.Redirect(c, paths.Account)
}
