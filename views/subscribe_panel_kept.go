package views

import (
	"bytes"
	"context"
	"io"

	"github.com/a-h/templ"

	"shop/store"
	"shop/views/lang"
)

// The subscribe panel as a customer opens it on a product's page (no error,
// no code typed, no kept card to choose, a delivery it can quote) is the
// same HTML for every customer whose form has the same values, but for two
// things of their own: their CSRF token and the form's key. It is kept
// whole per language, time zone and those values, with holes where the two
// go, so a signed-in product view writes three slices and two strings
// instead of rendering the form. Anything else (errors, a code, kept cards,
// a delivery problem, which name the customer's own) is rendered as it is,
// around the kept parts (subscribe_kept.go).

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
	timeZone          string
}

// openedPanel is a kept panel cut at its two holes: before the token,
// between the token and the key, after the key.
type openedPanel struct{ beforeToken, beforeKey, rest []byte }

var openedPanels = newKeptMap[sameKey[subscribePanelKey], openedPanel](1_024)

// The holes the kept panel is rendered with: NUL bytes never come out of a
// template, and escaping leaves them be.
const (
	tokenMark = "\x00token\x00"
	keyMark   = "\x00key\x00"
)

// SubscribePanel is the subscribe section of a subscribable product's page;
// htmx swaps it with the form's errors. Opened as it is on a product's
// page, it is kept whole (see above).
func SubscribePanel(f *SubscribeForm) templ.Component {
	key, ok := openedPanelKey(f)
	if !ok {
		return subscribePanel(f)
	}
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		if renderEverything.Load() {
			return subscribePanel(f).Render(ctx, w)
		}
		key.timeZone = ZoneName(ctx)
		k := sameKey[subscribePanelKey]{lang: lang.From(ctx), key: key}
		p, ok := openedPanels.get(k)
		if !ok {
			var err error
			if p, ok, err = openPanel(ctx, f); err != nil {
				return err
			}
			if !ok { // the marks were not where a form puts them
				return subscribePanel(f).Render(ctx, w)
			}
			openedPanels.put(k, p)
		}
		return p.write(w, f.CSRF, f.Key)
	})
}

// openedPanelKey is what f's panel is made of, when it is opened as a
// product's page opens it.
func openedPanelKey(f *SubscribeForm) (subscribePanelKey, bool) {
	q := f.Quote
	if !f.SignedIn || !f.Product.Subscribable || len(f.Errors) > 0 || f.Code != "" || f.Discount != nil ||
		len(f.Cards) > 0 || f.Card != "new" || f.DeliveryProblem != "" || q == nil || q.Coupon != nil ||
		!shortNumber(f.Day) || !shortNumber(f.Period) {
		return subscribePanelKey{}, false
	}
	k := subscribePanelKey{product: f.Product.ID, price: f.Product.MonthlyPrice, trialDays: f.Product.TrialDays,
		trialTaken: f.TrialTaken, ships: f.Ships, day: f.Day, period: f.Period, quote: *q}
	if q.Trial != nil {
		k.trial, k.hasTrial, k.quote.Trial = *q.Trial, true, nil
	}
	if d := f.Delivery; d != nil && d.Zone != nil {
		k.zone, k.country, k.daysMin, k.daysMax = true, d.Country(), d.Zone.DaysMin, d.Zone.DaysMax
	}
	return k, true
}

// openPanel renders f's panel with marks for the token and the key and
// cuts it there; false when they are not once each, the token first.
func openPanel(ctx context.Context, f *SubscribeForm) (openedPanel, bool, error) {
	marked := *f
	marked.CSRF, marked.Key = tokenMark, keyMark
	var buf bytes.Buffer
	if err := subscribePanel(&marked).Render(ctx, &buf); err != nil {
		return openedPanel{}, false, err
	}
	html := buf.Bytes()
	if bytes.Count(html, []byte(tokenMark)) != 1 || bytes.Count(html, []byte(keyMark)) != 1 {
		return openedPanel{}, false, nil
	}
	before, rest, _ := bytes.Cut(html, []byte(tokenMark))
	between, after, found := bytes.Cut(rest, []byte(keyMark))
	if !found {
		return openedPanel{}, false, nil
	}
	return openedPanel{beforeToken: before, beforeKey: between, rest: after}, true, nil
}

// write is the kept panel with the customer's token and form key.
func (p openedPanel) write(w io.Writer, token, key string) error {
	if _, err := w.Write(p.beforeToken); err != nil {
		return err
	}
	if _, err := io.WriteString(w, templ.EscapeString(token)); err != nil {
		return err
	}
	if _, err := w.Write(p.beforeKey); err != nil {
		return err
	}
	if _, err := io.WriteString(w, templ.EscapeString(key)); err != nil {
		return err
	}
	_, err := w.Write(p.rest)
	return err
}
