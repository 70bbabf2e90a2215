package handlers

import (
	"context"
	"errors"
	"strings"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/views/mail"
	"shop/web/paths"
)

// GuestCheckoutStore is what a guest checkout needs beyond CheckoutStore:
// the email's passwordless customer.
type GuestCheckoutStore interface {
	GuestCustomer(ctx context.Context, g store.NewGuest) (store.Customer, error)
}

// checkoutBuyer is who checks out: ID the customer ("" for a guest whose
// customer is not made yet), Owner the cart, Who what code lookups are
// counted under, Guest a checkout without an account.
type checkoutBuyer struct {
	ID, Owner, Who string
	Guest          bool
}

// buyerOf is the visit's buyer: the signed-in customer, or the visitor
// (the guest customer of an earlier guest checkout in this session, if
// any) with the visitor's cart ("" when there is none).
func (h *Checkout) buyerOf(c *fiber.Ctx) checkoutBuyer {
	if v := page.Viewer(c); v.SignedIn() {
		return checkoutBuyer{ID: v.ID, Owner: store.CustomerOwner(v.ID), Who: v.ID}
	}
	return checkoutBuyer{ID: page.Guest(c), Owner: page.VisitorCart(c), Who: "visitor " + page.ClientAddress(c), Guest: true}
}

// showGuest is the checkout page for a visitor: the form with an email
// field, beside the way to sign in.
func (h *Checkout) showGuest(c *fiber.Ctx) error {
	b := h.buyerOf(c)
	var cart store.Cart
	var err error
	if b.Owner != "" {
		if cart, err = h.Store.Cart(c.UserContext(), b.Owner); err != nil {
			return err
		}
	}
	page.SetCartUnits(c, cart.Units())
	if len(cart.Lines) == 0 {
		page.Flash(c, views.FlashInfo, page.T(c, "checkout.cart_empty"))
		return page.Redirect(c, paths.Cart)
	}
	f := views.CheckoutForm{Key: store.NewID(), Guest: true, Errors: views.FieldErrors{}}
	req, _, err := h.request(c.UserContext(), b.ID, b.Owner, f)
	if err != nil {
		return err
	}
	summary, _, err := h.summarize(c.UserContext(), req, b.Who, &f)
	if err != nil {
		return err
	}
	page.CSRFToken(c)
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "checkout.title"), Page: page.Full(views.CheckoutView,
		views.CheckoutPage{Form: f, Summary: summary})})
}

// placeGuest is Place for a visitor: the email is checked with the other
// fields, and the guest's customer made or found only once all are right.
func (h *Checkout) placeGuest(c *fiber.Ctx, f views.CheckoutForm) error {
	b := h.buyerOf(c)
	if b.Owner == "" {
		page.Flash(c, views.FlashInfo, page.T(c, "checkout.cart_empty"))
		return page.Redirect(c, paths.Cart)
	}
	f.Guest = true
	f.Email = formTextIn(c.UserContext(), f.Errors, "email", strings.TrimSpace(f.Email), oneLine)
	if page.Field(c, "apply") == "" && !f.Errors.Has("email") {
		if msg := emailProblem(c, f.Email); msg != "" {
			f.Errors["email"] = msg
		}
	}
	// b.ID, an earlier guest checkout's customer in this session, finds
	// this form's order if it was sent twice; the order's customer is the
	// email's (buyer).
	return h.placeFor(c, b, f)
}

// buyer sets the order's buyer on req: the signed-in customer as now
// read, or a guest's customer, made or found by email (GuestCustomer) at
// most as often as sign-up makes accounts. A problem with the email is
// put at its field, with the status to answer.
func (h *Checkout) buyer(c *fiber.Ctx, b checkoutBuyer, req *store.CheckoutRequest, f *views.CheckoutForm) (int, error) {
	ctx := c.UserContext()
	if !b.Guest {
		cust, err := h.Store.Customer(ctx, req.CustomerID)
		if err != nil {
			return 0, err
		}
		req.Buyer = store.Buyer{Name: cust.Name, Email: cust.Email, Lang: mail.Lang(ctx, cust.Lang)}
		return fiber.StatusUnprocessableEntity, nil
	}
	n, err := h.Store.CountAttempt(ctx, "signup-ip", page.ClientAddress(c), signupWindow)
	if err != nil {
		return 0, err
	}
	if n > signupPerAddress {
		f.Errors[""] = page.T(c, "auth.signup.limited")
		return fiber.StatusTooManyRequests, nil
	}
	cust, err := h.Guests.GuestCustomer(ctx, store.NewGuest{Email: f.Email, Name: f.Name, Lang: string(page.Lang(c))})
	switch {
	case errors.Is(err, store.ErrEmailTaken):
		// Said as sign-up says it, and as often: past a few an hour per
		// email domain, no longer.
		_, domain, _ := strings.Cut(store.NormalizeEmail(f.Email), "@")
		n, err := h.Store.CountAttempt(ctx, "signup-taken", domain, signupWindow)
		if err != nil {
			return 0, err
		}
		if n > signupTakenPerDomain {
			f.Errors[""] = page.T(c, "auth.signup.domain_limited", "Domain", domain)
			return fiber.StatusTooManyRequests, nil
		}
		f.Errors["email"] = page.T(c, "checkout.guest.email_taken")
		f.EmailTaken = true
		return fiber.StatusConflict, nil
	case errors.Is(err, store.ErrConflict):
		f.Errors[""] = page.T(c, "checkout.conflict")
		return fiber.StatusConflict, nil
	case err != nil:
		return 0, err
	}
	req.CustomerID = cust.ID
	if req.Quote != nil {
		// Priced before the customer was known: its lines are theirs.
		for i := range req.Quote.Items {
			req.Quote.Items[i].CustomerID = cust.ID
		}
	}
	req.Buyer = store.Buyer{Name: f.Name, Email: cust.Email, Lang: mail.Lang(ctx, string(page.Lang(c))), Guest: true}
	return fiber.StatusUnprocessableEntity, nil
}
