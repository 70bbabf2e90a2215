package views

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/store/rules"
	"shop/views/lang"
)

// The subscribe panel's kept parts (its price, fields, periods, preview,
// card choice) are exactly what rendering them makes, in every language
// and time zone, with and without errors, cards, a trial, a code or a
// delivery; and none holds anything of the customer's own.
func TestKeptPartsAreWhatRenderingMakes(t *testing.T) {
	base := *signedInProduct().Subscribe
	today, _ := rules.ParseDate("2026-11-30")
	variant := func(change func(f *SubscribeForm)) SubscribeForm {
		f := base
		f.Errors = FieldErrors{}
		change(&f)
		return f
	}
	zone := &store.ShippingZone{ID: "eu", Name: "EU", Countries: []string{"SE"}, Price: store.Money{Amount: 490, Currency: "EUR"}, DaysMin: 2, DaysMax: 4}
	forms := map[string]SubscribeForm{
		"as it opens": base,
		"another day and period": variant(func(f *SubscribeForm) {
			q := store.QuoteSubscription(today, f.Product, 15, 3, nil)
			f.Day, f.Period, f.Quote = "15", "3", &q
		}),
		"errors": variant(func(f *SubscribeForm) {
			f.Errors = FieldErrors{"day": "Pick a day <1-31>", "period": "Pick a period", "card": "Pick a card", "code": "No such code"}
			f.Day, f.Period, f.Code, f.Quote = "99 & more", "7", "SPRING<", nil
		}),
		"kept cards": variant(func(f *SubscribeForm) {
			f.Cards = []store.Card{{Token: "pm_ada", Brand: "Visa", Last4: "4242", ExpMonth: 12, ExpYear: 2030}}
			f.Card = "pm_ada"
		}),
		"kept cards, a new one chosen": variant(func(f *SubscribeForm) {
			f.Cards = []store.Card{{Token: "pm_ada", Brand: "Visa", Last4: "4242", ExpMonth: 12, ExpYear: 2030}}
		}),
		"two kept cards": variant(func(f *SubscribeForm) {
			f.Cards = []store.Card{{Token: "pm_ada", Brand: "Visa", Last4: "4242", ExpMonth: 12, ExpYear: 2030},
				{Token: "pm_ada2", Brand: "Mastercard", Last4: "4444", ExpMonth: 1, ExpYear: 2031}}
			f.Card = "pm_ada2"
		}),
		"a code typed": variant(func(f *SubscribeForm) { f.Code = "SPRING" }),
		"trial": variant(func(f *SubscribeForm) {
			f.Product.TrialDays = 14
			q := store.QuoteSubscription(today, f.Product, 28, 1, nil)
			f.Quote = &q
		}),
		"trial taken": variant(func(f *SubscribeForm) { f.Product.TrialDays, f.TrialTaken = 14, true }),
		"delivery": variant(func(f *SubscribeForm) {
			f.Delivery = &store.SubscribeDelivery{To: store.Address{Country: "SE", City: "Göteborg"}, Zone: zone}
			q := store.QuoteSubscriptionShipped(today, f.Product, 28, 1, nil, nil, zone.Price)
			f.Quote = &q
		}),
		"delivery problem": variant(func(f *SubscribeForm) { f.DeliveryProblem = "We do not deliver to Narnia." }),
		"another price":    variant(func(f *SubscribeForm) { f.Product.MonthlyPrice = store.Money{Amount: 990, Currency: "SEK"} }),
		"signed out":       variant(func(f *SubscribeForm) { f.SignedIn = false }),
	}
	stockholm, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lang.All {
		for _, loc := range []*time.Location{time.UTC, stockholm} {
			for name, f := range forms {
				ctx := WithZone(benchCtx(l), loc)
				kept, rendered := renderBothIn(t, ctx, SubscribePanel(&f))
				if kept != rendered {
					t.Fatalf("%s, %s, %s: the panel made of kept parts differs from the rendered one:\n%s\n%s", l, loc, name, kept, rendered)
				}
				if f.SignedIn && !strings.Contains(kept, f.CSRF) {
					t.Fatalf("%s, %s: the panel lacks the customer's token", l, name)
				}
			}
		}
	}
	// The header's cart counts, in and out of band.
	for _, l := range lang.All {
		for _, units := range []int{0, 1, 2, 99, 100, -1} {
			if kept, rendered := renderBoth(t, l, CartCounts(units)); kept != rendered {
				t.Fatalf("%s, %d items: the kept cart counts differ from the rendered ones:\n%s\n%s", l, units, kept, rendered)
			}
			if kept, rendered := renderBoth(t, l, CartCount("cart-count", units, false)); kept != rendered {
				t.Fatalf("%s, %d items: the kept cart count differs from the rendered one:\n%s\n%s", l, units, kept, rendered)
			}
		}
	}
	// A panel opened whole is another customer's with their own token, key
	// and kept cards, never the first one's.
	withCard := base
	withCard.Cards = []store.Card{{Token: "pm_ada", Brand: "Visa", Last4: "4242", ExpMonth: 12, ExpYear: 2030}}
	withCard.Card = "pm_ada"
	other := base
	other.CSRF, other.Key = "another-customers-token", "06h2kzzzzzzzzzzzzzzz"
	otherCard := withCard
	otherCard.CSRF, otherCard.Key = other.CSRF, other.Key
	otherCard.Cards = []store.Card{{Token: "pm_bea", Brand: "Mastercard", Last4: "5454", ExpMonth: 3, ExpYear: 2029}}
	otherCard.Card = "pm_bea"
	if _, ok := openedPanelKey(&withCard); !ok {
		t.Fatal("a panel with kept cards is not kept whole")
	}
	for _, pair := range [][2]*SubscribeForm{{&base, &other}, {&withCard, &otherCard}, {&withCard, &other}, {&base, &otherCard}} {
		for _, l := range lang.All {
			var first, second bytes.Buffer
			if err := SubscribePanel(pair[0]).Render(benchCtx(l), &first); err != nil {
				t.Fatal(err)
			}
			if err := SubscribePanel(pair[1]).Render(benchCtx(l), &second); err != nil {
				t.Fatal(err)
			}
			want := renderAllOf(t, benchCtx(l), SubscribePanel(pair[1]))
			if second.String() != want || strings.Contains(second.String(), base.CSRF) || strings.Contains(second.String(), base.Key) ||
				(len(pair[1].Cards) == 0 || pair[1].Cards[0].Token != "pm_ada") && strings.Contains(second.String(), "pm_ada") {
				t.Fatalf("%s: another customer's opened panel is not theirs:\n%s\nwant\n%s", l, second.String(), want)
			}
		}
	}
	var opened [][]byte
	openedPanels.mu.RLock()
	for _, p := range openedPanels.kept {
		opened = append(opened, p.text...)
	}
	openedPanels.mu.RUnlock()
	// Nothing of a customer's own is kept: their token, their form's key,
	// their cards, what they typed.
	for _, parts := range [][][]byte{keptOf(subscribeHeads), keptOf(subscribeDays), keptOf(subscribePeriodChoices),
		keptOf(subscribeCodes), keptOf(subscribeTails), keptOf(subscribePreviews), opened} {
		if len(parts) == 0 {
			t.Fatal("a kind of part was never kept")
		}
		for _, html := range parts {
			for _, own := range []string{base.CSRF, base.Key, "pm_ada", "4242", "SPRING", "99 &amp; more"} {
				if bytes.Contains(html, []byte(own)) {
					t.Fatalf("a kept part holds %q:\n%s", own, html)
				}
			}
		}
	}
	// A delivery problem's text is the same for every customer it names
	// (a new customer has no address): the panel that says it is kept
	// under that text, and only a form with the same text is given it.
	problemKept := false
	for _, html := range opened {
		problemKept = problemKept || bytes.Contains(html, []byte("Narnia"))
	}
	if !problemKept {
		t.Fatal("the opened panel with a delivery problem was not kept")
	}
	for _, l := range lang.All {
		var none bytes.Buffer
		if err := SubscribePanel(&base).Render(benchCtx(l), &none); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(none.String(), "Narnia") || strings.Contains(none.String(), "preview-delivery-problem") {
			t.Fatalf("%s: a form without a delivery problem was given another's:\n%s", l, none.String())
		}
	}
}

func keptOf[K comparable](s sameParts[K]) [][]byte {
	s.parts.mu.RLock()
	defer s.parts.mu.RUnlock()
	var out [][]byte
	for _, html := range s.parts.kept {
		out = append(out, html)
	}
	return out
}
