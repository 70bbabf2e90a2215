package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

// A customer's customers at the card providers (Stripe's cus_…), kept on
// the customer item: made the first time they pay by card there, listed in
// their data export, deleted at each provider when they are erased.
//
// Erasure does not wait on a provider: the shop's own erasure finishes
// whatever a provider answers, and a provider customer it could not delete
// (the provider down, not configured on this replica) stays named on the
// erased customer, listed on GSI2 provider-customers-left, until
// FinishDeletions (the accounts job, every few minutes) deletes it. The
// id alone is left: the person's name and email are gone from the shop.

// ProviderCustomerEraser deletes a customer at a card provider;
// payment.Providers implements it. A customer already gone is not an error.
type ProviderCustomerEraser interface {
	DeleteProviderCustomer(ctx context.Context, provider, ref string) error
}

// EraseProviderCustomersWith sets how erasure deletes the customer's
// customers at the card providers, once, before the store serves (they
// are made over the store). Unset, they wait on the customer, listed, as
// when a provider is down.
func (s *Store) EraseProviderCustomersWith(e ProviderCustomerEraser) { s.providerEraser = e }

// errBadProviderCustomer: a provider customer without a customer, a
// provider's name or an id of at most 255 characters.
var errBadProviderCustomer = errors.New("a provider customer needs the customer, the provider's name and its id")

// partitionProviderCustomersLeft lists (GSI2) the erased customers whose
// customer at a provider is still to delete.
const partitionProviderCustomersLeft = "provider-customers-left"

// SetProviderCustomer keeps ref as the customer's customer at provider, on
// condition they have none there yet: a twin request that made another
// customer at the provider gets ErrConflict (and the customer as kept
// names the one to use; the caller's extra one is never charged). The same
// ref again is fine. ErrNotFound for no such customer, or one being
// erased (a customer made at a provider then would outlive the erasure).
//
// Cost: one or two conditional UpdateItems (the first customer at any
// provider makes the map), and a GetItem when one fails.
func (s *Store) SetProviderCustomer(ctx context.Context, customerID, provider, ref string) error {
	if !ValidID(customerID) || provider == "" || !ValidID(provider) || ref == "" || len(ref) > 255 {
		return fmt.Errorf("provider customer %q at %q for %q: %w", ref, provider, customerID, errBadProviderCustomer)
	}
	pk := customerKey(customerID)
	live := expression.AttributeExists(expression.Name(attrPK)).And(expression.AttributeNotExists(expression.Name("ClosingAt")))
	// The first provider's: the map made whole.
	err := s.updateIf(ctx, pk, pk, expression.Set(expression.Name("ProviderCustomers"), expression.Value(map[string]string{provider: ref})),
		live.And(expression.AttributeNotExists(expression.Name("ProviderCustomers"))))
	if isConditionFailed(err) {
		at := expression.Name("ProviderCustomers." + provider)
		err = s.updateIf(ctx, pk, pk, expression.Set(at, expression.Value(ref)),
			live.And(expression.AttributeExists(expression.Name("ProviderCustomers"))).And(expression.AttributeNotExists(at)))
	}
	if !isConditionFailed(err) {
		return err
	}
	rec, rerr := getItemConsistent(ctx, s, pk, pk, "customer "+customerID, asRecord[customerRecord])
	switch {
	case rerr != nil:
		return rerr
	case rec.ClosingAt != "":
		return fmt.Errorf("customer %s is being erased: %w", customerID, ErrNotFound)
	case rec.ProviderCustomers[provider] == ref:
		return nil
	}
	return fmt.Errorf("customer %s has another customer at %s: %w", customerID, provider, ErrConflict)
}

// eraseProviderCustomers deletes each of an erased customer's customers at
// the providers, forgetting each one deleted; it says which are left. A
// failure is logged, not returned: the erasure goes on without it.
func (s *Store) eraseProviderCustomers(ctx context.Context, rec customerRecord) map[string]string {
	left := maps.Clone(rec.ProviderCustomers)
	for _, provider := range slices.Sorted(maps.Keys(rec.ProviderCustomers)) {
		ref := rec.ProviderCustomers[provider]
		if s.providerEraser == nil {
			slog.WarnContext(ctx, "customer erased; their customer at the card provider is left to delete: no provider configured", "customer", rec.PK, "provider", provider)
			continue
		}
		if err := s.providerEraser.DeleteProviderCustomer(ctx, provider, ref); err != nil {
			slog.WarnContext(ctx, "customer erased; their customer at the card provider is left to delete, tried again later", "customer", rec.PK, "provider", provider, "err", err)
			continue
		}
		at := expression.Name("ProviderCustomers." + provider)
		err := s.updateIf(ctx, rec.PK, rec.SK, expression.Remove(at), at.Equal(expression.Value(ref)))
		if err != nil && !isConditionFailed(err) {
			slog.WarnContext(ctx, "provider customer deleted, not forgotten yet", "customer", rec.PK, "provider", provider, "err", err)
		}
		delete(left, provider)
	}
	return left
}

// retryProviderCustomers tries again the provider customers erasure left,
// up to 100 customers a run; those deleted leave the list.
func (s *Store) retryProviderCustomers(ctx context.Context) error {
	q := querySpec{key: onGSI2.pkEquals(partitionProviderCustomersLeft)}
	page, err := pagedQuery(ctx, s, q, 100, "", asRecord[customerRecord])
	if err != nil {
		return err
	}
	for _, rec := range page.Items {
		if len(s.eraseProviderCustomers(ctx, rec)) > 0 {
			continue
		}
		err := s.updateIf(ctx, rec.PK, rec.SK, expression.Remove(expression.Name(attrGSI2PK)).Remove(expression.Name(attrGSI2SK)),
			expression.Name(attrGSI2PK).Equal(expression.Value(partitionProviderCustomersLeft)))
		if err != nil && !isConditionFailed(err) {
			return err
		}
	}
	return nil
}

// providerCustomersLeft lists the erased customers whose customer at a
// provider is still to delete (for staff and tests): id → what is left.
func (s *Store) providerCustomersLeft(ctx context.Context) (map[string]map[string]string, error) {
	recs, err := queryAll(ctx, s, querySpec{key: onGSI2.pkEquals(partitionProviderCustomersLeft)}, asRecord[customerRecord])
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]string{}
	for _, r := range recs {
		out[trimPrefix(r.PK, prefixCustomer)] = r.ProviderCustomers
	}
	return out, nil
}

// leftListed is the final erasure write's GSI2 part: off the closing list,
// and on the provider-customers-left list while some are left.
func leftListed(upd expression.UpdateBuilder, left map[string]string, id string, now time.Time) expression.UpdateBuilder {
	if len(left) == 0 {
		return upd.Remove(expression.Name(attrGSI2PK)).Remove(expression.Name(attrGSI2SK))
	}
	return upd.Set(expression.Name(attrGSI2PK), expression.Value(partitionProviderCustomersLeft)).
		Set(expression.Name(attrGSI2SK), expression.Value(createdKey(now, id)))
}

// KeepProviderCustomer is SetProviderCustomer for a payment about to use
// the customer: a customer who has one at provider already keeps it, and
// that one is the answer. (Two first card payments at once ask the
// provider with the same idempotency key, so they name the same customer
// anyway.)
func (s *Store) KeepProviderCustomer(ctx context.Context, customerID, provider, ref string) (string, error) {
	err := s.SetProviderCustomer(ctx, customerID, provider, ref)
	switch {
	case err == nil:
		return ref, nil
	case !errors.Is(err, ErrConflict):
		return "", err
	}
	c, err := getItemConsistent(ctx, s, customerKey(customerID), customerKey(customerID), "customer "+customerID, customerRecord.customer)
	if err != nil {
		return "", err
	}
	if kept := c.ProviderCustomers[provider]; kept != "" {
		return kept, nil
	}
	return "", fmt.Errorf("customer %s: %w", customerID, ErrNotFound)
}
