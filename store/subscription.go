package store

import (
	"fmt"
	"time"

	"shop/store/rules"
)

// SubscriptionStatus is where a subscription is in its life.
type SubscriptionStatus string

const (
	SubscriptionActive    SubscriptionStatus = "active"
	SubscriptionPaused    SubscriptionStatus = "paused"
	SubscriptionPastDue   SubscriptionStatus = "past_due"
	SubscriptionCancelled SubscriptionStatus = "cancelled"
)

// SubscriptionStatuses lists every status, in the order staff see them.
var SubscriptionStatuses = []SubscriptionStatus{SubscriptionActive, SubscriptionPastDue, SubscriptionPaused, SubscriptionCancelled}

// ValidSubscriptionStatus reports whether s names a status.
func ValidSubscriptionStatus(s string) bool {
	for _, st := range SubscriptionStatuses {
		if string(st) == s {
			return true
		}
	}
	return false
}

// Subscription is a customer paying for a product every period, as in the
// AWS recurring-payments guide. Dates are billing dates (see rules/calendar.go).
type Subscription struct {
	ID           string
	AccountID    string // the customer's id
	ProductID    string // the guide's SKU
	ProductName  string
	Names        ProductNames // the product's name in the shop's other languages
	Email        string
	Lang         string // of its mails, copied from the customer like the email: the jobs read no customer
	MonthlyPrice Money  // of one unit
	// Quantity is how many units each month pays for (1-10; 0, on one
	// from before quantities, is 1): see Units.
	Quantity     int
	PeriodMonths int
	PaymentDay   int // 1..31
	Status       SubscriptionStatus
	Card         Card
	// Category is its product's, whose VAT rate its receipts pay; "" on
	// one from before (its next payment reads the product, and keeps it).
	Category string
	// Shipping is the delivery each payment whose period sends a parcel
	// charges (ShippingFor), its zone's rate when subscribing to ShipTo (a
	// country's code); zero for a product that does not ship, or a shop
	// without zones (subscription_delivery.go).
	Shipping Money
	ShipTo   string

	NextPaymentDate  time.Time // end of the paid period; zero when paused or cancelled
	NextReminderDate time.Time // zero once this payment's reminder is sent
	LastPaymentDate  time.Time
	LastReminderDate time.Time
	EndsOn           time.Time // cancels on this date instead of charging (cancel at period end)
	RetryDate        time.Time // past due: when the payment is tried again
	PausedOn         time.Time
	ResumesOn        time.Time // paused until this day (PauseUntil); zero: until the customer resumes
	CancelledOn      time.Time

	// Attempt counts the failed charges of the period due (dunning).
	Attempt int
	// Intent is a charge the payment job is making: recorded before the
	// gateway is called, cleared by the write that records its receipt. A
	// run that finds one left by a crashed run charges with the same key.
	Intent *PaymentIntent

	// Orders are the orders its last paid periods made, newest first (at
	// most keptPeriodOrders), when its product ships: kept on the item so
	// the customer's page links them without another read.
	Orders []PeriodOrder
	// NewPrice is a monthly price the subscriber was told of (price
	// changes), paid from the first payment on or after NewPriceFrom.
	NewPrice     Money
	NewPriceFrom time.Time
	// Coupon is the discount code attached when subscribing, while it
	// covers payments; nil without one.
	Coupon *Coupon
	// TrialEnds is the first day after its free trial (zero without one):
	// its payment due that day is the share up to the payment date after
	// (subscribe_trial.go).
	TrialEnds time.Time

	CreatedAt time.Time
	Version   int // bumped by every write; writes are conditional on it

	// stored is the subscription as read from the table at Version (nil
	// on one not read): the write on that version adds the change from it
	// to the kept totals (subscription_totals.go).
	stored *Subscription
}

// asStored is s noting that it is what the table holds.
func (s Subscription) asStored() Subscription {
	read := s
	read.stored = nil
	s.stored = &read
	return s
}

// keptPeriodOrders is how many of its periods' orders a subscription keeps
// links to; the customer's orders list has them all.
const keptPeriodOrders = 12

// PeriodOrder is the order one paid period of a subscription made.
type PeriodOrder struct {
	PeriodStart time.Time
	OrderID     string
	OrderNumber string
}

// withOrder is sub with o first among its period orders.
func (s Subscription) withOrder(o PeriodOrder) Subscription {
	s.Orders = append([]PeriodOrder{o}, s.Orders...)
	s.Orders = s.Orders[:min(len(s.Orders), keptPeriodOrders)]
	return s
}

// PaymentIntent is one charge of one period, on its way.
type PaymentIntent struct {
	Period  time.Time // the period's first day: the payment date it pays
	Attempt int       // 1 for the first try of the period, then one more per retry
	At      time.Time // when it was recorded
	// Provider and Ref are its payment at the card provider, saved before
	// the payment is confirmed, so a run after a crash confirms (or reads)
	// that one instead of making another. "" for the old gateway's charge.
	Provider string
	Ref      string
	// Waiting: the bank asked the card holder to confirm the payment, so
	// it is not tried again blindly; the customer was mailed a link to pay
	// the period on the provider's page, whose session (once opened) is
	// Session.
	Waiting bool
	Session string
}

// Key is the gateway's idempotency key of the charge: subscription, period
// and attempt. A retry after a decline is a new attempt with a new key.
func (p PaymentIntent) Key(subscriptionID string) string {
	return subscriptionChargeKey(subscriptionID, p.Period, p.Attempt)
}

// Amount is what one payment takes: the monthly price times the quantity
// times the period.
func (s Subscription) Amount() Money {
	return Money{Amount: s.MonthlyPrice.Amount * int64(s.Units()*s.PeriodMonths), Currency: s.MonthlyPrice.Currency}
}

// MonthlyPriceFor is the monthly price of the period starting on a
// payment date: the announced new price from its day on.
func (s Subscription) MonthlyPriceFor(period time.Time) Money {
	if !s.NewPriceFrom.IsZero() && !period.Before(s.NewPriceFrom) {
		return s.NewPrice
	}
	return s.MonthlyPrice
}

// AmountFor is what the payment of the period starting on a payment date
// takes, with an announced price change, less its coupon's discount while
// the coupon covers payments (DiscountFor), with its delivery (ShippingFor:
// a code takes nothing off delivery).
func (s Subscription) AmountFor(period time.Time) Money {
	gross := s.GrossFor(period)
	return Money{Amount: gross.Amount - s.Coupon.RenewalOff(gross).Amount + s.ShippingFor(period).Amount, Currency: gross.Currency}
}

// GrossFor is the price of the period starting on a payment date, before
// any coupon: after a trial, the share its first charge pays.
func (s Subscription) GrossFor(period time.Time) Money {
	if p, ok := s.trialShare(period); ok {
		return p.Share
	}
	return s.periodGross(period)
}

// periodGross is the price of a whole period starting on period.
func (s Subscription) periodGross(period time.Time) Money {
	m := s.MonthlyPriceFor(period)
	return Money{Amount: m.Amount * int64(s.Units()*s.PeriodMonths), Currency: m.Currency}
}

// DiscountFor is what the coupon takes off the payment of that period.
func (s Subscription) DiscountFor(period time.Time) Money {
	return s.Coupon.RenewalOff(s.GrossFor(period))
}

// Ending reports whether the subscription stops at the end of its period.
func (s Subscription) Ending() bool { return s.Status == SubscriptionActive && !s.EndsOn.IsZero() }

// Errors of subscription changes the customer can understand; the
// refusals say it in the catalogue's words.
var (
	ErrNotSubscribable       error = Refuse(Invalid, "subs.error.not_subscribable", "this product cannot be subscribed to")
	ErrSubscriptionCancelled error = Refuse(Conflict, "subs.error.cancelled", "this subscription is cancelled; subscribe again from the product page")
	errSubscriptionPaused    error = Refuse(Conflict, "subs.error.paused", "this subscription is paused; resume it first")
	errSubscriptionNotPaused error = Refuse(Conflict, "subs.error.not_paused", "this subscription is not paused")
	ErrSubscriptionEnding    error = Refuse(Conflict, "subs.error.ending", "this subscription ends at the end of its period; keep it first")
	errSubscriptionNotEnding error = Refuse(Conflict, "subs.error.not_ending", "this subscription is not set to end")
	ErrSameValue             error = Refuse(Conflict, "subs.error.same", "nothing to change: that is the current setting")
	ErrPaymentOutstanding    error = Refuse(Conflict, "subs.error.outstanding", "this subscription has a payment outstanding; change the card to pay it")
)

// StaleError says a subscription changed since the customer's page showed
// it; Current is how it is now, and nothing was written.
type StaleError struct{ Current Subscription }

func (e *StaleError) Error() string {
	return fmt.Sprintf("subscription %s changed (now version %d)", e.Current.ID, e.Current.Version)
}
func (e *StaleError) Is(target error) bool { return target == ErrConflict }

// A SubscriptionChange turns a subscription into its next state on a day
// (today, in the shop's time zone), or says why it cannot. Changes are pure:
// the store reads, applies one and writes on condition of the version read.
type SubscriptionChange func(s Subscription, today time.Time, reminderLead int) (Subscription, error)

// changeable refuses changes to a subscription that is over.
func changeable(s Subscription) error {
	if s.Status == SubscriptionCancelled {
		return ErrSubscriptionCancelled
	}
	return nil
}

// ChangeDay moves the payment day. The period already paid is kept whole:
// the next payment stays where it is, and the new day applies from the
// payment after it.
func ChangeDay(day int) SubscriptionChange {
	return func(s Subscription, today time.Time, lead int) (Subscription, error) {
		switch {
		case !rules.ValidPaymentDay(day):
			return s, ErrBadPaymentDay
		case changeable(s) != nil:
			return s, changeable(s)
		case s.PaymentDay == day:
			return s, ErrSameValue
		}
		s.PaymentDay = day
		return s.replanTrial(today), nil
	}
}

// ChangePeriod bills every n months from the next payment on.
func ChangePeriod(months int) SubscriptionChange {
	return func(s Subscription, today time.Time, lead int) (Subscription, error) {
		switch {
		case !rules.ValidPeriod(months):
			return s, ErrBadPeriod
		case changeable(s) != nil:
			return s, changeable(s)
		case s.PeriodMonths == months:
			return s, ErrSameValue
		}
		s.PeriodMonths = months
		return s.replanTrial(today), nil
	}
}

// ChangeCard pays from another card from the next payment on. A past-due
// subscription is retried with the new card at once (the payment job picks
// it up today).
func ChangeCard(c Card) SubscriptionChange {
	return func(s Subscription, today time.Time, lead int) (Subscription, error) {
		if err := changeable(s); err != nil {
			return s, err
		}
		if c.Token == s.Card.Token {
			return s, ErrSameValue
		}
		s.Card = c
		if s.Status == SubscriptionPastDue {
			s.RetryDate = today
		}
		if in := s.Intent; in != nil && in.Waiting {
			// The bank asked about the old card's payment: the new card
			// is tried afresh, as a new attempt with a key of its own.
			s.Attempt, s.Intent = in.Attempt, nil
		}
		return s, nil
	}
}

// Skip lets the next payment pass: nothing is charged for that period, and
// the payment after it is due one period later.
func Skip() SubscriptionChange {
	return func(s Subscription, today time.Time, lead int) (Subscription, error) {
		switch {
		case changeable(s) != nil:
			return s, changeable(s)
		case s.Status == SubscriptionPaused:
			return s, errSubscriptionPaused
		case s.Ending():
			return s, ErrSubscriptionEnding
		case s.Status == SubscriptionPastDue:
			return s, ErrPaymentOutstanding
		}
		s.NextPaymentDate = rules.NextBillingDate(s.NextPaymentDate, s.PeriodMonths, s.PaymentDay)
		s.NextReminderDate = rules.ReminderDate(s.NextPaymentDate, today, lead)
		return s, nil
	}
}

// CancelNow ends the subscription today; the period already paid is not
// refunded.
func CancelNow() SubscriptionChange {
	return func(s Subscription, today time.Time, lead int) (Subscription, error) {
		if err := changeable(s); err != nil {
			return s, err
		}
		s.Status = SubscriptionCancelled
		s.CancelledOn = today
		s.EndsOn, s.RetryDate, s.PausedOn, s.ResumesOn = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		s.NextPaymentDate, s.NextReminderDate = time.Time{}, time.Time{}
		return s, nil
	}
}

// CancelAtPeriodEnd lets the paid period run out: on its last day the
// payment job cancels the subscription instead of charging.
func CancelAtPeriodEnd() SubscriptionChange {
	return func(s Subscription, today time.Time, lead int) (Subscription, error) {
		switch {
		case changeable(s) != nil:
			return s, changeable(s)
		case s.Ending():
			return s, ErrSameValue
		case s.Status != SubscriptionActive:
			return s, fmt.Errorf("a %s subscription cannot end at the end of its period; cancel it now instead", s.Status.Label())
		}
		s.EndsOn = s.NextPaymentDate
		return s, nil
	}
}

// KeepOn takes back "cancel at period end".
func KeepOn() SubscriptionChange {
	return func(s Subscription, today time.Time, lead int) (Subscription, error) {
		if !s.Ending() {
			return s, errSubscriptionNotEnding
		}
		s.EndsOn = time.Time{}
		if s.NextReminderDate.IsZero() && s.LastReminderDate.Before(s.NextPaymentDate.AddDate(0, 0, -lead)) {
			s.NextReminderDate = rules.ReminderDate(s.NextPaymentDate, today, lead)
		}
		return s, nil
	}
}

// Label is the status in words.
func (st SubscriptionStatus) Label() string {
	switch st {
	case SubscriptionActive:
		return "active"
	case SubscriptionPaused:
		return "paused"
	case SubscriptionPastDue:
		return "past due"
	case SubscriptionCancelled:
		return "cancelled"
	}
	return string(st)
}
