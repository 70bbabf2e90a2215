package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// NewDrop is what creating a drop takes.
type NewDrop struct {
	Title        string
	Description  string // what the drop gives, for customers (not a product drop's)
	Quantity     int
	Opens        time.Time
	Closes       time.Time
	Audience     string // DropAudienceShop (if empty) or IntegrationAudience(name)
	CreatedBy    string // DropByStaff(id) or IntegrationAudience(name)
	Published    bool
	ProductID    string
	Price        Money
	RedeemWithin time.Duration
	StaffID      string // who made it, for the stock adjustments of a product drop
	// Announce puts the drop.created event in the creating transaction,
	// for the integration's endpoints that want it.
	Announce *Announcement[Drop]
	// Idempotency: the drop is made once under this key; a repeat is a
	// *DropReplay, another request under it ErrIdempotencyMismatch.
	Idempotency *DropIdempotency
}

// DropError is a bad field of a new drop.
type DropError struct {
	Field string // title, quantity, opens, closes, product, price, redeem, audience
	Msg   string
	// Kind names the problem, and its sentence (Refusal) in the catalogue
	// (title, description, quantity, opens_missing, opens_past, closes, closes_too_late,
	// product, price, redeem, price_currency, quantity_short, audience,
	// audience_published, audience_product, audience_unknown); Args are its
	// values as name, value pairs.
	Kind string
	Args []any
}

func (e *DropError) Error() string { return e.Field + ": " + e.Msg }

// dropErrorMessages are the sentences of the kinds, each id written whole
// so the catalogue's checks (every message used, in every language) find
// it.
var dropErrorMessages = map[string]string{
	"title":              "admin.dropsx.err.title",
	"description":        "admin.dropsx.err.description",
	"quantity":           "admin.dropsx.err.quantity",
	"opens_missing":      "admin.dropsx.err.opens_missing",
	"opens_past":         "admin.dropsx.err.opens_past",
	"closes":             "admin.dropsx.err.closes",
	"closes_too_late":    "admin.dropsx.err.closes_too_late",
	"product":            "admin.dropsx.err.product",
	"price":              "admin.dropsx.err.price",
	"redeem":             "admin.dropsx.err.redeem",
	"price_currency":     "admin.dropsx.err.price_currency",
	"quantity_short":     "admin.dropsx.err.quantity_short",
	"audience":           "admin.dropsx.err.audience",
	"audience_published": "admin.dropsx.err.audience_published",
	"audience_product":   "admin.dropsx.err.audience_product",
	"audience_unknown":   "admin.dropsx.err.audience_unknown",
}

// Refusal is the bad field said in the catalogue's words, with Args its
// values; nil for a kind without a sentence (a 500: the code is wrong).
func (e *DropError) Refusal() *Refusal {
	msg, ok := dropErrorMessages[e.Kind]
	if !ok {
		return nil
	}
	return &Refusal{Kind: Invalid, Message: msg, Args: e.Args, Field: e.Field, Words: e.Error()}
}

// MaxDropDescription is the longest description of a drop, in characters.
const MaxDropDescription = 1000

// DefaultDropMaxDays is how long after its opening a drop may close at
// most (WithDropMaxDays).
const DefaultDropMaxDays = 365

// DropAudienceShop is the audience of the customers' drops.
const DropAudienceShop = "shop"

// prefixAudienceAPI starts the audience of an integration's drops; the
// same words name the integration that made a drop (CreatedBy).
const prefixAudienceAPI = "api:"

// IntegrationAudience is the audience of an integration's drops.
func IntegrationAudience(name string) string { return prefixAudienceAPI + name }

// DropByStaff is the CreatedBy of a drop a staff member made.
func DropByStaff(customerID string) string { return "staff:" + customerID }

// AudienceIntegration is the integration an audience (or a CreatedBy)
// names, and false for the shop's customers (or a staff member).
func AudienceIntegration(audience string) (string, bool) {
	name, ok := strings.CutPrefix(audience, prefixAudienceAPI)
	return name, ok && ValidIntegrationName(name)
}

// StaffCreator is the staff member a CreatedBy names, if one.
func StaffCreator(createdBy string) (string, bool) {
	id, ok := strings.CutPrefix(createdBy, "staff:")
	return id, ok && ValidID(id)
}

// ValidateDrop checks a new drop made now, the store's bounds applied.
func (s *Store) ValidateDrop(d NewDrop) error {
	return validateDrop(d, s.now(), s.dropMaxLength())
}

func (s *Store) dropMaxLength() time.Duration {
	days := s.dropMaxDays
	if days <= 0 {
		days = DefaultDropMaxDays
	}
	return time.Duration(days) * 24 * time.Hour
}

// validateDrop checks a new drop; now is the time it is made, maxLength
// how long after its opening it may close at most.
func validateDrop(d NewDrop, now time.Time, maxLength time.Duration) error {
	_, toIntegration := AudienceIntegration(d.Audience)
	switch {
	case d.Audience != "" && d.Audience != DropAudienceShop && !toIntegration:
		return &DropError{Field: "audience", Kind: "audience", Msg: "a drop is for the shop's customers or for one integration"}
	case toIntegration && d.Published:
		return &DropError{Field: "audience", Kind: "audience_published", Msg: "an integration's drop is never published to customers"}
	case toIntegration && d.ProductID != "":
		return &DropError{Field: "audience", Kind: "audience_product", Msg: "an integration's drop is never a product drop"}
	}
	switch {
	case strings.TrimSpace(d.Title) == "" || len(d.Title) > 200:
		return &DropError{Field: "title", Kind: "title", Msg: "give the drop a title of at most 200 characters"}
	case utf8.RuneCountInString(d.Description) > MaxDropDescription:
		return &DropError{Field: "description", Kind: "description", Args: []any{"Max", MaxDropDescription},
			Msg: fmt.Sprintf("the description has at most %d characters", MaxDropDescription)}
	case d.Quantity < 1 || d.Quantity > MaxDropQuantity:
		return &DropError{Field: "quantity", Kind: "quantity", Args: []any{"Max", MaxDropQuantity}, Msg: fmt.Sprintf("the quantity is a whole number from 1 to %d", MaxDropQuantity)}
	case d.Opens.IsZero():
		return &DropError{Field: "opens", Kind: "opens_missing", Msg: "say when the drop opens"}
	case d.Opens.Before(now.Add(-time.Minute)):
		return &DropError{Field: "opens", Kind: "opens_past", Msg: "the opening is in the past"}
	case d.Closes.IsZero() || !d.Closes.After(d.Opens):
		return &DropError{Field: "closes", Kind: "closes", Msg: "the drop must close after it opens"}
	case d.Closes.Sub(d.Opens) > maxLength:
		days := int(maxLength / (24 * time.Hour))
		return &DropError{Field: "closes", Kind: "closes_too_late", Args: []any{"Days", days},
			Msg: fmt.Sprintf("the drop must close within %d days of its opening", days)}
	}
	return validateProductDrop(d)
}

// CreateDrop writes a new drop (and, above the threshold, its counters) in
// one transaction; an integration's drop on condition the integration
// exists and is not revoked (a DropError at "audience" otherwise).
func (s *Store) CreateDrop(ctx context.Context, nd NewDrop) (Drop, error) {
	now := s.now().UTC().Truncate(time.Millisecond)
	if err := validateDrop(nd, now, s.dropMaxLength()); err != nil {
		return Drop{}, err
	}
	d := s.newDrop(nd, now)
	rec := newDropRecord(d, now)
	// A product drop sets its quantity aside from stock in the same
	// transaction: the stock items and their adjustments follow the drop's.
	var setAside []types.TransactWriteItem
	if d.ProductID != "" {
		defer s.forgetStock(d.ProductID)
		var err error
		if d.SetAside, setAside, err = s.setAsideItems(ctx, d, nd.StaffID, now); err != nil {
			return Drop{}, err
		}
		rec.SetAside = d.SetAside
	}
	recs := []any{rec}
	if d.ProductID != "" {
		recs = append(recs, newDropClosing(d))
	}
	for _, c := range d.Counters {
		recs = append(recs, dropCounterRecord{PK: dropKey(d.ID), SK: dropCounterKey(c.N), EntityType: entityDropCounter, Quantity: c.Quantity})
	}
	var items []types.TransactWriteItem
	for _, r := range recs {
		item, err := s.txPutNew(r)
		if err != nil {
			return Drop{}, err
		}
		items = append(items, item)
	}
	idemAt := -1
	if nd.Idempotency != nil {
		item, err := s.txIdempotency(nd.Idempotency, d, now)
		if err != nil {
			return Drop{}, err
		}
		idemAt, items = len(items), append(items, item)
	}
	if event, ok, err := txAnnounce(s, nd.Announce, EventDropCreated, now, d); err != nil {
		return Drop{}, err
	} else if ok {
		items = append(items, event)
	}
	if name, ok := AudienceIntegration(d.Audience); ok {
		check, err := s.txCheck(integrationKey(name), integrationKey(name), integrationActive())
		if err != nil {
			return Drop{}, err
		}
		items = append(items, check)
	}
	dropItems := len(items)
	items = append(items, setAside...)
	if err := s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items}); err != nil {
		if idemAt >= 0 {
			if refusal := idempotencyRefusal(err, idemAt, nd.Idempotency.Hash); refusal != nil {
				return Drop{}, refusal
			}
		}
		reasons := cancellationReasons(err)
		if len(reasons) > dropItems && slices.Contains(reasons[dropItems:], reasonConditionFailed) {
			return Drop{}, s.setAsideShort(ctx, d) // the stock moved since it was read
		}
		if _, ok := AudienceIntegration(d.Audience); ok && len(reasons) == dropItems && reasons[dropItems-1] == reasonConditionFailed {
			return Drop{}, &DropError{Field: "audience", Kind: "audience_unknown", Msg: "no such integration, or it is revoked"}
		}
		return Drop{}, fmt.Errorf("create drop: %w", err)
	}
	if d.Published {
		s.forgetDrops()
	}
	return d, nil
}

// newDropRecord is the item of a new drop: on /drops if published, in
// its integration's list if an integration's.
func newDropRecord(d Drop, now time.Time) dropRecord {
	rec := dropRecord{
		PK: dropKey(d.ID), SK: sortKeyDropInfo, EntityType: entityDrop, Title: d.Title, Description: d.Description, Quantity: d.Quantity,
		Status: string(d.Status), Opens: timestamp(d.Opens), Closes: timestamp(d.Closes), CreatedAt: timestamp(now),
		Audience: d.Audience, CreatedBy: d.CreatedBy, Published: d.Published, ProductID: d.ProductID, Price: d.Price.Amount, Currency: d.Price.Currency,
		RedeemWithin: int64(d.RedeemWithin / time.Second), Counters: len(d.Counters),
		GSI2PK: partitionDrops, GSI2SK: createdKey(now, d.ID),
	}
	if d.Published {
		rec.GSI1PK, rec.GSI1SK = partitionPublishedDrops, closesKey(d.Closes, d.ID)
	}
	if name, ok := AudienceIntegration(d.Audience); ok { // never published
		rec.GSI1PK, rec.GSI1SK = integrationDropsKey(name), createdKey(now, d.ID)
	}
	return rec
}

// newDrop is the drop nd makes at now, with its counters above the
// threshold.
func (s *Store) newDrop(nd NewDrop, now time.Time) Drop {
	d := Drop{ID: NewID(), Title: strings.TrimSpace(nd.Title), Description: strings.TrimSpace(nd.Description), Quantity: nd.Quantity, Status: DropOpen,
		Opens: nd.Opens.UTC().Truncate(time.Millisecond), Closes: nd.Closes.UTC().Truncate(time.Millisecond), CreatedAt: now,
		Audience: nd.Audience, CreatedBy: nd.CreatedBy, Published: nd.Published, ProductID: nd.ProductID, Price: nd.Price, RedeemWithin: nd.RedeemWithin}
	if d.Audience == "" {
		d.Audience = DropAudienceShop
	}
	if t := s.counterThreshold(); d.Quantity > t {
		// One counter per threshold's worth, at least two: each item then
		// takes a share of the claims' writes.
		n := min(maxDropCounters, max(2, (d.Quantity+t-1)/t))
		for i := range n {
			share := d.Quantity / n
			if i < d.Quantity%n {
				share++
			}
			d.Counters = append(d.Counters, DropCounter{N: i, Quantity: share})
		}
	}
	return d
}

func (s *Store) counterThreshold() int {
	if s.dropCounterThreshold > 0 {
		return s.dropCounterThreshold
	}
	return DefaultCounterThreshold
}
