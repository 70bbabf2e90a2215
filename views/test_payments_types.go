package views

import "shop/store"

// TestPaymentForm is the test provider's card form as typed: the number
// and security code are never echoed back.
type TestPaymentForm struct {
	Expiry string
	Name   string
	Errors FieldErrors
}

// TestPaymentChallenge is the bank's question the page asks: confirm it
// is the holder paying with this card.
type TestPaymentChallenge struct {
	ID    string
	Brand string
	Last4 string
}

// TestPaymentPage is the test provider's hosted page of a session: what
// it pays for and how much, and the card form, or the bank's question.
type TestPaymentPage struct {
	SessionID   string
	Setup       bool // saves a card, charges nothing
	Amount      store.Money
	Description string
	SaveCard    bool
	CancelURL   string
	Form        TestPaymentForm
	Challenge   *TestPaymentChallenge
}

// TestPaymentClosed is the page of a session that can no longer be paid,
// or of a payment with nothing to confirm.
type TestPaymentClosed struct {
	Paid        bool // paid already (409)
	Nothing     bool // a payment not waiting for its holder (409); neither: expired (410)
	Amount      store.Money
	Description string
	// Next is where the customer goes on: the shop's page after paying,
	// or back.
	Next string
}

// TestPaymentConfirmPage is the bank's question about a payment the shop
// charged off-session (a subscription's), on the page the shop sent the
// holder to.
type TestPaymentConfirmPage struct {
	PaymentID   string
	Amount      store.Money
	Description string
	Brand       string
	Last4       string
}

// spacedCard writes a card number in groups of four, as printed on a card.
func spacedCard(digits string) string {
	var b []byte
	for i := 0; i < len(digits); i++ {
		if i > 0 && i%4 == 0 {
			b = append(b, ' ')
		}
		b = append(b, digits[i])
	}
	return string(b)
}
