package views

import (
	"context"
	"io"

	"github.com/a-h/templ"

	"shop/store"
	"shop/views/lang"
)

// The subscribe panel as a customer opens it on a product's page (no error,
// no code typed, no kept card to choose) is the same HTML for every
// customer whose form has the same values, but for two things of their
// own: their CSRF token and the form's key. A delivery problem is one of
// the values: its text is the same for every customer it names (no
// address yet; no delivery to their country), and a new customer, who has
// no address, sees it on every subscribable product. It is kept
// whole per language, time zone and those values as a frame (frames.go)
// with holes where the two go, so a signed-in product view writes the
// frame's text and two strings instead of rendering the form. Anything
// else (errors, a code, kept cards, which name the customer's own) is
// rendered as it is, around the kept parts (subscribe_kept.go).

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
			var err error
			if p, err = makeFrame(ctx, subscribePanel(&marked), panelHoles); err != nil {
				return subscribePanel(f).Render(ctx, w) // a NUL of its own: not kept
			}
			openedPanels.put(k, p)
		}
		return p.render(ctx, w, []framePart{panelHoleCSRF: {text: f.CSRF}, panelHoleKey: {text: f.Key}})
	})
}

// openedPanelKey is what f's panel is made of, when it is opened as a
// product's page opens it.
func openedPanelKey(f *SubscribeForm) (subscribePanelKey, bool) {
	q := f.Quote
	if !f.SignedIn || !f.Product.Subscribable || len(f.Errors) > 0 || f.Code != "" || f.Discount != nil ||
		len(f.Cards) > 0 || f.Card != "new" || q == nil || q.Coupon != nil ||
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
