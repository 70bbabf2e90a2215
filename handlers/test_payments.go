package handlers

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/store/payment"
	"shop/views"
	"shop/views/lang"
)

// TestPaymentProvider is what the test provider's hosted pages ask of it
// (payment.TestProvider).
type TestPaymentProvider interface {
	Session(ctx context.Context, id string) (store.TestPaySession, error)
	Closed(s store.TestPaySession) error
	PayCheckout(ctx context.Context, id string, form payment.CardForm) (store.TestPaySession, error)
	AnswerChallenge(ctx context.Context, id, challenge string, approve bool) (store.TestPaySession, error)
	Payment(ctx context.Context, id string) (store.TestPayIntent, error)
	AnswerPayment(ctx context.Context, id string, approve bool) (store.TestPayIntent, error)
}

// TestPayments serves the built-in test provider's pages in test mode, as
// a card provider serves its hosted checkout: a session's card form (and
// the bank's question, for a card that asks), and the bank's question
// about a payment the shop charged off-session.
type TestPayments struct {
	Provider TestPaymentProvider
}

// paymentPage names a session or payment that was not found.
const paymentPage = "error.not_found.payment_page"

// Checkout is a session's page: the card form, the bank's question while
// one waits, or, closed, a page saying so (409 paid, 410 expired).
func (h *TestPayments) Checkout(c *fiber.Ctx) error {
	id, err := pathID(c, "session", paymentPage)
	if err != nil {
		return err
	}
	s, err := h.Provider.Session(c.UserContext(), id)
	if err != nil {
		return notFoundAs(err, paymentPage)
	}
	if err := h.Provider.Closed(s); err != nil {
		return h.closed(c, s, err)
	}
	return h.render(c, fiber.StatusOK, s, views.TestPaymentForm{Errors: views.FieldErrors{}})
}

// Pay takes the card form. A field typed wrong, or a card the bank
// declines, brings the form back with the message at its field (422; a
// decline leaves the session open for another card); a card whose bank
// asks goes to the question (303 to the page); paid, the customer goes to
// the session's success URL (303).
func (h *TestPayments) Pay(c *fiber.Ctx) error {
	id, err := pathID(c, "session", paymentPage)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	f := views.TestPaymentForm{Expiry: strings.TrimSpace(page.Field(c, "expiry")), Errors: views.FieldErrors{}}
	f.Name = formTextIn(ctx, f.Errors, "name", page.Field(c, "name"), oneLine)
	number, cvc := page.Field(c, "card_number"), page.Field(c, "cvc")
	switch n := utf8.RuneCountInString(f.Name); {
	case f.Errors.Has("name"):
	case n == 0:
		f.Errors["name"] = lang.T(ctx, "testpay.enter.name")
	case n > 100:
		f.Errors["name"] = lang.T(ctx, "form.too_long", "Max", 100)
	}
	if strings.TrimSpace(number) == "" {
		f.Errors["card_number"] = lang.T(ctx, "testpay.enter.number")
	}
	if f.Errors.Any() {
		s, err := h.Provider.Session(ctx, id)
		if err != nil {
			return notFoundAs(err, paymentPage)
		}
		if err := h.Provider.Closed(s); err != nil {
			return h.closed(c, s, err)
		}
		s.Challenge = nil // a card form sent while a question waits: the form, with its errors
		return h.render(c, fiber.StatusUnprocessableEntity, s, f)
	}
	s, err := h.Provider.PayCheckout(ctx, id, payment.CardForm{Number: number, Expiry: f.Expiry, CVC: cvc, Name: f.Name})
	return h.answer(c, s, f, err)
}

// Confirm is the holder's answer to the bank's question about the card
// typed: approved, the session is paid (303 to its success URL); failed,
// the card form comes back saying so (422).
func (h *TestPayments) Confirm(c *fiber.Ctx) error {
	id, err := pathID(c, "session", paymentPage)
	if err != nil {
		return err
	}
	challenge, approve, err := readAnswer(c)
	if err != nil {
		return err
	}
	s, err := h.Provider.AnswerChallenge(c.UserContext(), id, challenge, approve)
	return h.answer(c, s, views.TestPaymentForm{Errors: views.FieldErrors{}}, err)
}

// readAnswer reads the bank's question's form: which question, and the
// button pressed.
func readAnswer(c *fiber.Ctx) (challenge string, approve bool, err error) {
	challenge = page.Field(c, "challenge")
	answer := page.Field(c, "answer")
	if !store.ValidID(challenge) || (answer != "approve" && answer != "fail") {
		return "", false, page.BadRequest("checkout.form_broken")
	}
	return challenge, answer == "approve", nil
}

// answer is the page after the provider took a card or an answer.
func (h *TestPayments) answer(c *fiber.Ctx, s store.TestPaySession, f views.TestPaymentForm, err error) error {
	ctx := c.UserContext()
	switch {
	case err == nil:
		return page.Redirect(c, payment.SuccessURL(s))
	case errors.Is(err, store.ErrNotFound):
		return page.NotFound(paymentPage)
	case errors.Is(err, payment.ErrCheckoutComplete), errors.Is(err, payment.ErrCheckoutExpired):
		return h.closed(c, s, err)
	case errors.Is(err, payment.ErrAuthenticationRequired):
		return page.Redirect(c, c.Path()) // the page, now asking the bank's question
	case errors.Is(err, payment.ErrAuthenticationFailed):
		f.Errors[""] = lang.T(ctx, "testpay.challenge.failed")
	default:
		r, ok := page.RefusalOf(ctx, testPayRefusal(err))
		if !ok || r.Field == "" {
			return err
		}
		f.Errors[r.Field] = r.Text
		if r.Title != "" {
			f.Errors[""] = r.Title
		}
	}
	s.Challenge = nil // the form again, with what went wrong
	return h.render(c, fiber.StatusUnprocessableEntity, s, f)
}

// testPayRefusal is the refusal the test payment page says for err: a
// key sent twice is the shop's bug, a 500 elsewhere; here the holder only
// needs to try again, as after a card that could not be processed.
func testPayRefusal(err error) error {
	if errors.Is(err, payment.ErrKeyReused) {
		return payment.ErrProcessing
	}
	return err
}

func (h *TestPayments) render(c *fiber.Ctx, status int, s store.TestPaySession, f views.TestPaymentForm) error {
	p := views.TestPaymentPage{
		SessionID: s.ID, Setup: s.Mode == string(payment.ModeSetup), Amount: s.Amount, Description: s.Description,
		SaveCard: s.SaveCard, CancelURL: s.CancelURL, Form: f,
	}
	if ch := s.Challenge; ch != nil {
		p.Challenge = &views.TestPaymentChallenge{ID: ch.ID, Brand: ch.Card.Brand, Last4: ch.Card.Last4}
	}
	page.CSRFToken(c)
	return page.Render(c, status, page.View{Title: page.T(c, "testpay.title"), Page: page.Full(views.TestPaymentView, p)})
}

// closed is the page of a session that can no longer be paid: 409 paid
// (on to the shop's page after paying), 410 expired (back to the shop).
func (h *TestPayments) closed(c *fiber.Ctx, s store.TestPaySession, why error) error {
	p := views.TestPaymentClosed{Amount: s.Amount, Description: s.Description, Next: s.CancelURL}
	status := fiber.StatusGone
	if errors.Is(why, payment.ErrCheckoutComplete) {
		p.Paid, p.Next, status = true, payment.SuccessURL(s), fiber.StatusConflict
	}
	return page.Render(c, status, page.View{Title: page.T(c, "testpay.title"), Page: page.Full(views.TestPaymentClosedView, p)})
}

// Payment is the bank's question about a payment the shop charged
// off-session (a subscription's), where the shop sent the holder.
func (h *TestPayments) Payment(c *fiber.Ctx) error {
	id, err := pathID(c, "id", paymentPage)
	if err != nil {
		return err
	}
	pi, err := h.Provider.Payment(c.UserContext(), id)
	if err != nil {
		return notFoundAs(err, paymentPage)
	}
	if pi.Status != payment.PaymentRequiresAction {
		return paymentClosed(c, pi)
	}
	p := views.TestPaymentConfirmPage{PaymentID: pi.ID, Amount: pi.Amount, Description: pi.Description}
	if pi.Card != nil {
		p.Brand, p.Last4 = pi.Card.Brand, pi.Card.Last4
	}
	page.CSRFToken(c)
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "testpay.title"), Page: page.Full(views.TestPaymentConfirmView, p)})
}

// AnswerPayment takes the holder's answer about such a payment and sends
// them back to the shop (303 to the payment's return URL), which reads
// how it ended.
func (h *TestPayments) AnswerPayment(c *fiber.Ctx) error {
	id, err := pathID(c, "id", paymentPage)
	if err != nil {
		return err
	}
	_, approve, err := readAnswer(c)
	if err != nil {
		return err
	}
	pi, err := h.Provider.AnswerPayment(c.UserContext(), id, approve)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return page.NotFound(paymentPage)
	case err == nil, errors.Is(err, payment.ErrAuthenticationFailed):
		return page.Redirect(c, payment.ReturnURL(pi))
	case pi.ID != "":
		return paymentClosed(c, pi) // answered in another tab, or never asked
	}
	return err
}

// paymentClosed is the page of a payment not waiting for its holder (409).
func paymentClosed(c *fiber.Ctx, pi store.TestPayIntent) error {
	p := views.TestPaymentClosed{Amount: pi.Amount, Description: pi.Description, Paid: pi.Status == payment.PaymentSucceeded, Nothing: true}
	if pi.ReturnURL != "" {
		p.Next = payment.ReturnURL(pi)
	}
	return page.Render(c, fiber.StatusConflict, page.View{Title: page.T(c, "testpay.title"), Page: page.Full(views.TestPaymentClosedView, p)})
}
