package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store/rules"
)

// Receipts of subscription payments (pattern 2 of the recurring payments
// guide, and pattern 7 to read them), kept six months, each with the marker
// of the period it paid.

// ReceiptKind tells the receipt of a whole period from that of a new
// subscriber's first days (FirstPeriod).
type ReceiptKind string

const (
	// ReceiptWholePeriod pays a whole period (every receipt from before
	// the kinds).
	ReceiptWholePeriod ReceiptKind = ""
	// ReceiptFirstDays pays the days from subscribing up to the first
	// payment date, prorated.
	ReceiptFirstDays ReceiptKind = "first_days"
	// ReceiptFreeDays says those days were free: their share was below
	// the smallest charge, and nothing was charged.
	ReceiptFreeDays ReceiptKind = "free_days"
	// ReceiptTrial says those days were the product's free trial: nothing
	// was charged, the card was saved for the first charge after it.
	ReceiptTrial ReceiptKind = "trial"
)

// Receipt is one payment of a subscription, kept six months.
type Receipt struct {
	// Kind says whether it pays a whole period or a new subscriber's first
	// days.
	Kind           ReceiptKind
	Number         string // short, unique within the account; also its URL
	AccountID      string
	SubscriptionID string
	ProductID      string
	ProductName    string       // its subscription's line, in English
	Names          ProductNames // that line in the shop's other languages (NameIn)
	Email          string
	Lang           string    // its subscription's, for the receipt's mails
	ProcessedAt    time.Time // the charge's time
	Amount         Money
	Card           Card // brand and last four; no token
	ChargeID       string
	// Provider took the charge ("": the test provider's records from
	// before providers had names, see ProviderOf); its refund goes back
	// through it.
	Provider    string
	PeriodStart time.Time // billing dates: the period paid, [start, end)
	PeriodEnd   time.Time
	ExpiresAt   time.Time
	// Refund is the one refund of this receipt, nil while it has none:
	// the last one when a top-up followed an earlier (cancel_refund_topup.go).
	Refund *ReceiptRefund
	// RefundedBefore is what earlier refunds gave back, done before the
	// top-up that is Refund (a swap now's, then cancelling now's rest).
	RefundedBefore Money
	// CreditNotesBefore are those earlier refunds' credit notes.
	CreditNotesBefore []ReceiptCreditNote
	// BookNumber is its number in the books ("R2026-000045", see
	// books.go), given when it is written; "" on one from before.
	BookNumber string
	// VAT is what it paid per rate (one rate: its product's category's);
	// none on one from before VAT.
	VAT []VATLine
	// DiscountCode took Discount off the price; Amount is what was left.
	DiscountCode string
	Discount     Money
	// Shipping is the delivery in Amount (a subscription that ships, in a
	// period that sends a parcel: subscription_delivery.go); zero else.
	Shipping Money
	// category is its product's, whose rate it pays (NewReceipt).
	category string
	// orderID is the order its period made when the product ships: that
	// order counts the receipt in its day's totals, so its refund counts
	// there too. "" when nothing shipped (or on a receipt from before).
	orderID string
	// refundRound is its card refund's round (card_refund.go).
	refundRound int
}

type receiptRecord struct {
	PK              string       `dynamodbav:"PK"`
	SK              string       `dynamodbav:"SK"`
	EntityType      string       `dynamodbav:"EntityType"`
	Number          string       `dynamodbav:"Number"`
	SubscriptionID  string       `dynamodbav:"SubscriptionID"`
	SKU             string       `dynamodbav:"SKU"`
	ProductName     string       `dynamodbav:"ProductName"`
	Names           ProductNames `dynamodbav:"Names,omitempty"`
	Email           string       `dynamodbav:"Email"`
	Lang            string       `dynamodbav:"Lang,omitempty"`
	ProcessedDate   string       `dynamodbav:"ProcessedDate"`
	ProcessedAmount int64        `dynamodbav:"ProcessedAmount"`
	Currency        string       `dynamodbav:"Currency"`
	CardBrand       string       `dynamodbav:"CardBrand"`
	CardLast4       string       `dynamodbav:"CardLast4"`
	ChargeID        string       `dynamodbav:"ChargeID"`
	Provider        string       `dynamodbav:"Provider,omitempty"` // the charge's provider ("": the test provider's)
	PeriodStart     string       `dynamodbav:"PeriodStart"`
	PeriodEnd       string       `dynamodbav:"PeriodEnd"`
	Kind            string       `dynamodbav:"Kind,omitempty"` // "" a whole period; first_days, free_days
	ExpiresAt       int64        `dynamodbav:"ExpiresAt"`      // the table's TTL attribute
	BookNumber      string       `dynamodbav:"BookNumber,omitempty"`
	VAT             []vatRecord  `dynamodbav:"VAT,omitempty"`
	OrderID         string       `dynamodbav:"OrderID,omitempty"` // the order its period made, if the product ships
	DiscountCode    string       `dynamodbav:"DiscountCode,omitempty"`
	Discount        int64        `dynamodbav:"Discount,omitempty"` // what the code took off
	Shipping        int64        `dynamodbav:"Shipping,omitempty"` // the delivery in ProcessedAmount
	GSI1PK          string       `dynamodbav:"GSI1-PK,omitempty"`  // receipts#YYYY-MM#shard: the month's list (archive.go)
	GSI1SK          string       `dynamodbav:"GSI1-SK,omitempty"`  // <charged at>#number
	// The receipt's one refund (receipt_refund.go), on the receipt itself
	// so that every read of a receipt shows it at no extra cost.
	RefundStatus      string `dynamodbav:"RefundStatus,omitempty"`
	RefundKey         string `dynamodbav:"RefundKey,omitempty"`
	RefundAmount      int64  `dynamodbav:"RefundAmount,omitempty"`
	RefundReason      string `dynamodbav:"RefundReason,omitempty"`
	RefundBy          string `dynamodbav:"RefundBy,omitempty"`
	RefundRequestedAt string `dynamodbav:"RefundRequestedAt,omitempty"`
	RefundedAt        string `dynamodbav:"RefundedAt,omitempty"`
	RefundID          string `dynamodbav:"RefundID,omitempty"`       // the provider's refund: once done, or while it answered pending
	CardRound         int    `dynamodbav:"CardRound,omitempty"`      // card_refund.go's round, kept when a failed refund is let go
	RefundedBefore    int64  `dynamodbav:"RefundedBefore,omitempty"` // earlier refunds' total, before a top-up (cancel_refund_topup.go)
	// A cancellation's refund from two receipts, told of in one mail
	// (cancel_refund_swap.go): the other receipt's part on the one that
	// mails, and on the other the one that mails for it.
	RefundWithNumber string `dynamodbav:"RefundWithNumber,omitempty"`
	RefundWithAmount int64  `dynamodbav:"RefundWithAmount,omitempty"`
	RefundWithCard   string `dynamodbav:"RefundWithCard,omitempty"`
	RefundMailedWith string `dynamodbav:"RefundMailedWith,omitempty"`
	// The refund's credit note (receipt_credit_note.go), and those of
	// refunds a top-up followed.
	RefundCreditNote   string              `dynamodbav:"RefundCreditNote,omitempty"`
	RefundCreditNoteAt string              `dynamodbav:"RefundCreditNoteAt,omitempty"`
	CreditNotesBefore  []receiptNoteRecord `dynamodbav:"CreditNotesBefore,omitempty"`
	cardTriesRecord                        // while its refund waits for the gateway: its tries, and listed (refund_retry.go)
}

func (r receiptRecord) receipt() Receipt {
	return Receipt{
		Kind: ReceiptKind(r.Kind), Number: r.Number, AccountID: trimPrefix(r.PK, prefixAccount), SubscriptionID: r.SubscriptionID,
		ProductID: r.SKU, ProductName: r.ProductName, Names: r.Names, Email: r.Email, Lang: r.Lang, ProcessedAt: parseTime(r.ProcessedDate),
		Amount: Money{Amount: r.ProcessedAmount, Currency: r.Currency}, Card: Card{Brand: r.CardBrand, Last4: r.CardLast4},
		ChargeID: r.ChargeID, PeriodStart: parseDate(r.PeriodStart), PeriodEnd: parseDate(r.PeriodEnd),
		ExpiresAt: time.Unix(r.ExpiresAt, 0).UTC(), Refund: r.refund(), BookNumber: r.BookNumber, VAT: vatLines(r.VAT, r.Currency),
		orderID: r.OrderID, Provider: r.Provider, refundRound: r.CardRound, DiscountCode: r.DiscountCode, Discount: Money{Amount: r.Discount, Currency: r.Currency},
		RefundedBefore: Money{Amount: r.RefundedBefore, Currency: r.Currency}, Shipping: Money{Amount: r.Shipping, Currency: r.Currency},
		CreditNotesBefore: r.notesBefore(),
	}
}

// ReceiptRetention is how long a receipt stays visible. DynamoDB's TTL
// deletes it a day after that (deletion runs late, reads filter on it too).
const ReceiptRetention = 6

// receiptExpiry keeps a receipt the full six months and a day.
func receiptExpiry(processedAt time.Time) time.Time {
	return processedAt.AddDate(0, ReceiptRetention, 1)
}

// ReceiptNumber is a receipt's short number: its time in milliseconds and a
// letter pair from its product, in the id alphabet (R + 10 + 2 characters).
func ReceiptNumber(processedAt time.Time, productID string) string {
	ms := uint64(processedAt.UnixMilli())
	var b [8]byte
	for i := 7; i >= 0; i-- {
		b[i] = byte(ms)
		ms >>= 8
	}
	h := shardOf(productID, 1024)
	return "R" + idEncoding.EncodeToString(b[2:]) + idEncoding.EncodeToString([]byte{byte(h >> 2)})[:2]
}

// receiptTimeOf reads the time back out of a receipt number.
func receiptTimeOf(number string) (time.Time, bool) {
	if len(number) != 13 || number[0] != 'R' {
		return time.Time{}, false
	}
	b, err := idEncoding.DecodeString(number[1:11])
	if err != nil || len(b) != 6 {
		return time.Time{}, false
	}
	var ms uint64
	for _, c := range b {
		ms = ms<<8 | uint64(c)
	}
	return time.UnixMilli(int64(ms)).UTC(), true
}

func newReceiptRecord(r Receipt) receiptRecord {
	return receiptRecord{
		PK: accountKey(r.AccountID), SK: receiptSortKey(r.ProcessedAt, r.ProductID), EntityType: entityReceipt,
		Number: r.Number, SubscriptionID: r.SubscriptionID, SKU: r.ProductID, ProductName: r.ProductName, Names: r.Names, Email: r.Email, Lang: r.Lang,
		ProcessedDate: timestamp(r.ProcessedAt), ProcessedAmount: r.Amount.Amount, Currency: r.Amount.Currency,
		CardBrand: r.Card.Brand, CardLast4: r.Card.Last4, ChargeID: r.ChargeID, Provider: r.Provider,
		PeriodStart: FormatDate(r.PeriodStart), PeriodEnd: FormatDate(r.PeriodEnd), Kind: string(r.Kind), ExpiresAt: r.ExpiresAt.Unix(),
		BookNumber: r.BookNumber, VAT: vatRecords(r.VAT), OrderID: r.orderID, DiscountCode: r.DiscountCode, Discount: r.Discount.Amount,
		Shipping: r.Shipping.Amount,
	}
}

type periodRecord struct {
	PK            string `dynamodbav:"PK"`
	SK            string `dynamodbav:"SK"`
	EntityType    string `dynamodbav:"EntityType"`
	ReceiptNumber string `dynamodbav:"ReceiptNumber"`
	ExpiresAt     int64  `dynamodbav:"ExpiresAt"`
}

// LastDay is the last day a receipt pays (its period ends the day before
// the next payment date).
func (r Receipt) LastDay() time.Time { return r.PeriodEnd.AddDate(0, 0, -1) }

// NameIn is what it paid for, in lang where staff gave the product a name
// in it.
func (r Receipt) NameIn(lang string) string { return r.Names.In(lang, r.ProductName) }

// FirstDays reports whether it pays a new subscriber's first days, not a
// whole period (charged or free).
func (r Receipt) FirstDays() bool {
	return r.Kind == ReceiptFirstDays || r.Kind == ReceiptFreeDays || r.Kind == ReceiptTrial
}

// NewReceipt is the receipt of a charge for a subscription's period.
func NewReceipt(sub Subscription, charge GatewayCharge, periodStart, periodEnd time.Time) Receipt {
	return Receipt{
		Number: ReceiptNumber(charge.At, sub.ProductID), AccountID: sub.AccountID, SubscriptionID: sub.ID,
		ProductID: sub.ProductID, ProductName: sub.LineName(), Names: sub.lineNames(), Email: sub.Email, Lang: sub.Lang, ProcessedAt: charge.At,
		Amount: charge.Amount, Card: Card{Brand: sub.Card.Brand, Last4: sub.Card.Last4}, ChargeID: charge.ID, Provider: charge.Provider,
		PeriodStart: periodStart, PeriodEnd: periodEnd, ExpiresAt: receiptExpiry(charge.At), category: sub.Category,
	}
}

// numberReceipt gives r the number i of n and its VAT, at the rate of its
// product's category (the standard rate when it is not known).
func (s *Store) numberReceipt(r *Receipt, n bookNumber, i int64) {
	r.BookNumber = n.nth(i)
	r.VAT = rules.VATBreakdown([]rules.Taxed{{Rate: s.vat.Of(r.category), Gross: r.Amount}}, Money{})
}

// receiptWrites are the two items of a receipt: the receipt and its period
// marker, both on condition they do not exist yet. Its number's counter is
// the caller's to add (bookCounterWrite).
func (s *Store) receiptWrites(r Receipt) ([]types.TransactWriteItem, error) {
	cond, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))).Build()
	if err != nil {
		return nil, err
	}
	receipt := newReceiptRecord(r)
	receipt.GSI1PK, receipt.GSI1SK = s.receiptListKeys(r)
	var out []types.TransactWriteItem
	for _, rec := range []any{receipt, periodRecord{
		PK: accountKey(r.AccountID), SK: periodKey(r.SubscriptionID, r.PeriodStart), EntityType: entityPeriod,
		ReceiptNumber: r.Number, ExpiresAt: r.ExpiresAt.Unix(),
	}} {
		item, err := attributevalue.MarshalMap(rec)
		if err != nil {
			return nil, err
		}
		out = append(out, types.TransactWriteItem{Put: &types.Put{
			TableName: aws.String(s.table), Item: item, ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(),
		}})
	}
	return out, nil
}

// PutReceipt writes a receipt and its period marker on condition neither
// exists (pattern 2: create receipt), with the next number of its series
// (a GetItem of the counter before); ErrConflict if the period was paid.
func (s *Store) PutReceipt(ctx context.Context, r Receipt) error {
	return s.numbered(ctx, bookReceipts, r.SubscriptionID, r.ProcessedAt, 1, func(n bookNumber) error {
		s.numberReceipt(&r, n, 0)
		items, err := s.receiptWrites(r)
		if err != nil {
			return err
		}
		counter, err := s.bookCounterWrite(n)
		if err != nil {
			return err
		}
		items = append(items, counter)
		err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		switch {
		case bookNumberTaken(err, len(items)-1):
			return errBookNumberTaken
		case cancellationReasons(err) != nil:
			return fmt.Errorf("receipt %s: %w", r.Number, ErrConflict)
		}
		return err
	})
}

// Receipts lists a customer's receipts processed in the days fromDay..toDay
// (YYYY-MM-DD, inclusive), newest first (pattern 7: PK=ACC#id, SK between
// REC#from and REC#to~). A receipt past its TTL that DynamoDB has not deleted
// yet is filtered out.
func (s *Store) Receipts(ctx context.Context, customerID, fromDay, toDay string, limit int, cursor string) (Page[Receipt], error) {
	lo, hi := dayRange(prefixReceipt, fromDay, toDay)
	return s.receiptsBetween(ctx, customerID, lo, hi, limit, cursor)
}

// RecentReceipts lists the receipts of the last six months, newest first.
func (s *Store) RecentReceipts(ctx context.Context, customerID string, limit int, cursor string) (Page[Receipt], error) {
	lo, hi := receiptRange(s.now().AddDate(0, -ReceiptRetention, 0))
	return s.receiptsBetween(ctx, customerID, lo, hi, limit, cursor)
}

func (s *Store) receiptsBetween(ctx context.Context, customerID, lo, hi string, limit int, cursor string) (Page[Receipt], error) {
	live := expression.Name(attrTTL).GreaterThan(expression.Value(s.now().Unix()))
	q := querySpec{key: onTable.pkAndSKBetween(accountKey(customerID), lo, hi), backward: true, filter: &live}
	return pagedQuery(ctx, s, q, limit, cursor, receiptRecord.receipt)
}

// Receipt reads one of a customer's receipts by its number: one Query on
// the receipts of that millisecond. Another customer's number is ErrNotFound.
func (s *Store) Receipt(ctx context.Context, customerID, number string) (Receipt, error) {
	at, ok := receiptTimeOf(number)
	if !ok || !ValidID(customerID) {
		return Receipt{}, fmt.Errorf("receipt %q: %w", number, ErrNotFound)
	}
	mine := expression.Name("Number").Equal(expression.Value(number)).
		And(expression.Name(attrTTL).GreaterThan(expression.Value(s.now().Unix())))
	q := querySpec{key: onTable.pkAndSKPrefix(accountKey(customerID), receiptAtPrefix(at)), filter: &mine}
	return queryOne(ctx, s, q, "receipt "+number, receiptRecord.receipt)
}

// NumberInBooks is the number a customer and a bookkeeper know the
// receipt by: its number in the books, or, on one from before those, its
// id (Number, which its address keeps in either case).
func (r Receipt) NumberInBooks() string {
	if r.BookNumber != "" {
		return r.BookNumber
	}
	return r.Number
}
