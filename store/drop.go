package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

// Limited drops: a quantity of something that opens at a time and closes at
// a deadline, claimed first come, first served, one ticket per client. The
// claim is one transaction on DynamoDB's conditions: they are the truth; the
// in-process gate (store/dropgate) only keeps rejected traffic off them.

// DropStatus is a drop's state as staff (or the system that made it) set it.
// Whether it is open now also depends on the time and what is left.
type DropStatus string

const (
	DropOpen      DropStatus = "open"      // claimable within [Opens, Closes)
	DropClosed    DropStatus = "closed"    // closed early by staff
	DropCancelled DropStatus = "cancelled" // its tickets are void
)

// Bounds of a drop.
const (
	MaxDropQuantity = 1_000_000
	// DefaultCounterThreshold: a drop above it splits its quantity over
	// several counter items, as one item takes about 1,000 writes a second.
	DefaultCounterThreshold = 1000
	maxDropCounters         = 50
)

// Drop is a limited quantity claimed first come, first served.
type Drop struct {
	ID    string
	Title string
	// Description and Photo say what a drop that is not a product's gives
	// (staff write and upload them); a product drop shows its product.
	Description string
	Photo       Photo
	Quantity    int
	Claimed     int // the sum over its counters
	// Releases counts the tickets given back, ever (summed like Claimed):
	// a memory of who holds tickets is stale once it moves.
	Releases  int
	Status    DropStatus
	Opens     time.Time
	Closes    time.Time
	CreatedAt time.Time
	// Audience is who sees and claims the drop: DropAudienceShop, the
	// customers (on /drops once Published), or "api:<integration>", that
	// integration's keys alone (never published, never a product drop).
	Audience  string
	Published bool
	// CreatedBy is who made it: "staff:<customer id>" or
	// "api:<integration>" (empty on drops made before it was kept).
	CreatedBy string
	// ProductID ties the drop to a product: a ticket lets its holder buy
	// one unit at Price within RedeemWithin of the claim.
	ProductID    string
	Price        Money
	RedeemWithin time.Duration
	// SetAside is the stock a product drop took from each warehouse when
	// it was made; closing or cancelling it gives back what was not claimed.
	SetAside []Allocation
	// UnitsReturned is how many units tickets that expired unused or were
	// voided gave back to stock (drop_ticket_return.go); Claimed keeps them.
	UnitsReturned int
	// Counters is how many counter items share the quantity (0: the drop
	// item counts its claims itself).
	Counters []DropCounter
	// uncounted: read from a list, which does not read the counters of a
	// drop that has them, so Claimed and Counters are not its count.
	uncounted bool
}

// Counted reports whether Claimed and Counters are the drop's count: a
// drop with counters read from a list (PublishedDrops, AllDrops) is not.
func (d Drop) Counted() bool { return !d.uncounted }

// DropCounter is one share of a big drop's quantity.
type DropCounter struct {
	N        int
	Quantity int
	Claimed  int
	Releases int
}

// Left is how many tickets remain.
func (d Drop) Left() int { return max(0, d.Quantity-d.Claimed) }

// Why is why a claim at now would be refused, or nil if it may go ahead.
// The gate answers with it; DynamoDB's conditions decide.
func (d Drop) Why(now time.Time) error {
	switch {
	case d.Status == DropCancelled:
		return ErrDropCancelled
	case d.Status == DropClosed, !now.Before(d.Closes):
		return ErrDropClosed
	case now.Before(d.Opens):
		return ErrDropNotOpen
	case d.Claimed >= d.Quantity:
		return ErrSoldOut
	}
	return nil
}

type dropRecord struct {
	PK           string `dynamodbav:"PK"` // subject#<id>
	SK           string `dynamodbav:"SK"` // info
	EntityType   string `dynamodbav:"EntityType"`
	Title        string `dynamodbav:"Title"`
	Description  string `dynamodbav:"Description,omitempty"`
	PhotoKey     string `dynamodbav:"PhotoKey,omitempty"`
	PhotoFormat  string `dynamodbav:"PhotoFormat,omitempty"`
	PhotoWidth   int    `dynamodbav:"PhotoWidth,omitempty"`
	PhotoHeight  int    `dynamodbav:"PhotoHeight,omitempty"`
	Quantity     int    `dynamodbav:"Quantity"`
	Claimed      int    `dynamodbav:"Claimed"` // counted here when the drop has no counters
	Releases     int    `dynamodbav:"Releases,omitempty"`
	Status       string `dynamodbav:"Status"`
	Opens        string `dynamodbav:"Opens"`
	Closes       string `dynamodbav:"Closes"`
	CreatedAt    string `dynamodbav:"CreatedAt"`
	Audience     string `dynamodbav:"Audience,omitempty"`
	Owner        string `dynamodbav:"Owner,omitempty"` // the audience of a drop made before Audience: "shop" or "api:<key name>"
	CreatedBy    string `dynamodbav:"CreatedBy,omitempty"`
	Published    bool   `dynamodbav:"Published"`
	ProductID    string `dynamodbav:"ProductID,omitempty"`
	Price        int64  `dynamodbav:"Price,omitempty"`
	Currency     string `dynamodbav:"Currency,omitempty"`
	RedeemWithin int64  `dynamodbav:"RedeemWithinSeconds,omitempty"`
	// SetAside: the warehouses a product drop's quantity was taken from.
	SetAside []Allocation `dynamodbav:"SetAside,omitempty"`
	Counters int          `dynamodbav:"Counters"`
	// GSI1: published drops by closing time (/drops), until staff close or
	// cancel them. GSI2: every drop, newest first (staff).
	GSI1PK string `dynamodbav:"GSI1-PK,omitempty"`
	GSI1SK string `dynamodbav:"GSI1-SK,omitempty"`
	GSI2PK string `dynamodbav:"GSI2-PK"`
	GSI2SK string `dynamodbav:"GSI2-SK"`
}

// dropClosingRecord is a product drop's entry in the list of drops to
// close (GSI2 drops-closing, by closing time): written with the drop and
// deleted in the transaction that closes or cancels it, so the reconcile
// step reads only drops that still hold stock aside, never the history.
type dropClosingRecord struct {
	PK         string `dynamodbav:"PK"` // subject#<id>
	SK         string `dynamodbav:"SK"` // closing
	EntityType string `dynamodbav:"EntityType"`
	Title      string `dynamodbav:"Title"`
	ProductID  string `dynamodbav:"ProductID"`
	Opens      string `dynamodbav:"Opens"`
	Closes     string `dynamodbav:"Closes"`
	GSI2PK     string `dynamodbav:"GSI2-PK"`
	GSI2SK     string `dynamodbav:"GSI2-SK"`
}

func newDropClosing(d Drop) dropClosingRecord {
	return dropClosingRecord{
		PK: dropKey(d.ID), SK: sortKeyDropClosing, EntityType: entityDropClosing, Title: d.Title, ProductID: d.ProductID,
		Opens: timestamp(d.Opens), Closes: timestamp(d.Closes), GSI2PK: partitionDropsToClose, GSI2SK: closesKey(d.Closes, d.ID),
	}
}

// drop is the drop as its entry holds it: open, since the entry leaves
// the list when the drop stops being open; its count is not here.
func (r dropClosingRecord) drop() Drop {
	return Drop{ID: trimPrefix(r.PK, prefixDrop), Title: r.Title, ProductID: r.ProductID, Status: DropOpen,
		Opens: parseTime(r.Opens), Closes: parseTime(r.Closes), uncounted: true}
}

type dropCounterRecord struct {
	PK         string `dynamodbav:"PK"` // subject#<id>
	SK         string `dynamodbav:"SK"` // counter#<n>
	EntityType string `dynamodbav:"EntityType"`
	Quantity   int    `dynamodbav:"Quantity"`
	Claimed    int    `dynamodbav:"Claimed"`
	Releases   int    `dynamodbav:"Releases,omitempty"`
}

func (r dropRecord) drop() Drop {
	return Drop{
		ID: trimPrefix(r.PK, prefixDrop), Title: r.Title, Description: r.Description, Quantity: r.Quantity, Claimed: r.Claimed, Releases: r.Releases,
		Photo:  Photo{Key: r.PhotoKey, Format: r.PhotoFormat, Width: r.PhotoWidth, Height: r.PhotoHeight},
		Status: DropStatus(r.Status), Opens: parseTime(r.Opens), Closes: parseTime(r.Closes), CreatedAt: parseTime(r.CreatedAt),
		Audience: r.audience(), CreatedBy: r.CreatedBy, Published: r.Published, ProductID: r.ProductID, Price: Money{Amount: r.Price, Currency: r.Currency},
		RedeemWithin: time.Duration(r.RedeemWithin) * time.Second, SetAside: r.SetAside,
		uncounted: r.Counters > 0, // readDrop sums them
	}
}

// audience reads a drop made before Audience from its Owner, whose values
// were already the audiences: "shop", or "api:<key name>", and every key
// name became the name of an integration (migrateAPIKeys).
func (r dropRecord) audience() string {
	switch {
	case r.Audience != "":
		return r.Audience
	case r.Owner != "":
		return r.Owner
	}
	return DropAudienceShop
}

// Drop reads a drop with its counters: one Query (PK=subject#id; the info
// item and its counter#n items).
func (s *Store) Drop(ctx context.Context, id string) (Drop, error) {
	return s.readDrop(ctx, id, false)
}

// DropConsistent is Drop with a strongly consistent read.
func (s *Store) DropConsistent(ctx context.Context, id string) (Drop, error) {
	return s.readDrop(ctx, id, true)
}

func (s *Store) readDrop(ctx context.Context, id string, consistent bool) (Drop, error) {
	if !ValidID(id) {
		return Drop{}, fmt.Errorf("drop %q: %w", id, ErrNotFound)
	}
	items, err := s.query(ctx, querySpec{key: onTable.pkEquals(dropKey(id)), consistent: consistent})
	if err != nil {
		return Drop{}, err
	}
	var info *dropRecord
	var counters []DropCounter
	returned := 0
	for _, it := range items {
		var head struct {
			SK string `dynamodbav:"SK"`
		}
		if err := attributevalue.UnmarshalMap(it, &head); err != nil {
			return Drop{}, err
		}
		switch {
		case head.SK == sortKeyDropInfo:
			info = &dropRecord{}
			if err := attributevalue.UnmarshalMap(it, info); err != nil {
				return Drop{}, err
			}
		case strings.HasPrefix(head.SK, prefixDropCounter):
			var r dropCounterRecord
			if err := attributevalue.UnmarshalMap(it, &r); err != nil {
				return Drop{}, err
			}
			n, ok := dropCounterOf(r.SK)
			if !ok {
				return Drop{}, fmt.Errorf("drop %s: counter key %q", id, r.SK)
			}
			counters = append(counters, DropCounter{N: n, Quantity: r.Quantity, Claimed: r.Claimed, Releases: r.Releases})
		case head.SK == sortKeyDropReturned:
			var r struct {
				Units int `dynamodbav:"Units"`
			}
			if err := attributevalue.UnmarshalMap(it, &r); err != nil {
				return Drop{}, err
			}
			returned = r.Units
		}
	}
	found := info != nil
	var d Drop
	if found {
		d = info.drop()
		d.uncounted, d.UnitsReturned = false, returned
		if info.Counters > 0 { // the counters count, not the drop's item
			d.Claimed, d.Releases = 0, 0
			for _, c := range counters {
				d.Claimed += c.Claimed
				d.Releases += c.Releases
			}
			slices.SortFunc(counters, func(a, b DropCounter) int { return a.N - b.N })
			d.Counters = counters
		}
	}
	if !found {
		return Drop{}, fmt.Errorf("drop %s: %w", id, ErrNotFound)
	}
	return d, nil
}

// PublishedDrops lists the drops on /drops, open and coming, those closing
// soonest first (GSI1: GSI1-PK=drops, GSI1-SK > closes#<now>): the key
// condition leaves out every drop that has closed, however many there are.
// A cursor whose drop has closed since its page was shown starts at the
// top, where the next drop still open now is.
func (s *Store) PublishedDrops(ctx context.Context, limit int, cursor string) (Page[Drop], error) {
	after := closedBy(s.now())
	q := querySpec{key: onGSI1.pkAndSKAbove(partitionPublishedDrops, after)}
	sk, err := cursorSortKey(cursor, q.key)
	if err != nil {
		return Page[Drop]{}, err
	}
	if sk <= after {
		cursor = ""
	}
	return pagedQuery(ctx, s, q, limit, cursor, dropRecord.drop)
}

// AllDrops lists every drop, newest first (GSI2: GSI2-PK=drops-all), for
// staff. Counts of drops with counters are not summed here.
func (s *Store) AllDrops(ctx context.Context, limit int, cursor string) (Page[Drop], error) {
	return pagedQuery(ctx, s, querySpec{key: onGSI2.pkEquals(partitionDrops), backward: true}, limit, cursor, dropRecord.drop)
}

// ListedClaimed reports whether a drop read from a list (PublishedDrops,
// AllDrops) carries its claimed count: a drop with counters counts on its
// counter items, which lists do not read.
func (s *Store) ListedClaimed(d Drop) bool { return d.Counted() }

// SetDropStatus closes a drop early or cancels it, on condition it is open.
// A product drop gives back to stock what was not claimed, in the same
// transaction (see closeProductDrop).
func (s *Store) SetDropStatus(ctx context.Context, id string, to DropStatus) error {
	return s.SetDropStatusAnnounced(ctx, id, to, nil)
}

// SetDropStatusAnnounced is SetDropStatus writing, for an integration's
// drop, the drop.closed or drop.cancelled event in the same transaction
// (keyed by drop and type: see AnnounceDropOnce), for a's endpoints. A
// drop announced closed at its deadline is closed without a second event.
func (s *Store) SetDropStatusAnnounced(ctx context.Context, id string, to DropStatus, a *Announcement[Drop]) error {
	defer s.forgetDrops()
	upd := leaveDropLists(to)
	d, err := s.DropConsistent(ctx, id)
	if err == nil && len(d.SetAside) > 0 { // never an integration's: no event
		return s.closeProductDrop(ctx, d, to)
	} else if _, api := AudienceIntegration(d.Audience); err == nil && api {
		// Its GSI1 keys list it in its integration's drops: kept.
		upd = expression.Set(expression.Name("Status"), expression.Value(string(to)))
		if a != nil {
			d.Status = to
			if done, err := s.setDropStatusWithEvent(ctx, d, upd, a); done {
				return err
			}
		}
	}
	err = s.updateIf(ctx, dropKey(id), sortKeyDropInfo, upd,
		expression.Name("Status").Equal(expression.Value(string(DropOpen))))
	if isConditionFailed(err) {
		return fmt.Errorf("drop %s is not open (or does not exist): %w", id, ErrConflict)
	}
	return err
}

// leaveDropLists sets a drop's status to closed or cancelled and takes it
// off /drops (its GSI1 keys) at once, rather than at its closing time.
func leaveDropLists(to DropStatus) expression.UpdateBuilder {
	return expression.Set(expression.Name("Status"), expression.Value(string(to))).
		Remove(expression.Name(attrGSI1PK)).Remove(expression.Name(attrGSI1SK))
}
