package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"shop/store/rules"
)

// The shipping zones are items of one small partition (PK=shipping,
// SK=zone#id): one Query reads them all, for a checkout's quote and for
// staff's page. A shop has a handful; a zone lists at most every country.

type shippingZoneRecord struct {
	PK         string   `dynamodbav:"PK"`
	SK         string   `dynamodbav:"SK"`
	EntityType string   `dynamodbav:"EntityType"`
	Name       string   `dynamodbav:"Name"`
	Countries  []string `dynamodbav:"Countries"`
	Price      int64    `dynamodbav:"Price"`
	FreeFrom   int64    `dynamodbav:"FreeFrom"`
	Currency   string   `dynamodbav:"Currency"`
	DaysMin    int      `dynamodbav:"DaysMin"`
	DaysMax    int      `dynamodbav:"DaysMax"`
	Version    int      `dynamodbav:"Version"`
}

func (r shippingZoneRecord) zone() ShippingZone {
	return ShippingZone{
		ID: trimPrefix(r.SK, prefixZone), Name: r.Name, Countries: r.Countries,
		Price: Money{Amount: r.Price, Currency: r.Currency}, FreeFrom: Money{Amount: r.FreeFrom, Currency: r.Currency},
		DaysMin: r.DaysMin, DaysMax: r.DaysMax, Version: r.Version,
	}
}

// ZoneOverlapError: a country staff put in a zone is in another already.
type ZoneOverlapError struct {
	Country string // its code
	Zone    string // the other zone's name
}

func (e *ZoneOverlapError) Error() string {
	return fmt.Sprintf("%s is in the zone %s already", e.Country, e.Zone)
}

// ShippingZones are the shop's zones by name: one Query.
func (s *Store) ShippingZones(ctx context.Context) ([]ShippingZone, error) {
	q := querySpec{key: onTable.pkAndSKPrefix(partitionShipping, prefixZone)}
	zones, err := queryAll(ctx, s, q, shippingZoneRecord.zone)
	if err != nil {
		return nil, fmt.Errorf("shipping zones: %w", err)
	}
	slices.SortFunc(zones, func(a, b ShippingZone) int { return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID)) })
	return zones, nil
}

// checkZone cleans a zone as staff typed it (the countries by code,
// upper case, sorted, once each) and says what is wrong with it: the
// form checks each field with it, the store before writing.
func checkZone(z *ShippingZone) error {
	z.Name = strings.TrimSpace(z.Name)
	codes := make([]string, 0, len(z.Countries))
	for _, c := range z.Countries {
		code := rules.CountryCode(c)
		if code == "" {
			return fmt.Errorf("country %q: %w", c, ErrBadZone)
		}
		codes = append(codes, code)
	}
	slices.Sort(codes)
	z.Countries = slices.Compact(codes)
	_, known := rules.CurrencyOf(z.Price.Currency)
	switch {
	case z.Name == "" || utf8.RuneCountInString(z.Name) > 60:
		return fmt.Errorf("a name of 1 to 60 characters: %w", ErrBadZone)
	case len(z.Countries) == 0:
		return fmt.Errorf("at least one country: %w", ErrBadZone)
	case !known || z.Price.Amount < 0 || z.Price.Amount > rules.MaxMoney:
		return fmt.Errorf("price %v: %w", z.Price, ErrBadZone)
	case z.FreeFrom.Amount < 0 || z.FreeFrom.Amount > rules.MaxMoney || z.FreeFrom.Amount > 0 && z.FreeFrom.Currency != z.Price.Currency:
		return fmt.Errorf("free from %v: %w", z.FreeFrom, ErrBadZone)
	case z.DaysMin < 1 || z.DaysMax < z.DaysMin || z.DaysMax > MaxZoneDays:
		return fmt.Errorf("days %d to %d: %w", z.DaysMin, z.DaysMax, ErrBadZone)
	}
	return nil
}

// SaveShippingZone writes a zone, new (no ID: one is made) or changed (on
// condition it is still at the version staff saw: ErrConflict if not). A
// country may be in one zone only: one in another is a *ZoneOverlapError.
// Cost: a Query of the zones and a PutItem.
func (s *Store) SaveShippingZone(ctx context.Context, z ShippingZone) (ShippingZone, error) {
	if err := checkZone(&z); err != nil {
		return ShippingZone{}, err
	}
	if z.ID == "" {
		z.ID, z.Version = NewID(), 0
	}
	if !ValidID(z.ID) {
		return ShippingZone{}, fmt.Errorf("zone id %q: %w", z.ID, ErrBadZone)
	}
	zones, err := s.ShippingZones(ctx)
	if err != nil {
		return ShippingZone{}, err
	}
	for _, other := range zones {
		if other.ID == z.ID {
			continue
		}
		for _, c := range z.Countries {
			if other.Covers(c) {
				return ShippingZone{}, &ZoneOverlapError{Country: c, Zone: other.Name}
			}
		}
	}
	cond := atVersion(z.Version)
	z.FreeFrom.Currency = z.Price.Currency
	z.Version++
	err = s.putIf(ctx, shippingZoneRecord{
		PK: partitionShipping, SK: shippingZoneKey(z.ID), EntityType: entityShippingZone,
		Name: z.Name, Countries: z.Countries, Price: z.Price.Amount, FreeFrom: z.FreeFrom.Amount, Currency: z.Price.Currency,
		DaysMin: z.DaysMin, DaysMax: z.DaysMax, Version: z.Version,
	}, cond)
	if isConditionFailed(err) {
		return ShippingZone{}, fmt.Errorf("shipping zone %s changed meanwhile: %w", z.Name, ErrConflict)
	}
	if err != nil {
		return ShippingZone{}, fmt.Errorf("save shipping zone %s: %w", z.Name, err)
	}
	s.forgetZones()
	return z, nil
}

// DeleteShippingZone removes a zone at the version staff saw (ErrConflict
// if it changed, ErrNotFound if it is gone). Orders keep what they paid.
func (s *Store) DeleteShippingZone(ctx context.Context, id string, version int) error {
	if !ValidID(id) {
		return fmt.Errorf("shipping zone %q: %w", id, ErrNotFound)
	}
	expr, err := expression.NewBuilder().WithCondition(expression.Name("Version").Equal(expression.Value(version))).Build()
	if err != nil {
		return err
	}
	_, err = s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(s.table), Key: itemKey(partitionShipping, shippingZoneKey(id)),
		ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	})
	if isConditionFailed(err) {
		if _, found := s.zoneExists(ctx, id); !found {
			return fmt.Errorf("shipping zone %s: %w", id, ErrNotFound)
		}
		return fmt.Errorf("shipping zone %s changed meanwhile: %w", id, ErrConflict)
	}
	if err == nil {
		s.forgetZones()
	}
	return err
}

func (s *Store) zoneExists(ctx context.Context, id string) (ShippingZone, bool) {
	z, err := getItemConsistent(ctx, s, partitionShipping, shippingZoneKey(id), "shipping zone", shippingZoneRecord.zone)
	return z, !errors.Is(err, ErrNotFound)
}
