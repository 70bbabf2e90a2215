package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Checkout is four files: this one (the request, and the checkout key's
// item, which is also the intent to charge), checkout_quote.go (reading and
// pricing), checkout_tx.go (charging and the order's transaction) and
// checkout_fail.go (what a failed checkout answers and undoes).

// CheckoutLine is a product and how many. A line with a DropID is that
// drop's ticket: one unit of the product at the drop's price, and the
// ticket is redeemed by the order.
type CheckoutLine struct {
	ProductID string
	Quantity  int
	DropID    string
}

// CheckoutRequest is one press of "Place order".
type CheckoutRequest struct {
	Key          string // idempotency key from the checkout form
	CustomerID   string
	Buyer        Buyer  // the customer's name and email, kept on the order
	CartOwner    string // the cart to empty with the order; "" for none
	Lines        []CheckoutLine
	ShipTo       Address
	DiscountCode string // normalized, or ""
	GiftCardCode string // normalized, or ""
	Card         *Card  // pays what the gift card does not
	// ExpectTotal is the total the customer saw; if the order would cost
	// anything else now, nothing is charged (ErrTotalChanged). nil: unchecked.
	ExpectTotal *Money
	// Quote is QuoteCheckout's answer for this very request, if the caller
	// just made it (to show the summary): Checkout then does not read it all
	// again. The transaction's conditions guard what may have moved since.
	Quote *Quote
	// Confirmation, if set, is the order's confirmation mail, put in the
	// outbox by the order's own transaction (one item more): never an
	// order without its mail, nor a mail without its order.
	Confirmation func(Order, []OrderItem) Mail
	// HoldFor is how long HoldCheckout holds the order for its card
	// payment on the provider's page (Checkout does not read it).
	HoldFor time.Duration
}

var (
	ErrEmptyOrder     = errors.New("the cart is empty")
	ErrCardRequired   = errors.New("a card is needed for the rest of the total")
	ErrBadCheckoutKey = errors.New("checkout key must be an id of at most 36 characters")
	ErrMixedCurrency  = errors.New("the order mixes currencies")
	ErrTotalChanged   = errors.New("the total changed since you saw it")
	ErrOrderTooLarge  = errors.New("this order needs more writes than one transaction takes; split it into two orders")
	ErrCartChanged    = errors.New("your cart changed while ordering")
)

// CheckoutIntentStatus is where a checkout's card charge stands.
type CheckoutIntentStatus string

// A checkout that charges a card first records its intent (charging), then
// charges, then places the order (placed) in the transaction that also
// writes the order. A failed or crashed checkout's charge is voided (voiding
// while the void is under way, then voided); an intent whose charge never
// happened is abandoned. Only charging and voiding are in the GSI2 list.
const (
	CheckoutCharging  CheckoutIntentStatus = "charging"
	CheckoutPlaced    CheckoutIntentStatus = "placed"
	CheckoutVoiding   CheckoutIntentStatus = "voiding"
	CheckoutVoided    CheckoutIntentStatus = "voided"
	CheckoutAbandoned CheckoutIntentStatus = "abandoned"
)

// CheckoutIntent is a checkout key's record of its card charge.
type CheckoutIntent struct {
	Key        string // the checkout form's idempotency key
	CustomerID string
	Status     CheckoutIntentStatus
	Attempt    int    // 1; one more for each try after a voided or abandoned one
	ChargeKey  string // the gateway's idempotency key of this attempt's charge
	Amount     Money
	StartedAt  time.Time
	OrderID    string // once placed
	ChargeID   string // once placed with a card
}

const (
	idempotencyTTL = 24 * time.Hour     // a placed or settled key: double submits within a day
	intentTTL      = 7 * 24 * time.Hour // an open intent outlives any pause of the reconcile step
)

// idempotencyRecord is the item of a checkout key, PK=SK=idem#key. Items
// written before intents existed have no Status and are placed.
type idempotencyRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	Status     string `dynamodbav:"Status,omitempty"`
	OrderID    string `dynamodbav:"OrderID,omitempty"`
	CustomerID string `dynamodbav:"CustomerID"`
	Attempt    int    `dynamodbav:"Attempt,omitempty"`
	ChargeKey  string `dynamodbav:"ChargeKey,omitempty"`
	ChargeID   string `dynamodbav:"ChargeID,omitempty"`
	Amount     int64  `dynamodbav:"Amount,omitempty"`
	Currency   string `dynamodbav:"Currency,omitempty"`
	StartedAt  string `dynamodbav:"StartedAt,omitempty"`
	ExpiresAt  int64  `dynamodbav:"ExpiresAt"`
	GSI2PK     string `dynamodbav:"GSI2-PK,omitempty"` // checkout-intents, while charging or voiding
	GSI2SK     string `dynamodbav:"GSI2-SK,omitempty"` // <started at>#<key>
}

func (r idempotencyRecord) status() CheckoutIntentStatus {
	if r.Status == "" {
		return CheckoutPlaced
	}
	return CheckoutIntentStatus(r.Status)
}

func (r idempotencyRecord) intent() CheckoutIntent {
	return CheckoutIntent{Key: trimPrefix(r.PK, prefixIdem), CustomerID: r.CustomerID, Status: r.status(), Attempt: r.Attempt,
		ChargeKey: r.ChargeKey, Amount: Money{r.Amount, r.Currency}, StartedAt: parseTime(r.StartedAt), OrderID: r.OrderID, ChargeID: r.ChargeID}
}

// checkoutKeyItem reads a checkout key's item, strongly consistent.
func (s *Store) checkoutKeyItem(ctx context.Context, key string) (idempotencyRecord, bool, error) {
	r, err := getItemConsistent(ctx, s, idempotencyKey(key), idempotencyKey(key), "checkout key", asRecord[idempotencyRecord])
	if errors.Is(err, ErrNotFound) {
		return r, false, nil
	}
	return r, err == nil, err
}

// OrderForKey is the order a checkout key placed, read strongly
// consistently; ErrNotFound if none (also while its charge is under way or
// after it failed). A key belongs to one customer.
func (s *Store) OrderForKey(ctx context.Context, key, customerID string) (Order, error) {
	r, found, err := s.checkoutKeyItem(ctx, key)
	if err != nil {
		return Order{}, err
	}
	return s.placedOrder(ctx, r, found, customerID)
}

func (s *Store) placedOrder(ctx context.Context, r idempotencyRecord, found bool, customerID string) (Order, error) {
	switch {
	case !found:
		return Order{}, fmt.Errorf("checkout key: %w", ErrNotFound)
	case r.CustomerID != customerID:
		return Order{}, ErrBadCheckoutKey
	case r.status() != CheckoutPlaced:
		return Order{}, fmt.Errorf("checkout key %s: %w", r.status(), ErrNotFound)
	}
	d, err := s.orderDetails(ctx, r.OrderID, true)
	return d.Order, err
}

// recordIntent writes the intent to charge amount before the gateway is
// called: status charging, the attempt's charge key, the amount, and the
// sparse GSI2 entry. It goes on condition the key is new, or holds a
// charging intent of the same customer and attempt (a twin submission, or
// a try after a declined card: overwritten, same charge key), or a voided
// or abandoned attempt of the same customer (the next attempt, a new charge
// key). cur is the key's item as read, if any. A key placed meanwhile
// answers with its order.
func (s *Store) recordIntent(ctx context.Context, req CheckoutRequest, cur *idempotencyRecord, amount Money) (idempotencyRecord, *Order, error) {
	for range 4 {
		attempt := 1
		if cur != nil {
			if cur.CustomerID != req.CustomerID {
				return idempotencyRecord{}, nil, ErrBadCheckoutKey
			}
			switch cur.status() {
			case CheckoutPlaced:
				o, err := s.placedOrder(ctx, *cur, true, req.CustomerID)
				return idempotencyRecord{}, &o, err
			case CheckoutCharging:
				attempt = cur.Attempt
			case CheckoutVoided, CheckoutAbandoned:
				attempt = cur.Attempt + 1
			default:
				return idempotencyRecord{}, nil, fmt.Errorf("an earlier try of this checkout is being cancelled: %w", ErrConflict)
			}
		}
		shards, err := s.lists.count(ctx, s)
		if err != nil {
			return idempotencyRecord{}, nil, err
		}
		now := s.now().UTC()
		rec := idempotencyRecord{
			PK: idempotencyKey(req.Key), SK: idempotencyKey(req.Key), EntityType: entityIdempotency,
			Status: string(CheckoutCharging), CustomerID: req.CustomerID, Attempt: attempt, ChargeKey: checkoutChargeKey(req.Key, attempt),
			Amount: amount.Amount, Currency: amount.Currency, StartedAt: timestamp(now), ExpiresAt: now.Add(intentTTL).Unix(),
			GSI2PK: shardKey(partitionCheckouts, shardOf(req.Key, shards)), GSI2SK: checkoutIntentSortKey(now, req.Key),
		}
		mine := expression.Name("CustomerID").Equal(expression.Value(req.CustomerID))
		cond := mine.And(expression.Name("Status").Equal(expression.Value(CheckoutCharging)), expression.Name("Attempt").Equal(expression.Value(attempt)))
		if attempt == 1 {
			cond = expression.Or(expression.AttributeNotExists(expression.Name(attrPK)), cond)
		} else {
			cond = expression.Or(cond, mine.And(statusIn(CheckoutVoided, CheckoutAbandoned), expression.Name("Attempt").Equal(expression.Value(attempt-1))))
		}
		err = s.putIf(ctx, rec, cond)
		if err == nil {
			return rec, nil, nil
		}
		if !isConditionFailed(err) && !isTransactionConflict(err) {
			return rec, nil, fmt.Errorf("record checkout intent: %w", err)
		}
		// Moved meanwhile (a twin placed it, or a reconcile settled it).
		r, found, err := s.checkoutKeyItem(ctx, req.Key)
		if err != nil {
			return rec, nil, err
		}
		cur = nil
		if found {
			cur = &r
		}
	}
	return idempotencyRecord{}, nil, fmt.Errorf("record checkout intent: %w", ErrConflict)
}

func statusIn(first CheckoutIntentStatus, more ...CheckoutIntentStatus) expression.ConditionBuilder {
	var others []expression.OperandBuilder
	for _, m := range more {
		others = append(others, expression.Value(m))
	}
	return expression.Name("Status").In(expression.Value(first), others...)
}

func isTransactionConflict(err error) bool {
	var tc *types.TransactionConflictException
	return errors.As(err, &tc)
}

// errIntentMoved says an intent was not in the status a move expected.
var errIntentMoved = fmt.Errorf("checkout intent moved: %w", ErrConflict)

// moveIntent sets the status of a checkout key's intent, on condition it
// is still at attempt and in one of the statuses from. A settled intent
// leaves the GSI2 list and keeps its key for idempotencyTTL.
func (s *Store) moveIntent(ctx context.Context, key string, attempt int, to CheckoutIntentStatus, from ...CheckoutIntentStatus) error {
	upd := expression.Set(expression.Name("Status"), expression.Value(to))
	if to != CheckoutVoiding {
		upd = upd.Set(expression.Name(attrTTL), expression.Value(s.now().Add(idempotencyTTL).Unix())).
			Remove(expression.Name(attrGSI2PK)).Remove(expression.Name(attrGSI2SK))
	}
	cond := expression.Name("Attempt").Equal(expression.Value(attempt)).And(statusIn(from[0], from[1:]...))
	err := s.updateIf(ctx, idempotencyKey(key), idempotencyKey(key), upd, cond)
	if isConditionFailed(err) {
		return errIntentMoved
	}
	if err != nil {
		return fmt.Errorf("checkout intent %s to %s: %w", key, to, err)
	}
	return nil
}

// OpenCheckoutIntents lists checkout intents started before `before` that
// are still charging or voiding, oldest first: one Query per shard of the
// sparse GSI2 list checkout-intents#n, merged. A reconcile step settles
// each with SettleCheckoutIntent.
func (s *Store) OpenCheckoutIntents(ctx context.Context, before time.Time, limit int) ([]CheckoutIntent, error) {
	shards, err := s.lists.count(ctx, s)
	if err != nil {
		return nil, err
	}
	l := shardedList{id: partitionCheckouts, shards: shards, key: func(n int) keyCond {
		return onGSI2.pkAndSKBelow(shardKey(partitionCheckouts, n), timestamp(before))
	}}
	p, err := mergedPage(ctx, s, l, limit, "", idempotencyRecord.intent)
	return p.Items, err
}

// SettleCheckoutIntent ends an intent a checkout left open (its process
// died between intent and order, or could not void). lookup reads the
// gateway's ledger by charge key (ErrNotFound: nothing charged); void voids
// a charge by id. It returns the intent's status after:
//
//   - placed: the order was written meanwhile; its charge stands.
//   - voided: the ledger holds a charge and no order exists. The intent is
//     first moved to voiding (on condition it is still charging), so the
//     order can no longer be placed with that charge, then the charge is
//     voided: the customer was told the checkout failed. A failed void
//     leaves it voiding, listed for the next run.
//   - abandoned: nothing was charged (declined, or the process died before).
//
// Each move is conditional on the intent's attempt and status, so a
// checkout finishing meanwhile, or a second reconcile, is never undone. An
// intent a later attempt of its key replaced was settled before: "".
func (s *Store) SettleCheckoutIntent(ctx context.Context, in CheckoutIntent, lookup func(chargeKey string) (GatewayCharge, error), void func(chargeID string) error) (CheckoutIntentStatus, error) {
	for range 4 {
		cur, found, err := s.checkoutKeyItem(ctx, in.Key)
		if err != nil {
			return "", err
		}
		switch {
		case found && cur.Attempt != in.Attempt:
			return "", nil // a later attempt replaced it, so it was settled already
		case !found:
			// Gone with its TTL (a week): no order can use its charge now.
			cur = idempotencyRecord{Status: string(CheckoutVoiding), Attempt: in.Attempt, ChargeKey: in.ChargeKey}
		}
		st := cur.status()
		if st != CheckoutCharging && st != CheckoutVoiding {
			return st, nil
		}
		charge, err := lookup(cur.ChargeKey)
		charged := err == nil && charge.ID != "" && !charge.Voided
		if err != nil && !errors.Is(err, ErrNotFound) {
			return st, fmt.Errorf("look up charge %s: %w", cur.ChargeKey, err)
		}
		if !charged {
			to := CheckoutAbandoned
			if err == nil && charge.Voided {
				to = CheckoutVoided
			}
			if !found {
				return to, nil
			}
			if err := s.moveIntent(ctx, in.Key, cur.Attempt, to, CheckoutCharging, CheckoutVoiding); err != nil {
				if errors.Is(err, errIntentMoved) {
					continue
				}
				return st, err
			}
			return to, nil
		}
		if st == CheckoutCharging {
			if err := s.moveIntent(ctx, in.Key, cur.Attempt, CheckoutVoiding, CheckoutCharging); err != nil {
				if errors.Is(err, errIntentMoved) {
					continue // placed meanwhile, perhaps: read again
				}
				return st, err
			}
		}
		if err := void(charge.ID); err != nil {
			return CheckoutVoiding, fmt.Errorf("void charge %s: %w", charge.ID, err)
		}
		if !found {
			return CheckoutVoided, nil
		}
		if err := s.moveIntent(ctx, in.Key, cur.Attempt, CheckoutVoided, CheckoutVoiding); err != nil && !errors.Is(err, errIntentMoved) {
			return CheckoutVoiding, err
		}
		return CheckoutVoided, nil
	}
	return "", fmt.Errorf("settle checkout intent %s: %w", in.Key, ErrConflict)
}

func last4(s string) string {
	s = strings.ReplaceAll(s, "-", "")
	if len(s) <= 4 {
		return s
	}
	return s[len(s)-4:]
}
