package store

import (
	"context"
	"errors"
	"fmt"

	"shop/store/rules"
)

// The shop prices everything in one currency (SHOP_CURRENCY). The table
// records it the first time Migrate meets it, so that a replica started
// with another currency refuses to start rather than sell a KRW price as
// euros.

type currencyRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	Currency   string `dynamodbav:"Currency"`
}

// ErrCurrencyChanged refuses a currency other than the table's.
var ErrCurrencyChanged = errors.New("the table's currency cannot change")

// WithCurrency sets the currency the shop prices in (ISO 4217, one
// CurrencyOf knows); the default is DefaultCurrency.
func WithCurrency(code string) Option { return func(s *Store) { s.currency = code } }

// Currency is the ISO 4217 code the shop prices in.
func (s *Store) Currency() string {
	if s.currency == "" {
		return DefaultCurrency
	}
	return s.currency
}

// settleCurrency records the shop's currency in a table that has none, or
// checks it against the table's.
func (s *Store) settleCurrency(ctx context.Context) error {
	want := s.Currency()
	if _, ok := rules.CurrencyOf(want); !ok {
		return fmt.Errorf("currency %q: not one the shop knows (%v)", want, rules.Currencies())
	}
	err := s.putNew(ctx, currencyRecord{PK: partitionMeta, SK: sortKeyCurrency, EntityType: entityMeta, Currency: want}, "currency")
	if err != nil && !errors.Is(err, ErrConflict) {
		return err
	}
	have, err := getItemConsistent(ctx, s, partitionMeta, sortKeyCurrency, "currency", func(r currencyRecord) string { return r.Currency })
	if err != nil {
		return err
	}
	if have != want {
		return fmt.Errorf("%w: the table keeps its prices in %s, and the shop was started with %s (SHOP_CURRENCY)", ErrCurrencyChanged, have, want)
	}
	return nil
}
