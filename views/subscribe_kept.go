package views

import (
	"context"
	"io"

	"github.com/a-h/templ"

	"shop/store"
)

// The subscribe panel is on every subscribable product's page a signed-in
// customer opens, and most of it is the same for every customer in one
// language: its price and trial, the day's and the code's fields, the
// periods with their prices, the preview's calendar text for a day and
// period, the card's choice without kept cards. Those parts are kept (see
// same.go) per language and what they are made of; a part with an error,
// a code typed, kept cards or a trial's preview (which names the day as
// typed) is rendered as it is.

type subscribeHeadKey struct {
	subscribable bool
	price        store.Money
	trialDays    int
	trialTaken   bool
}

var subscribeHeads = newSameParts[subscribeHeadKey](1_024)

// subscribeHead is the panel's title, price and trial.
func subscribeHead(f *SubscribeForm) templ.Component {
	return subscribeHeads.of(subscribeHeadKey{subscribable: f.Product.Subscribable, price: f.Product.MonthlyPrice,
		trialDays: f.Product.TrialDays, trialTaken: f.TrialTaken}, subscribePanelHead(f))
}

// shortNumber reports whether s is one or two digits: a payment day or a
// period as the form offers them, never a long text someone typed.
func shortNumber(s string) bool {
	if len(s) == 0 || len(s) > 2 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

var subscribeDays = newSameParts[string](256)

// subscribeDay is the payment day's field.
func subscribeDay(f *SubscribeForm) templ.Component {
	if f.Errors["day"] != "" || !shortNumber(f.Day) {
		return subscribeDayField(f)
	}
	return subscribeDays.of(f.Day, subscribeDayField(f))
}

type subscribePeriodsKey struct {
	price  store.Money
	period string
}

var subscribePeriodChoices = newSameParts[subscribePeriodsKey](1_024)

// subscribePeriods is the choice of period, each with its price.
func subscribePeriods(f *SubscribeForm) templ.Component {
	if f.Errors["period"] != "" || (f.Period != "" && !shortNumber(f.Period)) {
		return subscribePeriodsField(f)
	}
	return subscribePeriodChoices.of(subscribePeriodsKey{price: f.Product.MonthlyPrice, period: f.Period}, subscribePeriodsField(f))
}

var subscribeCodes = newSameParts[struct{}](4)

// subscribeCode is the discount code's field; kept while empty.
func subscribeCode(f *SubscribeForm) templ.Component {
	if f.Code != "" || f.Errors["code"] != "" {
		return subscribeCodeField(f)
	}
	return subscribeCodes.of(struct{}{}, subscribeCodeField(f))
}

var subscribeTails = newSameParts[string](64)

// subscribeTail is the form after its preview; kept per time zone (its
// words name it) when there is no kept card to choose, and never with the
// mark of the kept panel's card hole in it.
func subscribeTail(f *SubscribeForm) templ.Component {
	if len(f.Cards) > 0 || f.Errors["card"] != "" || f.cardChoice != nil {
		return subscribeFormTail(f)
	}
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		return subscribeTails.of(ZoneName(ctx), subscribeFormTail(f)).Render(ctx, w)
	})
}

// subscribePreviewKey is what a preview without a trial, a code or a
// problem is made of: the quote, and where and how long its delivery
// goes.
type subscribePreviewKey struct {
	quote            store.SubscribeQuote
	ships            bool
	zone             bool
	country          string
	daysMin, daysMax int
}

var subscribePreviews = newSameParts[subscribePreviewKey](1_024)

// SubscribePreview is what the form's day and period come to (see
// subscribePreview): kept for a quote without a trial or a code.
func SubscribePreview(f *SubscribeForm) templ.Component {
	q := f.Quote
	if q == nil || q.Trial != nil || q.Coupon != nil || f.Discount != nil || f.DeliveryProblem != "" || f.Errors["code"] != "" {
		return subscribePreview(f)
	}
	k := subscribePreviewKey{quote: *q, ships: f.Ships}
	if d := f.Delivery; d != nil && d.Zone != nil {
		k.zone, k.country, k.daysMin, k.daysMax = true, d.Country(), d.Zone.DaysMin, d.Zone.DaysMax
	}
	return subscribePreviews.of(k, subscribePreview(f))
}
