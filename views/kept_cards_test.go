package views

import (
	"testing"

	"shop/store"
)

// A card saved anew by each subscription is offered once; cards that read
// differently (last four, expiry, provider) each are, newest first.
func TestKeptCardsOfferEachCardOnce(t *testing.T) {
	visa := func(token, last4 string, year int) store.Card {
		return store.Card{Token: token, Brand: "Visa", Last4: last4, ExpMonth: 12, ExpYear: year, Provider: "test", Customer: "cus_1"}
	}
	subs := func(cards ...store.Card) []store.Subscription {
		out := make([]store.Subscription, len(cards))
		for i, c := range cards {
			out[i].Card = c
		}
		return out
	}
	for _, tc := range []struct {
		name string
		subs []store.Subscription
		want []string // tokens
	}{
		{"none", nil, nil},
		{"no card yet", subs(store.Card{}), nil},
		{"one card saved three times", subs(visa("pm_3", "4242", 2030), visa("pm_2", "4242", 2030), visa("pm_1", "4242", 2030)), []string{"pm_3"}},
		{"two cards", subs(visa("pm_3", "4242", 2030), visa("pm_2", "1881", 2030), visa("pm_1", "4242", 2030)), []string{"pm_3", "pm_2"}},
		{"renewed card: another expiry", subs(visa("pm_2", "4242", 2031), visa("pm_1", "4242", 2030)), []string{"pm_2", "pm_1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := KeptCards(tc.subs)
			var tokens []string
			for _, c := range got {
				tokens = append(tokens, c.Token)
			}
			if len(tokens) != len(tc.want) {
				t.Fatalf("offered %v, want %v", tokens, tc.want)
			}
			for i := range tokens {
				if tokens[i] != tc.want[i] {
					t.Fatalf("offered %v, want %v", tokens, tc.want)
				}
			}
		})
	}
	// The change-card choice leaves out the card the subscription pays
	// with, under any of its tokens.
	card := SubscriptionCard{Sub: store.Subscription{Card: visa("pm_1", "4242", 2030)}, Cards: KeptCards(subs(visa("pm_2", "4242", 2030), visa("pm_3", "1881", 2030)))}
	if others := otherCards(card); len(others) != 1 || others[0].Token != "pm_3" {
		t.Fatalf("other cards %v, want only pm_3", others)
	}
}
