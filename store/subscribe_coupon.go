package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"shop/store/rules"
)

// Discount codes on subscriptions. A code is checked and its use counted
// when the subscribe is pended (in the same write as the pending item, on
// condition of its limit and expiry, as checkout counts it), never at a
// renewal; a pending subscribe that fails gives the use back in the write
// that settles it. The subscription keeps a copy of the code's terms
// (Coupon), so a code that expires or is changed later keeps discounting
// the payments it already covers.

// Coupon is a discount code attached to a subscription: its terms as they
// were when attached, and how many payments it still covers (rules.Coupon,
// with what it takes off a payment).
type Coupon = rules.Coupon

// CouponOf is a code's terms as a subscription keeps them, covering the
// payments the code says (Payments; 0 every payment).
func CouponOf(d DiscountCode) Coupon {
	return Coupon{Code: d.Code, Kind: d.Kind, Percent: d.Percent, Amount: d.Amount, Every: d.Payments <= 0, Left: d.Payments}
}

// ErrCodeCurrency: a fixed code in another currency than the price.
var ErrCodeCurrency error = Refuse(Invalid, "subs.code.currency", "this code is for another currency")

// SubscribeCode reads a code typed on the subscribe form and checks it can
// be attached to a subscription priced in currency: well formed, known,
// not expired or used up, a fixed code in that currency. Its problems are
// CodeError{Field: "code"}. Nothing is written: PendSubscribe counts the use.
func (s *Store) SubscribeCode(ctx context.Context, typed, currency string) (DiscountCode, error) {
	code, err := NormalizeCode(typed)
	if err != nil {
		return DiscountCode{}, &CodeError{Field: "code", Err: err}
	}
	d, err := s.DiscountCode(ctx, code)
	if errors.Is(err, ErrNotFound) {
		return DiscountCode{}, &CodeError{Field: "code", Err: ErrUnknownDiscount}
	}
	if err != nil {
		return DiscountCode{}, err
	}
	if err := checkSubscribeCode(d, currency, s.now()); err != nil {
		return DiscountCode{}, err
	}
	return d, nil
}

// checkSubscribeCode says why d cannot be attached now to a subscription
// priced in currency, as a CodeError, or nil.
func checkSubscribeCode(d DiscountCode, currency string, now time.Time) error {
	if err := d.Usable(now); err != nil {
		return &CodeError{Field: "code", Err: err}
	}
	if d.Kind == DiscountFixed && d.Amount.Currency != currency {
		return &CodeError{Field: "code", Err: ErrCodeCurrency}
	}
	return nil
}

// takeCodeUse adds to b the count of one use of code, on condition it is
// below the limit and the code has not expired at now (checkout's rule,
// checkout_items.go); a failed condition is the role "code".
func takeCodeUse(b *txItems, code string, now time.Time) error {
	return b.update(discountKey(code), discountKey(code),
		expression.Add(expression.Name("Used"), expression.Value(1)),
		expression.Name("Used").LessThan(expression.Name("UsageLimit")).
			And(expression.Name("ExpiresOn").GreaterThan(expression.Value(timestamp(now)))),
		itemRole{kind: "code"})
}

// giveCodeUseBack adds to b the return of a use of code a subscribe that
// never started had counted. Once: the caller's transaction is conditional
// on the subscribe still pending.
func giveCodeUseBack(b *txItems, code string) error {
	return b.update(discountKey(code), discountKey(code),
		expression.Add(expression.Name("Used"), expression.Value(-1)),
		expression.Name("Used").GreaterThan(expression.Value(0)), itemRole{kind: "code"})
}

// couponDoc is a coupon's attributes, on a subscription's item and on a
// pending subscribe's (the same names: the start copies them over).
type couponDoc struct {
	CouponCode    string `dynamodbav:"CouponCode,omitempty"`
	CouponKind    string `dynamodbav:"CouponKind,omitempty"`
	CouponPercent int    `dynamodbav:"CouponPercent,omitempty"`
	CouponAmount  int64  `dynamodbav:"CouponAmount,omitempty"` // a fixed code's, in the subscription's currency
	CouponEvery   bool   `dynamodbav:"CouponEvery,omitempty"`
	CouponLeft    int    `dynamodbav:"CouponLeft,omitempty"`
}

func newCouponDoc(c *Coupon) couponDoc {
	if c == nil {
		return couponDoc{}
	}
	return couponDoc{CouponCode: c.Code, CouponKind: string(c.Kind), CouponPercent: c.Percent, CouponAmount: c.Amount.Amount,
		CouponEvery: c.Every, CouponLeft: c.Left}
}

func (d couponDoc) coupon(currency string) *Coupon {
	if d.CouponCode == "" {
		return nil
	}
	return &Coupon{Code: d.CouponCode, Kind: DiscountKind(d.CouponKind), Percent: d.CouponPercent, Amount: Money{Amount: d.CouponAmount, Currency: currency},
		Every: d.CouponEvery, Left: d.CouponLeft}
}

// pendWithCode writes a pending subscribe and counts its code's use in one
// transaction: the key on condition it is new (ErrConflict), the use on
// condition of the code's limit and expiry (a CodeError, read to say
// which), the trial's marker on condition the customer had none
// (ErrTrialTaken).
func (s *Store) pendWithCode(ctx context.Context, p PendingSubscribe) error {
	now := s.now().UTC()
	b := &txItems{s: s}
	isNew := expression.AttributeNotExists(expression.Name(attrPK))
	if err := b.put(p.record(), &isNew, itemRole{kind: "key"}); err != nil {
		return err
	}
	codeAt, trialAt := -1, -1
	if p.Coupon != nil {
		codeAt = len(b.tx)
		if err := takeCodeUse(b, p.Coupon.Code, now); err != nil {
			return err
		}
	}
	if p.TrialDays > 0 {
		trialAt = len(b.tx)
		if err := takeTrial(b, p); err != nil {
			return err
		}
	}
	err := s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: b.tx})
	reasons := cancellationReasons(err)
	switch {
	case err == nil:
		return nil
	case settled(reasons, 0):
		return fmt.Errorf("subscribe %s: %w", p.Key, ErrConflict)
	case settled(reasons, trialAt):
		return fmt.Errorf("subscribe %s to %s: %w", p.Key, p.ProductID, ErrTrialTaken)
	case settled(reasons, codeAt):
		d, rerr := s.DiscountCode(ctx, p.Coupon.Code)
		if rerr != nil {
			return rerr
		}
		if uerr := d.Usable(now); uerr != nil {
			return &CodeError{Field: "code", Err: uerr}
		}
		return &CodeError{Field: "code", Err: ErrCodeUsedUp}
	}
	return fmt.Errorf("pend subscribe %s: %w", p.Key, err)
}

// withDiscount records on a receipt the code that took off from its price,
// if it took anything.
func (r *Receipt) withDiscount(c *Coupon, off Money) {
	if c != nil && off.Amount > 0 {
		r.DiscountCode, r.Discount = c.Code, off
	}
}
