package store

import (
	"errors"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Returns: a customer sends back lines of a shipped order within the
// return window; staff receive the parcel, inspect each line and refund
// the accepted ones. A return lives in its order's collection (o#id /
// ret#id), so the order's one Query shows it; the returns of a status are
// listed on GSI1 (returns#<status>).

// ReturnStatus is where a return is.
type ReturnStatus string

const (
	ReturnRequested ReturnStatus = "requested" // the customer asked; the parcel is on its way back
	ReturnReceived  ReturnStatus = "received"  // staff have the parcel
	ReturnInspected ReturnStatus = "inspected" // some lines accepted: waiting for the refund
	ReturnRejected  ReturnStatus = "rejected"  // inspected, no line accepted: closed
	ReturnRefunded  ReturnStatus = "refunded"  // the accepted lines are refunded: closed
)

// ReturnStatuses are the statuses in the order a return goes through them.
var ReturnStatuses = []ReturnStatus{ReturnRequested, ReturnReceived, ReturnInspected, ReturnRefunded, ReturnRejected}

// Open is true while staff still have something to do.
func (s ReturnStatus) Open() bool {
	return s == ReturnRequested || s == ReturnReceived || s == ReturnInspected
}

// MailReturnReceived tells the customer their returned parcel arrived.
const MailReturnReceived MailKind = "return_received"

// DefaultReturnDays is how long after delivery a customer may ask to return.
const DefaultReturnDays = 30

// Reasons a customer gives for a return; the form offers these.
var ReturnReasons = []string{"Changed my mind", "Arrived damaged", "Not as described", "Wrong item sent", "Other"}

const maxReturnNote = 500

var (
	ErrReturnWindowClosed = errors.New("the return window of this order has closed")
	ErrNotReturnable      = errors.New("only a shipped order's lines can be returned")
	ErrReturnTooMany      = errors.New("more units than were bought and not yet returned")
	ErrBadReturn          = errors.New("the return asks for nothing or has no reason")
	ErrReturnStep         = errors.New("the return is not at the step this asks of it")
)

// ReturnVerdict is what staff found of a returned line.
type ReturnVerdict string

const (
	VerdictAccepted ReturnVerdict = "accepted"
	VerdictRejected ReturnVerdict = "rejected"
)

// ReturnLine is how many units of one order line come back, and what staff
// found of them.
type ReturnLine struct {
	ProductID   string        `dynamodbav:"ProductID"`
	DropID      string        `dynamodbav:"DropID,omitempty"`
	ProductName string        `dynamodbav:"ProductName"`
	Names       ProductNames  `dynamodbav:"Names,omitempty"` // as its order line's
	Price       int64         `dynamodbav:"Price"`           // per unit, in the order's currency
	Quantity    int           `dynamodbav:"Quantity"`
	Verdict     ReturnVerdict `dynamodbav:"Verdict,omitempty"`
	Note        string        `dynamodbav:"Note,omitempty"`
}

// lineKey is the order line's sort key: the returned-units item counts
// each line under it.
func (l ReturnLine) lineKey() string { return orderItemSortKey(l.ProductID, l.DropID) }

// NameIn is the product's name as sold, in lang where staff gave one.
func (l ReturnLine) NameIn(lang string) string { return l.Names.In(lang, l.ProductName) }

// Return is one return of an order's lines.
type Return struct {
	ID          string
	OrderID     string
	OrderNumber string
	// Number is what the customer writes on the parcel and staff look it
	// up by (ReturnNumber).
	Number     string
	CustomerID string
	Buyer      Buyer
	// SendTo is where the parcel goes: the warehouse that shipped the
	// lines, kept as it was when the return was asked (the slip printed
	// then must stay right).
	SendTo Warehouse
	// Part and Parts place the return among those of one ask: the units
	// asked together left from Parts warehouses, and each warehouse's go
	// back to it as a return of their own (0 and 0: the ask was one).
	Part, Parts int
	Status      ReturnStatus
	Reason      string
	Comment     string // what the customer added, if anything
	Lines       []ReturnLine
	Currency    string
	RequestedAt time.Time
	ReceivedAt  time.Time
	InspectedAt time.Time
	RefundedAt  time.Time
	// ReceivedBy, InspectedBy and RefundedBy name the staff member of each
	// step.
	ReceivedBy, InspectedBy, RefundedBy string
	// Refunded is what went back to the customer, of which
	// RefundedShipping for delivery (when staff chose to give it back);
	// RestockedTo the warehouse the accepted units went back to.
	Refunded         Money
	RefundedShipping Money
	RestockedTo      string
	// Version counts the return's steps: each is conditional on the one
	// its maker saw.
	Version int
}

// OrderLabel names the return's order for people: its number, or its id
// for an order from before numbers.
func (r Return) OrderLabel() string {
	if r.OrderNumber != "" {
		return r.OrderNumber
	}
	return r.OrderID
}

// Units are the units asked back.
func (r Return) Units() int {
	n := 0
	for _, l := range r.Lines {
		n += l.Quantity
	}
	return n
}

// Accepted is the value of the lines staff accepted, at the order's prices.
func (r Return) Accepted() Money {
	m := Money{Currency: r.Currency}
	for _, l := range r.Lines {
		if l.Verdict == VerdictAccepted {
			m.Amount += l.Price * int64(l.Quantity)
		}
	}
	return m
}

// Value is the value of every line asked back, at the order's prices.
func (r Return) Value() Money {
	m := Money{Currency: r.Currency}
	for _, l := range r.Lines {
		m.Amount += l.Price * int64(l.Quantity)
	}
	return m
}

type returnRecord struct {
	PK               string       `dynamodbav:"PK"` // o#order
	SK               string       `dynamodbav:"SK"` // ret#id
	EntityType       string       `dynamodbav:"EntityType"`
	OrderNumber      string       `dynamodbav:"OrderNumber,omitempty"`
	Number           string       `dynamodbav:"Number,omitempty"`
	SendToID         string       `dynamodbav:"SendToID,omitempty"`
	SendToName       string       `dynamodbav:"SendToName,omitempty"`
	SendTo           *Address     `dynamodbav:"SendTo,omitempty"`
	Part             int          `dynamodbav:"Part,omitempty"`
	Parts            int          `dynamodbav:"Parts,omitempty"`
	CustomerID       string       `dynamodbav:"CustomerID"`
	BuyerName        string       `dynamodbav:"BuyerName,omitempty"`
	BuyerEmail       string       `dynamodbav:"BuyerEmail,omitempty"`
	BuyerLang        string       `dynamodbav:"BuyerLang,omitempty"`
	Status           string       `dynamodbav:"Status"`
	Reason           string       `dynamodbav:"Reason"`
	Comment          string       `dynamodbav:"Comment,omitempty"`
	Lines            []ReturnLine `dynamodbav:"Lines"`
	Currency         string       `dynamodbav:"Currency"`
	RequestedAt      string       `dynamodbav:"RequestedAt"`
	ReceivedAt       string       `dynamodbav:"ReceivedAt,omitempty"`
	InspectedAt      string       `dynamodbav:"InspectedAt,omitempty"`
	RefundedAt       string       `dynamodbav:"RefundedAt,omitempty"`
	ReceivedBy       string       `dynamodbav:"ReceivedBy,omitempty"`
	InspectedBy      string       `dynamodbav:"InspectedBy,omitempty"`
	RefundedBy       string       `dynamodbav:"RefundedBy,omitempty"`
	Refunded         int64        `dynamodbav:"Refunded,omitempty"`
	RefundedShipping int64        `dynamodbav:"RefundedShipping,omitempty"`
	RestockedTo      string       `dynamodbav:"RestockedTo,omitempty"`
	Version          int          `dynamodbav:"Version"`
	GSI1PK           string       `dynamodbav:"GSI1-PK"` // returns#<status>
	GSI1SK           string       `dynamodbav:"GSI1-SK"` // <requested at>#id
}

func newReturnRecord(r Return) returnRecord {
	stamp := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return timestamp(t)
	}
	var sendTo *Address
	if r.SendTo.ID != "" {
		sendTo = &r.SendTo.Address
	}
	return returnRecord{
		PK: orderKey(r.OrderID), SK: returnKey(r.ID), EntityType: entityReturn,
		OrderNumber: r.OrderNumber, Number: r.Number, SendToID: r.SendTo.ID, SendToName: r.SendTo.Name, SendTo: sendTo, Part: r.Part, Parts: r.Parts, CustomerID: r.CustomerID, BuyerName: r.Buyer.Name, BuyerEmail: r.Buyer.Email, BuyerLang: r.Buyer.Lang,
		Status: string(r.Status), Reason: r.Reason, Comment: r.Comment, Lines: r.Lines, Currency: r.Currency,
		RequestedAt: timestamp(r.RequestedAt), ReceivedAt: stamp(r.ReceivedAt), InspectedAt: stamp(r.InspectedAt),
		RefundedAt: stamp(r.RefundedAt), ReceivedBy: r.ReceivedBy, InspectedBy: r.InspectedBy, RefundedBy: r.RefundedBy,
		Refunded: r.Refunded.Amount, RefundedShipping: r.RefundedShipping.Amount, RestockedTo: r.RestockedTo, Version: r.Version,
		GSI1PK: returnsInKey(r.Status), GSI1SK: createdKey(r.RequestedAt, r.ID),
	}
}

func (r returnRecord) ret() Return {
	sendTo := Warehouse{ID: r.SendToID, Name: r.SendToName}
	if r.SendTo != nil {
		sendTo.Address = *r.SendTo
	}
	return Return{
		ID: trimPrefix(r.SK, prefixReturn), OrderID: trimPrefix(r.PK, prefixOrder), OrderNumber: r.OrderNumber,
		Number: r.Number, SendTo: sendTo, Part: r.Part, Parts: r.Parts,
		CustomerID: r.CustomerID, Buyer: Buyer{Name: r.BuyerName, Email: r.BuyerEmail, Lang: r.BuyerLang},
		Status: ReturnStatus(r.Status), Reason: r.Reason, Comment: r.Comment, Lines: r.Lines, Currency: r.Currency,
		RequestedAt: parseTime(r.RequestedAt), ReceivedAt: parseTime(r.ReceivedAt), InspectedAt: parseTime(r.InspectedAt),
		RefundedAt: parseTime(r.RefundedAt), ReceivedBy: r.ReceivedBy, InspectedBy: r.InspectedBy, RefundedBy: r.RefundedBy,
		Refunded: Money{Amount: r.Refunded, Currency: r.Currency}, RefundedShipping: Money{Amount: r.RefundedShipping, Currency: r.Currency}, RestockedTo: r.RestockedTo, Version: r.Version,
	}
}

// ReturnAsk is one line a customer asks to return.
type ReturnAsk struct {
	ProductID, DropID string
	Quantity          int
}

// ReturnRequest is what the customer's form sends.
type ReturnRequest struct {
	Lines   []ReturnAsk
	Reason  string
	Comment string
	// Mail, if not nil, makes the mail that tells the customer each
	// return's number and where to send it (one mail for the returns of
	// one ask, parts in order); it goes with them.
	Mail func([]Return) *Mail
}

// returnWindow is how many days after delivery a return may be asked.
func (s *Store) returnWindow() int {
	if s.returnDays <= 0 {
		return DefaultReturnDays
	}
	return s.returnDays
}

// returnOpensAt is when an order's return window started: its last
// delivery, or, while no shipment is marked delivered, its last shipping
// (staff may never mark a parcel delivered, and a window that never starts
// would never close). Zero while something of the order has not left.
func returnOpensAt(d OrderDetails) time.Time {
	if d.Order.Status != OrderShipped && d.Order.Status != OrderDelivered {
		return time.Time{}
	}
	var delivered, shipped time.Time
	for _, sh := range d.Shipments {
		if sh.DeliveredAt.After(delivered) {
			delivered = sh.DeliveredAt
		}
		if sh.ShippedAt.After(shipped) {
			shipped = sh.ShippedAt
		}
	}
	if !delivered.IsZero() {
		return delivered
	}
	return shipped
}

// ReturnClosesAt is when the order's return window closes (zero while it has
// not opened).
func (s *Store) ReturnClosesAt(d OrderDetails) time.Time {
	opens := returnOpensAt(d)
	if opens.IsZero() {
		return opens
	}
	return opens.AddDate(0, 0, s.returnWindow())
}

// returnable is how many units of each order line (by lineKey) may still be
// asked back: bought less every return's lines, whatever became of them (a
// rejected line went back to the customer; it is not returned twice).
func returnable(d OrderDetails) map[string]int {
	left := make(map[string]int, len(d.Items))
	for _, it := range d.Items {
		left[orderItemSortKey(it.ProductID, it.DropID)] += it.Quantity
	}
	for k, n := range refundedOutsideReturns(d) {
		left[k] -= n
	}
	for _, r := range d.Returns {
		for _, l := range r.Lines {
			left[l.lineKey()] -= l.Quantity
		}
	}
	return left
}

// refundedOutsideReturns counts per line the units staff refunded without
// a return (kept, or never shipped): the customer has had their money for
// them, so they cannot be sent back for it again. A return's own refund is
// counted by the return.
func refundedOutsideReturns(d OrderDetails) map[string]int {
	n := map[string]int{}
	for _, rf := range d.Refunds {
		if strings.HasPrefix(rf.ID, ReturnRefundKey("")) {
			continue
		}
		for _, l := range rf.Lines {
			n[orderItemSortKey(l.ProductID, l.DropID)] += l.Quantity
		}
	}
	return n
}

// ReturnableOf is returnable of one order line.
func ReturnableOf(d OrderDetails, it OrderItem) int {
	return returnable(d)[orderItemSortKey(it.ProductID, it.DropID)]
}

// txPutNew is a transaction's Put of rec on condition its item is new.
func (s *Store) txPutNew(rec any) (types.TransactWriteItem, error) {
	item, err := attributevalue.MarshalMap(rec)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	cond, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(s.table), Item: item, ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(),
	}}, nil
}
