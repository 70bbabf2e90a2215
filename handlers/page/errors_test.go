package page

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/gofiber/fiber/v2"

	"shop/store"
	"shop/views/lang"
)

func TestRefusalOf(t *testing.T) {
	invalid := store.Refuse(store.Invalid, "subs.error.bad_period", "the period must be 1, 2, 3 or 6 months")
	conflict := store.Refuse(store.Conflict, "subs.error.paused", "this subscription is paused; resume it first")
	atField := &store.Refusal{Kind: store.Invalid, Message: "checkout.card.invalid_cvc", Field: "cvc", Words: "security code must be 3 or 4 digits"}
	en, ko := lang.With(context.Background(), lang.English), lang.With(context.Background(), lang.Korean)
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		want Refused
		ok   bool
	}{
		{"invalid", en, invalid, Refused{Status: fiber.StatusUnprocessableEntity, Text: lang.In(lang.English, "subs.error.bad_period")}, true},
		{"conflict, wrapped", en, fmt.Errorf("pause: %w", conflict), Refused{Status: fiber.StatusConflict, Text: lang.In(lang.English, "subs.error.paused")}, true},
		{"in the reader's language", ko, conflict, Refused{Status: fiber.StatusConflict, Text: lang.In(lang.Korean, "subs.error.paused")}, true},
		{"at its field", en, atField, Refused{Status: fiber.StatusUnprocessableEntity, Field: "cvc", Text: lang.In(lang.English, "checkout.card.invalid_cvc")}, true},
		{"no kind", en, &store.Refusal{Message: "subs.error.same"}, Refused{Status: fiber.StatusBadRequest, Text: lang.In(lang.English, "subs.error.same")}, true},
		{"with values", ko, &store.Refusal{Kind: store.Conflict, Message: "cart.stock.out", Args: []any{"Product", store.LocalName{English: "Tea", Names: store.ProductNames{"ko": "차"}}}},
			Refused{Status: fiber.StatusConflict, Text: lang.In(lang.Korean, "cart.stock.out", "Product", "차")}, true},
		{"with money", en, &store.Refusal{Kind: store.Invalid, Message: "admin.dropsx.err.quantity", Args: []any{"Max", store.Money{Amount: 500, Currency: "EUR"}}},
			Refused{Status: fiber.StatusUnprocessableEntity, Text: lang.In(lang.English, "admin.dropsx.err.quantity", "Max", "€5.00")}, true},
		{"a type of its own", en, fmt.Errorf("x: %w", ownRefuser{}), Refused{Status: fiber.StatusUnprocessableEntity, Field: "cvc", Text: lang.In(lang.English, "checkout.card.invalid_cvc")}, true},
		{"a type that is no refusal this time, over one", en, noRefusal{atField}, Refused{Status: fiber.StatusUnprocessableEntity, Field: "cvc", Text: lang.In(lang.English, "checkout.card.invalid_cvc")}, true},
		{"a type that is no refusal this time", en, noRefusal{errors.New("disk on fire")}, Refused{}, false},
		{"not a refusal", en, errors.New("disk on fire"), Refused{}, false},
		{"nothing", en, nil, Refused{}, false},
	} {
		got, ok := RefusalOf(tc.ctx, tc.err)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: RefusalOf = %+v, %v; want %+v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	// A sentinel is still itself, wrapped or not.
	if !errors.Is(fmt.Errorf("x: %w", invalid), invalid) || errors.Is(invalid, conflict) {
		t.Error("errors.Is does not tell refusals apart")
	}
}

// ownRefuser is an error type that says itself as a refusal.
type ownRefuser struct{}

func (ownRefuser) Error() string { return "own" }
func (ownRefuser) Refusal() *store.Refusal {
	return &store.Refusal{Kind: store.Invalid, Message: "checkout.card.invalid_cvc", Field: "cvc"}
}

// noRefusal is a Refuser that says none, over what it wraps.
type noRefusal struct{ err error }

func (n noRefusal) Error() string         { return "none: " + n.err.Error() }
func (n noRefusal) Unwrap() error         { return n.err }
func (noRefusal) Refusal() *store.Refusal { return nil }
