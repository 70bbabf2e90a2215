package views

import (
	"context"
	"strconv"
	"time"

	"github.com/a-h/templ"

	"shop/store"
	"shop/store/rules"
	"shop/views/lang"
)

// SubscribeForm is the product page's subscribe form, as typed. A new card
// is typed on the card provider's page, never here.
type SubscribeForm struct {
	Product  store.Product
	SignedIn bool
	Key      string       // idempotency key: one subscription per form
	Day      string       // payment day, 1..31
	Period   string       // months: 1, 2, 3 or 6
	Card     string       // "new", or the token of a card kept from another subscription
	Cards    []store.Card // cards kept from the customer's subscriptions
	Errors   FieldErrors
	CSRF     string
	// Quote is what the day and period come to, shown before the customer
	// confirms (SubscribePreview); nil while either is not valid.
	Quote *store.SubscribeQuote
	// Ships: the product ships, so the preview says when the first
	// delivery goes when the first days pay for none.
	Ships bool
	// Code is the discount code typed (optional); Discount is it read
	// and checked, nil while none or refused (Errors["code"] says why).
	Code     string
	Discount *store.DiscountCode
	// TrialTaken: the customer had the product's free trial, so this
	// subscribe is charged from today (Product.TrialDays is not offered).
	TrialTaken bool
	// Delivery is where a product that ships goes and its zone (nil: it
	// does not ship, or the shop has no zones); DeliveryProblem says why
	// it cannot be priced (no address, a country no zone holds), which
	// refuses the subscribe.
	Delivery        *store.SubscribeDelivery
	DeliveryProblem string

	// cardChoice, when set, is written where the card's choice goes: the
	// mark of its hole in the kept panel (subscribe_panel_kept.go).
	cardChoice templ.Component
}

// quoteDates are the days the first payment pays: "28–30 Nov 2026".
func quoteDates(ctx context.Context, p rules.Proration) string {
	return lang.DateRange(ctx, p.From, p.To)
}

// shipsLater: the first days pay for no unit of a product that ships, so
// the first delivery comes with the first whole period.
func (f SubscribeForm) shipsLater() bool {
	return f.Ships && f.Quote != nil && f.Quote.First.Units() == 0
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
	Until  string      // the pause's end as typed, when it comes back
	CSRF   string
	// Products are the subscribable products it may swap to (the form
	// offers those of its currency); Swap is the swap form as typed, with
	// its preview (subscription_swap_types.go).
	Products []store.Product
	Swap     SwapForm
}

// SubscriptionsPage lists a customer's subscriptions.
type SubscriptionsPage struct {
	Cards []SubscriptionCard
}

// KeptCards are the distinct cards of a customer's subscriptions, newest
// subscription first. Each subscription paid on the provider's page saves
// the card anew, so one card can be kept under several tokens: a card that
// reads the same (provider, brand, last four, expiry) is offered once, as
// its newest token, rather than as three identical choices.
func KeptCards(subs []store.Subscription) []store.Card {
	var out []store.Card
	seen := map[store.Card]bool{}
	for _, s := range subs {
		if s.Card.Token == "" || seen[cardLooks(s.Card)] {
			continue
		}
		seen[cardLooks(s.Card)] = true
		out = append(out, s.Card)
	}
	return out
}

// cardLooks is what tells a kept card from another to its holder: all but
// the token.
func cardLooks(c store.Card) store.Card {
	c.Token = ""
	return c
}

// dayLabel writes a billing date as the page's language writes a day:
// "2 Jan 2006", "2006년 1월 2일"; "" for none.
func dayLabel(ctx context.Context, d time.Time) string { return lang.Date(ctx, d) }

// InZone is an instant in the shop's time zone, for Date to show its day.
func InZone(t time.Time, loc *time.Location) time.Time {
	if loc == nil {
		return t
	}
	return t.In(loc)
}

// PeriodWord is "every month", "every 3 months" in the language of ctx.
// A month on its own has words of its own in every language (매월, setiap
// bulan), not the plural's count of one.
func PeriodWord(ctx context.Context, months int) string {
	if months == 1 {
		return lang.T(ctx, "subs.period.every_month")
	}
	return lang.N(ctx, "subs.period.every_months", months)
}

// periodTitle is PeriodWord at the start of a line: "Every 3 months".
func periodTitle(ctx context.Context, months int) string {
	if months == 1 {
		return lang.T(ctx, "subs.period.title_month")
	}
	return lang.N(ctx, "subs.period.title_months", months)
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

// DayOfMonth is a payment day as the messages of ctx's language read it
// in {{.Day}}: "15th" in English ("the 15th"), the number in Korean and
// Indonesian, whose messages put 일 or tanggal around it.
func DayOfMonth(ctx context.Context, day int) string {
	if lang.From(ctx) == lang.English {
		return Ordinal(day)
	}
	return strconv.Itoa(day)
}

func paymentDayWord(ctx context.Context, day int) string {
	if day >= 29 {
		return lang.T(ctx, "subs.day.late", "Day", DayOfMonth(ctx, day))
	}
	return lang.T(ctx, "subs.day.usual", "Day", DayOfMonth(ctx, day))
}

var subscriptionStatusIDs = map[store.SubscriptionStatus]string{
	store.SubscriptionActive:    "subs.status.active",
	store.SubscriptionPaused:    "subs.status.paused",
	store.SubscriptionPastDue:   "subs.status.past_due",
	store.SubscriptionCancelled: "subs.status.cancelled",
}

// subscriptionStatus is the status as the customer reads it.
func subscriptionStatus(ctx context.Context, s store.Subscription) string {
	if s.Ending() {
		return lang.T(ctx, "subs.status.ending", "Date", dayLabel(ctx, s.EndsOn))
	}
	if id, ok := subscriptionStatusIDs[s.Status]; ok {
		return lang.T(ctx, id)
	}
	return string(s.Status)
}

func statusClass(s store.Subscription) string {
	if s.Ending() {
		return "status-ending"
	}
	return "status-" + string(s.Status)
}

// afterSkip is when the payment after a skipped one falls due.
func afterSkip(s store.Subscription) time.Time {
	return rules.NextBillingDate(s.NextPaymentDate, s.PeriodMonths, s.PaymentDay)
}

// otherCards are the kept cards a subscription could change to.
func otherCards(c SubscriptionCard) []store.Card {
	var out []store.Card
	for _, k := range c.Cards {
		if cardLooks(k) != cardLooks(c.Sub.Card) {
			out = append(out, k)
		}
	}
	return out
}

// ShopAddress is where the shop is, printed on receipts.
const ShopAddress = "Hamngatan 12, 411 11 Göteborg, Sweden"
