package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

// ErrUnknownProvider: a card provider the shop keeps no customer field for.
var ErrUnknownProvider = errors.New("unknown card provider")

// providerCustomerAttr is the customer item's attribute that keeps a card
// provider's customer: one per provider, so each is written alone.
func providerCustomerAttr(provider string) (string, error) {
	switch provider {
	case LegacyProvider:
		return "TestCustomer", nil
	case "stripe":
		return "StripeCustomer", nil
	}
	return "", fmt.Errorf("%q: %w", provider, ErrUnknownProvider)
}

func (r customerRecord) providerCustomers() map[string]string {
	var m map[string]string
	for name, ref := range map[string]string{LegacyProvider: r.TestCustomer, "stripe": r.StripeCustomer} {
		if ref == "" {
			continue
		}
		if m == nil {
			m = map[string]string{}
		}
		m[name] = ref
	}
	return m
}

// KeepProviderCustomer keeps ref as the customer's at provider, once: the
// write is conditional on the customer having none there yet, and a
// customer who has one keeps it (its ref is the answer). Two first card
// payments at once ask the provider with the same idempotency key, so
// they name the same customer anyway.
func (s *Store) KeepProviderCustomer(ctx context.Context, customerID, provider, ref string) (string, error) {
	attr, err := providerCustomerAttr(provider)
	if err != nil {
		return "", err
	}
	err = s.updateIf(ctx, customerKey(customerID), customerKey(customerID),
		expression.Set(expression.Name(attr), expression.Value(ref)),
		expression.AttributeExists(expression.Name(attrPK)).And(expression.AttributeNotExists(expression.Name(attr))))
	if !isConditionFailed(err) {
		if err != nil {
			return "", fmt.Errorf("keep customer %s's %s customer: %w", customerID, provider, err)
		}
		return ref, nil
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
