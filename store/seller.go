package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Seller is who sells, as every invoice, receipt and credit note must say:
// the legal name, the postal address and the VAT number. Staff keep it in
// the console (PK=meta, SK=settings#seller); the demo fills it.
type Seller struct {
	LegalName string
	// Address is the postal address as printed, one line a line.
	Address   string
	VATNumber string // "SE556677889901": validated by ValidVATNumber
	ChangedBy string
	ChangedAt time.Time
	Version   int // 0 before staff first saved it
}

// AddressLines is the address one line a slice item, blank lines left out.
func (s Seller) AddressLines() []string {
	var out []string
	for l := range strings.SplitSeq(s.Address, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// Known says whether staff gave the seller's details.
func (s Seller) Known() bool { return s.LegalName != "" }

type sellerRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	LegalName  string `dynamodbav:"LegalName"`
	Address    string `dynamodbav:"Address"`
	VATNumber  string `dynamodbav:"VATNumber"`
	ChangedBy  string `dynamodbav:"ChangedBy"`
	ChangedAt  string `dynamodbav:"ChangedAt"`
	Version    int    `dynamodbav:"Version"`
}

// Seller form limits.
const (
	maxLegalName     = 120
	maxSellerAddress = 400
)

var (
	errSellerName    = errors.New("give the seller's legal name, up to 120 characters")
	errSellerAddress = errors.New("give the seller's postal address, up to 400 characters")
	errVATNumber     = errors.New("a VAT number is two letters of its country then 2 to 13 letters or digits, like SE556677889901")
)

// NormalizeVATNumber takes out the spaces, dots and dashes people type
// and writes the letters in capitals: "se 5566-7788 9901" is
// "SE556677889901".
func NormalizeVATNumber(s string) string {
	var b strings.Builder
	for _, c := range strings.ToUpper(s) {
		if c == ' ' || c == '.' || c == '-' || c == '\t' {
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// ValidVATNumber says whether a normalized VAT number has the shape of the
// EU's (and the like): a two-letter country prefix, then 2 to 13 capital
// letters or digits, at least one a digit. It checks the shape only, not
// the register (VIES).
func ValidVATNumber(s string) bool {
	if len(s) < 4 || len(s) > 15 {
		return false
	}
	digits := 0
	for i, c := range s {
		switch {
		case i < 2 && (c < 'A' || c > 'Z'):
			return false
		case i < 2:
		case c >= '0' && c <= '9':
			digits++
		case (c < 'A' || c > 'Z') && c != '+' && c != '*':
			return false
		}
	}
	return digits > 0
}

// Check says what is wrong with the seller's details, field by field
// ("name", "address", "vat"); nil when nothing is. The VAT number is
// checked as NormalizeVATNumber leaves it.
func (s Seller) Check() map[string]error {
	errs := map[string]error{}
	if n := strings.TrimSpace(s.LegalName); n == "" || utf8.RuneCountInString(n) > maxLegalName {
		errs["name"] = errSellerName
	}
	if len(s.AddressLines()) == 0 || utf8.RuneCountInString(s.Address) > maxSellerAddress {
		errs["address"] = errSellerAddress
	}
	if !ValidVATNumber(NormalizeVATNumber(s.VATNumber)) {
		errs["vat"] = errVATNumber
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// sellerCache keeps the seller's details a short while, so that the pages
// and documents that print them (every invoice on an order's page) do not
// read them each time; a save in this process forgets them at once, other
// replicas within sellerCacheFor.
type sellerCache struct {
	mu     sync.Mutex
	seller Seller
	at     time.Time
}

const sellerCacheFor = 30 * time.Second

// Seller reads the seller's details: from this process's copy when it is
// younger than 30 seconds, else one consistent GetItem. Never saved: the
// zero Seller (Known false).
func (s *Store) Seller(ctx context.Context) (Seller, error) {
	s.seller.mu.Lock()
	defer s.seller.mu.Unlock()
	if !s.seller.at.IsZero() && time.Since(s.seller.at) < sellerCacheFor {
		return s.seller.seller, nil
	}
	sel, err := s.SellerNow(ctx)
	if err != nil {
		return Seller{}, err
	}
	s.seller.seller, s.seller.at = sel, time.Now()
	return sel, nil
}

// SellerNow reads the seller's details from the table (one consistent
// GetItem), for the form that changes them.
func (s *Store) SellerNow(ctx context.Context) (Seller, error) {
	sel, err := getItemConsistent(ctx, s, partitionMeta, sortKeySellerSettings, "seller", func(r sellerRecord) Seller {
		return Seller{LegalName: r.LegalName, Address: r.Address, VATNumber: r.VATNumber, ChangedBy: r.ChangedBy, ChangedAt: parseTime(r.ChangedAt), Version: r.Version}
	})
	if errors.Is(err, ErrNotFound) {
		return Seller{}, nil // never saved
	}
	return sel, err
}

// SaveSeller writes the seller's details on condition they are still at
// the version staff saw: ErrConflict if another change came first, ErrInput
// (wrapping the first field's error) if they do not pass Check.
func (s *Store) SaveSeller(ctx context.Context, sel Seller) (Seller, error) {
	if errs := sel.Check(); errs != nil {
		for _, k := range []string{"name", "address", "vat"} {
			if e := errs[k]; e != nil {
				return Seller{}, fmt.Errorf("seller: %w", e)
			}
		}
	}
	sel.LegalName = strings.TrimSpace(sel.LegalName)
	sel.Address = strings.Join(sel.AddressLines(), "\n")
	sel.VATNumber = NormalizeVATNumber(sel.VATNumber)
	cond := atVersion(sel.Version)
	sel.Version++
	sel.ChangedAt = s.now()
	err := s.putIf(ctx, sellerRecord{
		PK: partitionMeta, SK: sortKeySellerSettings, EntityType: entitySettings,
		LegalName: sel.LegalName, Address: sel.Address, VATNumber: sel.VATNumber,
		ChangedBy: sel.ChangedBy, ChangedAt: timestamp(sel.ChangedAt), Version: sel.Version,
	}, cond)
	if isConditionFailed(err) {
		return Seller{}, fmt.Errorf("seller: %w", ErrConflict)
	}
	if err != nil {
		return Seller{}, fmt.Errorf("save seller: %w", err)
	}
	s.seller.mu.Lock()
	s.seller.seller, s.seller.at = sel, time.Now()
	s.seller.mu.Unlock()
	return sel, nil
}
