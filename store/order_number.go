package store

import (
	"context"
	"crypto/rand"
	"errors"
	"strings"
)

// An order number is what a person reads out or types: "FF-7K3Q92", six
// characters of an alphabet without the look-alikes (0/O, 1/I/L, U/V).
// 29^6 is about 600 million numbers: a new one is drawn at random and
// written with the order on condition it is free, and drawn again in the
// rare case it is not. Orders from before numbers (and imported ones) are
// shown by their id.
const (
	orderNumberPrefix   = "FF-"
	orderNumberAlphabet = "23456789ABCDEFGHJKMNPQRSTWXYZ"
	orderNumberLength   = 6
)

var errOrderNumberTaken = errors.New("order number taken")

func newOrderNumber() string {
	var b [orderNumberLength]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	out := []byte(orderNumberPrefix)
	for _, c := range b {
		// 256 % 29 leaves a small bias; a number needs to be unlikely to
		// repeat, not uniform.
		out = append(out, orderNumberAlphabet[int(c)%len(orderNumberAlphabet)])
	}
	return string(out)
}

// ParseOrderNumber reads an order number as a person may type it (any
// case, spaces, with or without "FF-"); false if it cannot be one.
func ParseOrderNumber(s string) (string, bool) {
	s = strings.ToUpper(strings.Join(strings.Fields(s), ""))
	s = strings.TrimPrefix(s, orderNumberPrefix)
	if len(s) != orderNumberLength {
		return "", false
	}
	for _, r := range s {
		if !strings.ContainsRune(orderNumberAlphabet, r) {
			return "", false
		}
	}
	return orderNumberPrefix + s, true
}

// Label is how the order is named to people: its number, or its id for an
// order from before numbers.
func (o Order) Label() string {
	if o.Number != "" {
		return o.Number
	}
	return o.ID
}

type orderNumberRecord struct {
	PK         string `dynamodbav:"PK"` // ordno#FF-XXXXXX
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	OrderID    string `dynamodbav:"OrderID"`
}

// OrderIDByNumber finds the order a number names: one GetItem.
func (s *Store) OrderIDByNumber(ctx context.Context, number string) (string, error) {
	n, ok := ParseOrderNumber(number)
	if !ok {
		return "", ErrNotFound
	}
	return getItem(ctx, s, orderNumberKey(n), orderNumberKey(n), "order "+n, func(r orderNumberRecord) string { return r.OrderID })
}
