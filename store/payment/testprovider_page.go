package payment

import (
	"context"
	"errors"

	"shop/store"
)

// CardForm is the hosted page's card form as typed.
type CardForm struct {
	Number string
	Expiry string // MM/YY
	CVC    string
	Name   string
}

// Session reads a session for its hosted page.
func (p *TestProvider) Session(ctx context.Context, id string) (store.TestPaySession, error) {
	return p.ledger.TestPaySession(ctx, id)
}

// closed is the answer of a session that can no longer be paid:
// ErrCheckoutComplete, ErrCheckoutExpired, or nil while it can.
func (p *TestProvider) closed(s store.TestPaySession) error {
	switch {
	case s.Status == SessionComplete:
		return ErrCheckoutComplete
	case s.Status != SessionOpen || !p.now().Before(s.OpenUntil):
		return ErrCheckoutExpired
	}
	return nil
}

// PayCheckout takes the hosted page's card for a session. A card typed
// wrong answers the card's error (ErrInvalidNumber and the like); a
// declined one the bank's (ErrDeclined, ErrInsufficientFunds,
// ErrProcessing; in setup mode only the first), the session staying open
// for another card; a card whose
// bank asks the holder to confirm answers ErrAuthenticationRequired, the
// session now waiting on that challenge (AnswerChallenge). Otherwise the
// session is complete: paid (and the card saved, if asked), with its
// checkout.session.completed event, once whoever else submits it at the
// same time (ErrCheckoutComplete). A session past its time is
// ErrCheckoutExpired.
func (p *TestProvider) PayCheckout(ctx context.Context, id string, form CardForm) (store.TestPaySession, error) {
	s, err := p.ledger.TestPaySession(ctx, id)
	if err != nil {
		return store.TestPaySession{}, err
	}
	if err := p.closed(s); err != nil {
		return s, err
	}
	typed, err := readCard(form.Number, form.Expiry, form.CVC, p.Now())
	if err != nil {
		return s, err
	}
	card := storedCard(typed)
	// A decline is not kept: another card may be tried. Saving a card
	// (setup) charges nothing, so only the card declined outright is
	// refused then; one short of funds is saved, and its charges fail.
	if err := errorOf(card.Outcome); err != nil && (s.Mode == string(ModePayment) || card.Outcome == outcomeDeclined) {
		return s, err
	}
	if card.Auth == authNever {
		return p.complete(ctx, s, card, "")
	}
	next := s
	next.Challenge = &store.TestPayChallenge{ID: store.NewID(), Card: card}
	s, err = p.ledger.ChangeTestPaySession(ctx, store.TestPaySessionChange{Session: next, At: p.now()})
	if errors.Is(err, store.ErrTestPaySessionClosed) {
		return s, p.closed(s)
	}
	if err != nil {
		return s, err
	}
	return s, ErrAuthenticationRequired
}

// AnswerChallenge is the holder's answer to the bank's question the
// session waits on: approved, the session completes as PayCheckout's
// would; failed, the question is dropped and ErrAuthenticationFailed
// answers (another card may be tried). An answer to a question no longer
// asked (answered in another tab) is ErrCheckoutComplete or, the session
// still open, ErrAuthenticationFailed.
func (p *TestProvider) AnswerChallenge(ctx context.Context, id, challenge string, approve bool) (store.TestPaySession, error) {
	s, err := p.ledger.TestPaySession(ctx, id)
	if err != nil {
		return store.TestPaySession{}, err
	}
	if err := p.closed(s); err != nil {
		return s, err
	}
	if s.Challenge == nil || s.Challenge.ID != challenge {
		return s, ErrAuthenticationFailed
	}
	if approve {
		return p.complete(ctx, s, s.Challenge.Card, challenge)
	}
	next := s
	next.Challenge = nil
	s, err = p.ledger.ChangeTestPaySession(ctx, store.TestPaySessionChange{Session: next, At: p.now(), Challenge: challenge})
	if errors.Is(err, store.ErrTestPaySessionClosed) {
		if cerr := p.closed(s); cerr != nil {
			return s, cerr
		}
		return s, ErrAuthenticationFailed
	}
	if err != nil {
		return s, err
	}
	return s, ErrAuthenticationFailed
}

// storedCard is a typed card as the provider keeps it.
func storedCard(c typedCard) store.TestPayCard {
	last := c.Expires.AddDate(0, -1, 0) // Expires is the month after
	return store.TestPayCard{Brand: c.Brand, Last4: c.Last4, ExpMonth: int(last.Month()), ExpYear: last.Year(),
		Outcome: c.Outcome, Auth: c.Auth, Expires: c.Expires}
}

// complete pays (and saves the card of) an open session in one write with
// its payment, card and event.
func (p *TestProvider) complete(ctx context.Context, s store.TestPaySession, card store.TestPayCard, challenge string) (store.TestPaySession, error) {
	now := p.now()
	done := s
	done.Status, done.ClosedAt, done.Challenge, done.Card = SessionComplete, now, nil, &card
	ch := store.TestPaySessionChange{Session: done, At: now, Challenge: challenge}
	if s.SaveCard {
		ch.Method = &store.TestPayMethod{ID: ref("pm"), CustomerRef: s.CustomerRef, Card: card, CreatedAt: now}
		done.MethodRef = ch.Method.ID
	}
	if s.Mode == string(ModePayment) {
		ch.Payment = &store.TestPayIntent{ID: ref("pi"), Status: PaymentSucceeded, Amount: s.Amount, CustomerRef: s.CustomerRef,
			MethodRef: done.MethodRef, SessionID: s.ID, Description: s.Description, Card: &card, Metadata: s.Metadata,
			Refunded: store.Money{Currency: s.Amount.Currency}, CreatedAt: now}
		done.PaymentRef = ch.Payment.ID
	}
	ch.Session = done
	cs := p.checkoutSession(done)
	ev, err := p.event(EventCheckoutCompleted, now, Event{Session: &cs})
	if err != nil {
		return s, err
	}
	ch.Event = &ev
	got, err := p.ledger.ChangeTestPaySession(ctx, ch)
	if errors.Is(err, store.ErrTestPaySessionClosed) {
		if cerr := p.closed(got); cerr != nil {
			return got, cerr
		}
		return got, ErrAuthenticationFailed // open, but its question was answered in another tab
	}
	return got, err
}
