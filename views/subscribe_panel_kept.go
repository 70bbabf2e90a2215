package views

import (
	"context"
	"io"

	"github.com/a-h/templ"

	"shop/store"
	"shop/views/lang"
)

// The subscribe panel as a customer opens it on a product's page (no error,
// no code typed) is the same HTML for every customer whose form has the
// same values, but for three things of their own: their CSRF token, the
// form's key and the choice of their kept cards (a returning subscriber
// has some: the demo's customer does). A delivery problem is one of
// the values: its text is the same for every customer it names (no
// address yet; no delivery to their country), and a new customer, who has
// no address, sees it on every subscribable product. It is kept
// whole per language, time zone and those values as a frame (frames.go)
// with holes where the three go, so a signed-in product view writes the
// frame's text, two strings and the card choice instead of rendering the
// form. Anything else (errors, a code) is rendered as it is, around the
// kept parts (subscribe_kept.go).

// subscribePanelKey is every value an opened panel is made of.
type subscribePanelKey struct {
	product           string
	price             store.Money
	trialDays         int
	trialTaken, ships bool
	day, period       string
	quote             store.SubscribeQuote // without its Trial, which is trial's
	trial             store.TrialQuote
	hasTrial          bool
	zone              bool
	country           string
	daysMin, daysMax  int
	deliveryProblem   string
	timeZone          string
}

var openedPanels = newKeptMap[sameKey[subscribePanelKey], *frame](1_024)

// The opened panel's holes (frames.go), by number.
const (
	panelHoleCSRF = iota
	panelHoleKey
	panelHoleCards
	panelHoles
)

// SubscribePanel is the subscribe section of a subscribable product's page;
// htmx swaps it with the form's errors. Opened as it is on a product's
// page, it is kept whole (see above).
func SubscribePanel(f *SubscribeForm) templ.Component {
	// The key is made as the panel renders: captured, it would be a copy
	// on the heap for every view.
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		key, ok := openedPanelKey(f)
		if !ok || renderEverything.Load() {
			return subscribePanel(f).Render(ctx, w)
		}
		key.timeZone = ZoneName(ctx)
		k := sameKey[subscribePanelKey]{lang: lang.From(ctx), key: key}
		p, ok := openedPanels.get(k)
		if !ok {
			marked := *f
			marked.CSRF, marked.Key = holeMark(panelHoleCSRF), holeMark(panelHoleKey)
			marked.Cards, marked.Card, marked.cardChoice = nil, "new", markComponent(panelHoleCards)
			var err error
			if p, err = makeFrame(ctx, subscribePanel(&marked), panelHoles); err != nil {
				return subscribePanel(f).Render(ctx, w) // a NUL of its own: not kept
			}
			openedPanels.put(k, p)
		}
		return p.render(ctx, w, []framePart{panelHoleCSRF: {text: f.CSRF}, panelHoleKey: {text: f.Key}, panelHoleCards: cardChoiceOf(f)})
	})
}

// openedPanelKey is what f's panel is made of, when it is opened as a
// product's page opens it.
func openedPanelKey(f *SubscribeForm) (subscribePanelKey, bool) {
	q := f.Quote
	if !f.SignedIn || !f.Product.Subscribable || len(f.Errors) > 0 || f.Code != "" || f.Discount != nil ||
		q == nil || q.Coupon != nil ||
		!shortNumber(f.Day) || !shortNumber(f.Period) {
		return subscribePanelKey{}, false
	}
	k := subscribePanelKey{product: f.Product.ID, price: f.Product.MonthlyPrice, trialDays: f.Product.TrialDays,
		trialTaken: f.TrialTaken, ships: f.Ships, day: f.Day, period: f.Period, quote: *q, deliveryProblem: f.DeliveryProblem}
	if q.Trial != nil {
		k.trial, k.hasTrial, k.quote.Trial = *q.Trial, true, nil
	}
	if d := f.Delivery; d != nil && d.Zone != nil {
		k.zone, k.country, k.daysMin, k.daysMax = true, d.Country(), d.Zone.DaysMin, d.Zone.DaysMax
	}
	return k, true
}

// newCardOnly is the card choice of a customer without kept cards.
var newCardOnly = subscribeCardChoice(&SubscribeForm{})

// cardChoiceOf is the card hole's part: the customer's kept cards, or the
// new card alone, the same for everyone without.
func cardChoiceOf(f *SubscribeForm) framePart {
	if len(f.Cards) == 0 {
		return framePart{c: newCardOnly}
	}
	return framePart{c: subscribeCardChoice(f)}
}
