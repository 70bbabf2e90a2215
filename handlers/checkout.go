package handlers

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/store/rules"
	"shop/views"
	"shop/views/lang"
	"shop/web/paths"
)

// CheckoutStore is what checkout reads and writes.
type CheckoutStore interface {
	Cart(ctx context.Context, owner string) (store.Cart, error)
	OrderForKey(ctx context.Context, key, customerID string) (store.Order, error)
	CountAttempt(ctx context.Context, scope, subject string, window time.Duration) (int, error)
	QuoteCheckout(ctx context.Context, req store.CheckoutRequest) (store.Quote, error)
	HoldCheckout(ctx context.Context, req store.CheckoutRequest) (store.Order, error)
	Customer(ctx context.Context, id string) (store.Customer, error)
	Addresses(ctx context.Context, customerID string) (store.AddressBook, error)
	AddAddress(ctx context.Context, customerID string, a store.Address, asDefault bool) (store.SavedAddress, error)
}

// Checkout serves /checkout: the address, the codes, and placing the
// order. The card is typed on the card provider's page (Pages), never
// here: the order is held and the customer sent there, unless the codes
// pay for all of it.
type Checkout struct {
	Store CheckoutStore
	Pages *PaymentPages
	// Hold is how long a held order waits for its card payment.
	Hold time.Duration
	Log  *slog.Logger // an address that could not be saved after an order
	// Confirmation is the order's confirmation mail, written with the
	// order (nil: none).
	Confirmation store.ConfirmationMail
	// Guests makes or finds the customer of a guest checkout.
	Guests GuestCheckoutStore
}

func (h *Checkout) request(ctx context.Context, customerID, owner string, f views.CheckoutForm) (store.CheckoutRequest, store.Cart, error) {
	cart, err := h.Store.Cart(ctx, owner)
	if err != nil {
		return store.CheckoutRequest{}, cart, err
	}
	req := store.CheckoutRequest{
		Key: f.Key, CustomerID: customerID, CartOwner: owner,
		ShipTo: shipTo(f),
	}
	for _, l := range cart.Lines {
		req.Lines = append(req.Lines, store.CheckoutLine{ProductID: l.ProductID, Quantity: l.Quantity, DropID: l.DropID})
	}
	return req, cart, nil
}

// shipTo is the form's address as the order keeps it: the country by its
// name, as orders always have.
func shipTo(f views.CheckoutForm) store.Address {
	country := f.Country
	if name, ok := rules.CountryName(f.Country); ok {
		country = name
	}
	return store.Address{Name: f.Name, Street: f.Street, Number: f.Number, ZipCode: f.ZipCode, City: f.City, Country: country}
}

// Code lookups per customer and hour: enough for anyone typing codes, too
// few to guess them.
const codeLookupsPerHour = 60

// summarize quotes the order for the summary panel; problems with the codes
// or the stock are shown there, not raised.
//
// The quote is returned too when it priced exactly the request as asked (no
// code was refused), so placing the order need not read it all again.
func (h *Checkout) summarize(ctx context.Context, req store.CheckoutRequest, who string, f *views.CheckoutForm) (views.CheckoutSummary, *store.Quote, error) {
	s := views.CheckoutSummary{Errors: views.FieldErrors{}}
	var err error
	if f.Discount != "" || f.GiftCard != "" {
		n, err := h.Store.CountAttempt(ctx, "code-lookup", who, time.Hour)
		if err != nil {
			return s, nil, err
		}
		if n > codeLookupsPerHour {
			for _, field := range []string{"discount", "giftcard"} {
				s.Errors[field] = lang.T(ctx, "checkout.code.too_many")
			}
			f.Discount, f.GiftCard = "", ""
		}
	}
	if req.DiscountCode, err = optionalCode(f.Discount); err != nil {
		s.Errors["discount"] = refusalText(ctx, err)
	}
	if req.GiftCardCode, err = optionalCode(f.GiftCard); err != nil {
		s.Errors["giftcard"] = refusalText(ctx, err)
	}
	for {
		q, err := h.Store.QuoteCheckout(ctx, req)
		var ce *store.CodeError
		var short *store.StockShortError
		switch {
		case err == nil:
			s.Items, s.Tender, s.Zone, s.Zones = q.Items, q.Tender, q.Zone, q.Zones
			// The form confirms the total with delivery: a country whose
			// rate the customer has not seen yet (typed with no JavaScript)
			// shows it once before anything is charged.
			f.Total = strconv.FormatInt(q.Tender.Total.Amount, 10)
			if code := rules.CountryCode(f.Country); code != "" && len(q.Zones) > 0 && q.Zone == nil {
				s.Errors["country"] = views.NotDelivered(ctx, code, q.Zones)
			}
			if q.Discount != nil {
				s.Discount = q.Discount.Code
			}
			if q.GiftCard != nil {
				s.GiftCard = q.GiftCard.Code
			}
			if len(s.Errors) > 0 {
				return s, nil, nil
			}
			return s, &q, nil
		case errors.As(err, &ce):
			// Show the error at its field and price the order without that code.
			s.Errors[ce.Field] = refusalText(ctx, ce)
			if ce.Field == "discount" {
				req.DiscountCode = ""
			} else {
				req.GiftCardCode = ""
			}
		case errors.As(err, &short):
			s.Problem = refusalText(ctx, short)
			return s, nil, nil
		case errors.Is(err, store.ErrEmptyOrder), errors.Is(err, store.ErrCartFull),
			errors.Is(err, store.ErrTicketNotRedeemable), errors.Is(err, store.ErrOneTicketPerOrder):
			s.Problem = refusalText(ctx, err)
			return s, nil, nil
		default:
			return s, nil, err
		}
	}
}

func optionalCode(s string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return "", nil
	}
	return store.NormalizeCode(s)
}

// readCheckoutForm reads the form; the ship-to fields as typed, for
// validateAddress to clean.
func readCheckoutForm(c *fiber.Ctx) views.CheckoutForm {
	v := func(k string) string { return strings.TrimSpace(page.Field(c, k)) }
	raw := func(k string) string { return page.Field(c, k) }
	return views.CheckoutForm{
		Key: v("key"), Name: raw("name"), Street: raw("street"), Number: raw("number"), ZipCode: raw("zip"),
		City: raw("city"), Country: raw("country"), Discount: v("discount"), GiftCard: v("giftcard"),
		Total: v("total"), SaveAddress: page.Field(c, "save_address") != "", Email: raw("email"), Errors: views.FieldErrors{},
	}
}

// validateAddress cleans the ship-to fields and checks each, as
// checkAddressFields and checkCountry do, in the language of ctx.
func validateAddress(ctx context.Context, f *views.CheckoutForm) {
	for _, fld := range []struct {
		field string
		value *string
		enter string // the message of an empty field
	}{
		{"name", &f.Name, "checkout.enter.name"}, {"street", &f.Street, "checkout.enter.street"},
		{"number", &f.Number, "checkout.enter.number"}, {"zip", &f.ZipCode, "checkout.enter.zip"},
		{"city", &f.City, "checkout.enter.city"},
	} {
		*fld.value = formTextIn(ctx, f.Errors, fld.field, *fld.value, oneLine)
		switch n := utf8.RuneCountInString(*fld.value); {
		case f.Errors.Has(fld.field):
		case n == 0:
			f.Errors[fld.field] = lang.T(ctx, fld.enter)
		case n > 100:
			f.Errors[fld.field] = lang.T(ctx, "form.too_long", "Max", 100)
		}
	}
	raw := strings.TrimSpace(f.Country)
	f.Country = rules.CountryCode(raw)
	switch {
	case raw == "":
		f.Errors["country"] = lang.T(ctx, "form.country.choose")
	case f.Country == "":
		f.Errors["country"] = lang.T(ctx, "form.country.from_list")
	}
}

// Show is the checkout page for the signed-in customer's cart, or for a
// visitor's as a guest (checkout_guest.go).
func (h *Checkout) Show(c *fiber.Ctx) error {
	v := page.Viewer(c)
	if !v.SignedIn() {
		return h.showGuest(c)
	}
	f := views.CheckoutForm{Key: store.NewID(), Name: v.Name, Errors: views.FieldErrors{}}
	book, err := h.Store.Addresses(c.UserContext(), v.ID)
	if err != nil {
		return err
	}
	// The address asked for (?address=), else the default, is filled in;
	// the others are offered as links.
	chosen, ok := book.Find(c.Query("address"))
	if !ok {
		chosen, ok = book.Default()
	}
	if ok {
		f.Name, f.Street, f.Number, f.ZipCode, f.City, f.Country = chosen.Name, chosen.Street, chosen.Number, chosen.ZipCode, chosen.City, chosen.Country
	}
	req, cart, err := h.request(c.UserContext(), v.ID, store.CustomerOwner(v.ID), f)
	if err != nil {
		return err
	}
	page.SetCartUnits(c, cart.Units())
	if len(cart.Lines) == 0 {
		page.Flash(c, views.FlashInfo, page.T(c, "checkout.cart_empty"))
		return page.Redirect(c, paths.Cart)
	}
	summary, _, err := h.summarize(c.UserContext(), req, v.ID, &f)
	if err != nil {
		return err
	}
	page.CSRFToken(c)
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "checkout.title"), Page: page.Full(views.CheckoutView,
		views.CheckoutPage{Form: f, Summary: summary, Saved: book.Addresses, Chosen: chosen.ID, CanSave: !book.Full()})})
}

// Summary re-prices the order as the codes change (htmx).
func (h *Checkout) Summary(c *fiber.Ctx) error {
	b := h.buyerOf(c)
	if b.Owner == "" {
		return page.Forbidden("checkout.sign_in")
	}
	f := readCheckoutForm(c)
	req, _, err := h.request(c.UserContext(), b.ID, b.Owner, f)
	if err != nil {
		return err
	}
	summary, _, err := h.summarize(c.UserContext(), req, b.Who, &f)
	if err != nil {
		return err
	}
	// The form's expected total follows the summary (an out-of-band swap).
	return page.Write(c, fiber.StatusOK, views.CheckoutSummaryUpdate(summary, f.Total))
}

// Place places the order: the form is checked field by field, every
// problem at once (the address's, the codes', the cart's), each at its
// field with what was typed kept, in a 422 that writes nothing. Otherwise
// the order is held and the customer sent to the card provider's page, or
// placed at once when the codes pay all of it. "Apply" (without
// JavaScript) brings the form back priced with its codes instead.
func (h *Checkout) Place(c *fiber.Ctx) error {
	f := readCheckoutForm(c)
	if !page.Viewer(c).SignedIn() {
		return h.placeGuest(c, f)
	}
	return h.placeFor(c, h.buyerOf(c), f)
}

// placeFor is Place for the buyer b: a customer signed in, or a guest
// (whose customer is made or found once the form is right).
func (h *Checkout) placeFor(c *fiber.Ctx, b checkoutBuyer, f views.CheckoutForm) error {
	var err error
	ctx := c.UserContext()
	validateAddress(ctx, &f)
	if !store.ValidID(f.Key) || len(f.Key) > 36 {
		return page.BadRequest("checkout.form_broken")
	}
	// The total the page showed; none when it showed a problem instead.
	seen := int64(-1)
	if f.Total != "" {
		if seen, err = strconv.ParseInt(f.Total, 10, 64); err != nil {
			return page.BadRequest("checkout.form_broken")
		}
	}
	req, cart, err := h.request(ctx, b.ID, b.Owner, f)
	if err != nil {
		return err
	}
	if len(cart.Lines) == 0 && b.ID != "" {
		// Most likely this very form, submitted again after its order was
		// placed (which emptied the cart): show that order. With lines in
		// the cart, Checkout itself answers a used key with its order.
		switch placed, err := h.Store.OrderForKey(ctx, f.Key, b.ID); {
		case err == nil:
			return page.Redirect(c, paths.Order(placed.ID))
		case !errors.Is(err, store.ErrNotFound): // someone else's key says itself: a broken form (400)
			return err
		}
	}
	if len(cart.Lines) == 0 {
		page.Flash(c, views.FlashInfo, page.T(c, "checkout.cart_empty"))
		return page.Redirect(c, paths.Cart)
	}
	summary, quote, err := h.summarize(ctx, req, b.Who, &f)
	if err != nil {
		return err
	}
	for field, msg := range summary.Errors {
		f.Errors[field] = msg
	}
	if summary.Problem != "" {
		f.Errors[""] = summary.Problem
	}
	if page.Field(c, "apply") != "" {
		return h.applied(c, f, summary)
	}
	req.DiscountCode, _ = optionalCode(f.Discount)
	req.GiftCardCode, _ = optionalCode(f.GiftCard)
	req.Quote = quote
	// The customer confirms the total they saw; a new one is shown first.
	req.ExpectTotal = &store.Money{Amount: seen, Currency: summary.Tender.Total.Currency}
	switch {
	case f.Errors.Any() || summary.Tender.Total.Amount == seen:
	case summary.Tender.Shipping.Amount > 0 && summary.Tender.Goods().Amount == seen:
		// The page priced the goods alone: the country came with the order.
		f.Errors[""] = lang.T(ctx, "checkout.total_with_delivery", "Shipping", lang.Money(ctx, summary.Tender.Shipping), "Total", lang.Money(ctx, summary.Tender.Total))
	default:
		f.Errors[""] = lang.T(ctx, "checkout.total_now", "Total", lang.Money(ctx, summary.Tender.Total))
	}

	return h.order(c, b, req, f, summary)
}

// order holds or places the order of a form found right, for the buyer
// found or made now; a refusal is the form again with why at its field.
func (h *Checkout) order(c *fiber.Ctx, b checkoutBuyer, req store.CheckoutRequest, f views.CheckoutForm, summary views.CheckoutSummary) error {
	ctx := c.UserContext()
	var err error
	status := fiber.StatusUnprocessableEntity
	if !f.Errors.Any() {
		// The order keeps the buyer's name and email as they are now (one
		// read, only when an order is placed), for staff lists and invoices.
		if status, err = h.buyer(c, b, &req, &f); err != nil {
			return err
		}
	}
	if !f.Errors.Any() {
		req.Confirmation = h.Confirmation
		order, err := h.place(ctx, req)
		if err == nil && b.Guest {
			page.SignInGuest(c, req.CustomerID)
			page.GuestOrder(c, order.ID)
		}
		if err == nil && order.Status == store.OrderAwaitingPayment {
			return h.toPayment(c, order, f)
		}
		if err == nil {
			// Placed (the codes paid): the answer is the order, whatever
			// happens to the session after.
			page.Written(c, "order", order.ID)
			page.SetCartUnits(c, 0)
			msg := page.T(c, "checkout.placed")
			if f.SaveAddress {
				msg = page.T(c, "checkout.placed_and", "Address", h.saveAddress(ctx, b.ID, f))
			}
			page.Flash(c, views.FlashSuccess, msg)
			return page.Redirect(c, paths.Order(order.ID))
		}
		// A refusal says itself at its field (store.HoldCheckout says it
		// as a refusal met while placing); any other error is the page's.
		if !refusedAtField(ctx, f.Errors, err) {
			return err
		}
		if summary, _, err = h.summarize(ctx, req, b.Who, &f); err != nil {
			return err
		}
	}
	// The failed attempt is over: a new key, so trying again is a new
	// attempt rather than a replay of a refused one.
	f.Key = store.NewID()
	return formAgain(c, status, f, summary)
}

// formAgain is the checkout form back with what was typed and its summary.
func formAgain(c *fiber.Ctx, status int, f views.CheckoutForm, summary views.CheckoutSummary) error {
	page.CSRFToken(c)
	return page.Render(c, status, page.View{Title: page.T(c, "checkout.title"), Page: page.Full(views.CheckoutView,
		views.CheckoutPage{Form: f, Summary: summary, CanSave: !f.Guest})})
}

// saveAddress keeps the address of an order just placed in the customer's
// address book, unless it is there already, and says what it did. The
// order is placed whatever happens here, so a failure is said and logged,
// never the answer to the order.
func (h *Checkout) saveAddress(ctx context.Context, customerID string, f views.CheckoutForm) string {
	a := store.Address{Name: f.Name, Street: f.Street, Number: f.Number, ZipCode: f.ZipCode, City: f.City, Country: f.Country}
	book, err := h.Store.Addresses(ctx, customerID)
	if err == nil {
		for _, s := range book.Addresses {
			if s.Same(a) {
				return lang.T(ctx, "checkout.address.saved_already")
			}
		}
		_, err = h.Store.AddAddress(ctx, customerID, a, false)
	}
	switch {
	case errors.Is(err, store.ErrAddressBookFull):
		return lang.T(ctx, "checkout.address.book_full", "Max", store.MaxAddresses)
	case err != nil:
		if h.Log != nil {
			h.Log.Warn("address not saved after checkout", "customer", customerID, "err", err)
		}
		return lang.T(ctx, "checkout.address.not_saved")
	}
	return lang.T(ctx, "checkout.address.saved")
}

// applied is the form again after "Apply" without JavaScript: priced with
// its codes, their problems at their fields (200 when there are none), and
// the address not judged yet: the customer may not have typed it.
func (h *Checkout) applied(c *fiber.Ctx, f views.CheckoutForm, summary views.CheckoutSummary) error {
	codes := views.FieldErrors{}
	for _, field := range []string{"discount", "giftcard", ""} {
		if msg, ok := f.Errors[field]; ok {
			codes[field] = msg
		}
	}
	f.Errors = codes
	status := fiber.StatusOK
	if codes.Any() {
		status = fiber.StatusUnprocessableEntity
	}
	return formAgain(c, status, f, summary)
}
