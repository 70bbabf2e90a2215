package views

import (
	"strconv"
	"strings"
	"time"

	"shop/store"
)

// SubscribeForm is the product page's subscribe form, as typed; the card's
// number and security code are never echoed back.
type SubscribeForm struct {
	Product  store.Product
	SignedIn bool
	Key      string // idempotency key: one subscription per form
	Day      string // payment day, 1..31
	Period   string // months: 1, 2, 3 or 6
	Card     string // "new", or the token of a card kept from another subscription
	Expiry   string
	Cards    []store.Card // cards kept from the customer's subscriptions
	Errors   FieldErrors
	CSRF     string
}

// SubscribePage is the subscribe form on a page of its own: where a plain
// form comes back with its errors.
type SubscribePage struct {
	Form SubscribeForm
}

// SubscriptionCard is one subscription on /subscriptions with its actions;
// every action swaps it whole.
type SubscriptionCard struct {
	Sub    store.Subscription
	Cards  []store.Card // cards kept from the customer's subscriptions
	Today  time.Time
	Notice string      // what the last action did
	Error  string      // why the last action did nothing
	Errors FieldErrors // at the fields of the open form
	Open   string      // the action form shown open: "day", "period", "card", "cancel"
	Day    string      // as typed, when it comes back
	Expiry string
	CSRF   string
}

// SubscriptionsPage lists a customer's subscriptions.
type SubscriptionsPage struct {
	Cards []SubscriptionCard
}

// KeptCards are the distinct cards of a customer's subscriptions, newest
// subscription first.
func KeptCards(subs []store.Subscription) []store.Card {
	var out []store.Card
	seen := map[string]bool{}
	for _, s := range subs {
		if s.Card.Token == "" || seen[s.Card.Token] {
			continue
		}
		seen[s.Card.Token] = true
		out = append(out, s.Card)
	}
	return out
}

// dayLabel writes a billing date as "2 Jan 2006"; "" for none.
func dayLabel(d time.Time) string {
	if d.IsZero() {
		return ""
	}
	return d.Format("2 Jan 2006")
}

// InZone is an instant in the shop's time zone, for Date to show its day.
func InZone(t time.Time, loc *time.Location) time.Time {
	if loc == nil {
		return t
	}
	return t.In(loc)
}

// PeriodWord is "every month", "every 3 months".
func PeriodWord(months int) string {
	if months == 1 {
		return "every month"
	}
	return "every " + strconv.Itoa(months) + " months"
}

func periodPrice(monthly store.Money, months int) store.Money {
	return store.Money{Amount: monthly.Amount * int64(months), Currency: monthly.Currency}
}

// Ordinal is "1st", "2nd", "23rd", "31st".
func Ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

func paymentDayWord(day int) string {
	if day >= 29 {
		return "the " + Ordinal(day) + " (the last day in shorter months)"
	}
	return "the " + Ordinal(day)
}

// subscriptionStatus is the status as the customer reads it.
func subscriptionStatus(s store.Subscription) string {
	if s.Ending() {
		return "Ending on " + dayLabel(s.EndsOn)
	}
	l := s.Status.Label()
	return strings.ToUpper(l[:1]) + l[1:]
}

func statusClass(s store.Subscription) string {
	if s.Ending() {
		return "status-ending"
	}
	return "status-" + string(s.Status)
}

// afterSkip is when the payment after a skipped one falls due.
func afterSkip(s store.Subscription) time.Time {
	return store.NextBillingDate(s.NextPaymentDate, s.PeriodMonths, s.PaymentDay)
}

// otherCards are the kept cards a subscription could change to.
func otherCards(c SubscriptionCard) []store.Card {
	var out []store.Card
	for _, k := range c.Cards {
		if k.Token != c.Sub.Card.Token {
			out = append(out, k)
		}
	}
	return out
}

// ShopAddress is where the shop is, printed on receipts.
const ShopAddress = "Hamngatan 12, 411 11 Göteborg, Sweden"
