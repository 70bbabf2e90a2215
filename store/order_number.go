package store

import (
	"context"
	"crypto/rand"
	"errors"
	"strings"

	"shop/store/rules"
)

// An order number is what a person reads out or types: "FF-7K3Q92", six
// characters of an alphabet without the look-alikes (0/O, 1/I/L, U/V).
// 29^6 is about 600 million numbers: a new one is drawn at random and
// written with the order on condition it is free, and drawn again in the
// rare case it is not. Orders from before numbers are named by a reference
// their id holds (Order.Label).
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

// Label is how the order is named to people: its number. An order from
// before numbers is named by a short reference its id holds, "#" and six
// of the id's random characters in capitals ("#7E1J4F"): what staff and
// the customer can read out, never an FF- number it is not. Every page,
// mail and document names an order through Label, so this is the one
// place the fallback lives. An imported order's own id (not one of ours)
// is what its old shop called it and is shown as it is.
func (o Order) Label() string {
	if o.Number != "" {
		return o.Number
	}
	if len(o.ID) == idLength && validOwnID(o.ID) {
		return "#" + strings.ToUpper(o.ID[idLength-1-orderNumberLength:idLength-1])
	}
	return o.ID
}

// idLength is the length of an id NewID makes: 12 bytes in base32. Its
// last character holds only padding bits, so a reference is read from the
// six before it (the random part).
const idLength = 20

// validOwnID reports whether id is in NewID's alphabet.
func validOwnID(id string) bool {
	for i := 0; i < len(id); i++ {
		if !strings.ContainsRune(rules.IDAlphabet, rune(id[i])) {
			return false
		}
	}
	return true
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
