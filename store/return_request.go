package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MailReturnRequested gives the customer the return's number, where to send
// the parcel and what to put in it.
const MailReturnRequested MailKind = "return_requested"

// ReturnRequestedMailID is the outbox id of a return's "requested" mail.
func ReturnRequestedMailID(returnID string) string { return MailID("return-requested", returnID) }

// ReturnNumber names the n-th return of an order (from 1) for people: the
// order's number and R<n>, as FF-T9PSJN-R2. The parcel's number leads staff
// to its order, and it needs no counter of its own.
func ReturnNumber(orderLabel string, n int) string {
	return orderLabel + "-R" + strconv.Itoa(n)
}

// ParseReturnNumber splits a return number into its order's number and n;
// ok is false for anything ReturnNumber does not make.
func ParseReturnNumber(s string) (order string, n int, ok bool) {
	i := strings.LastIndex(s, "-R")
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(s[i+2:])
	if err != nil || n < 1 || strconv.Itoa(n) != s[i+2:] {
		return "", 0, false
	}
	return s[:i], n, true
}

// numberReturns puts an order's returns in the order of their numbers and
// names those written before returns had numbers by their place. Those
// came first, oldest first, and a new return takes the place after every
// return of its order, so old and new agree.
func numberReturns(d *OrderDetails) {
	place := func(r Return) int {
		_, n, _ := ParseReturnNumber(r.Number)
		return n // 0: not numbered, so one of the first
	}
	slices.SortStableFunc(d.Returns, func(a, b Return) int {
		return cmp.Or(cmp.Compare(place(a), place(b)), a.RequestedAt.Compare(b.RequestedAt), cmp.Compare(a.ID, b.ID))
	})
	for i := range d.Returns {
		if d.Returns[i].Number == "" {
			d.Returns[i].Number = ReturnNumber(d.Order.Label(), i+1)
		}
	}
}

// ReturnByNumber finds a return by the number on its parcel: the order's
// number (one GetItem), then the order (one Query). Case and spaces around
// it do not matter.
func (s *Store) ReturnByNumber(ctx context.Context, number string) (Return, error) {
	order, n, ok := ParseReturnNumber(strings.ToUpper(strings.TrimSpace(number)))
	if !ok {
		return Return{}, fmt.Errorf("return %q: %w", number, ErrNotFound)
	}
	id, err := s.OrderIDByNumber(ctx, order)
	if err != nil {
		return Return{}, err
	}
	d, err := s.OrderDetails(ctx, id)
	if err != nil {
		return Return{}, err
	}
	if n > len(d.Returns) || d.Returns[n-1].Number != ReturnNumber(order, n) {
		return Return{}, fmt.Errorf("return %s: %w", number, ErrNotFound)
	}
	return d.Returns[n-1], nil
}

// errReturnRaced is a return written by someone else between the read and
// the write: the number or the units it planned on are taken.
var errReturnRaced = errors.New("another return of the order was written meanwhile")

// RequestReturn records a customer's return of lines of their own order (an
// order of someone else is ErrNotFound): one return for each warehouse the
// units go back to (splitReturn), each with its number and that
// warehouse's address, and puts req.Mail (made from the returns) in the
// outbox. One TransactWriteItems: the returns (attribute_not_exists), the
// mail, and the order's returned-units item, which counts each line's
// returned units (ADD, on condition they leave room) and the returns (on
// condition no other return took these numbers). Two asks at once thus
// never ask back more than was bought nor share a number; the one that
// loses reads again and takes the next numbers, or is refused if the units
// are gone. Cost: one Query, one GetItem of each warehouse, one
// TransactWriteItems of two items and one more per parcel.
func (s *Store) RequestReturn(ctx context.Context, orderID, customerID string, req ReturnRequest) ([]Return, error) {
	req.Reason, req.Comment = strings.TrimSpace(req.Reason), strings.TrimSpace(req.Comment)
	if !slices.Contains(ReturnReasons, req.Reason) || len(req.Comment) > maxReturnNote {
		return nil, ErrBadReturn
	}
	for attempt := 1; ; attempt++ {
		d, err := s.orderDetails(ctx, orderID, true)
		if err != nil {
			return nil, err
		}
		rs, asked, err := s.planReturns(ctx, d, customerID, req)
		if err != nil {
			return nil, err
		}
		err = s.writeReturns(ctx, d, asked, rs, req.Mail)
		if errors.Is(err, errReturnRaced) && attempt < 3 {
			continue
		}
		if errors.Is(err, errReturnRaced) {
			return nil, fmt.Errorf("order %s: %w", orderID, ErrConflict)
		}
		return rs, err
	}
}

// planReturns makes the returns of what the customer asks of the order as
// read, one a parcel, each with the address it goes to; asked is every
// line asked, whole.
func (s *Store) planReturns(ctx context.Context, d OrderDetails, customerID string, req ReturnRequest) (rs []Return, asked []ReturnLine, err error) {
	r, err := s.planReturn(d, customerID, req)
	if err != nil {
		return nil, nil, err
	}
	if r.Buyer.Email == "" && req.Mail != nil {
		// An order from before orders kept their buyer: the mail goes to
		// the account.
		switch c, err := s.Customer(ctx, customerID); {
		case err == nil:
			r.Buyer.Name, r.Buyer.Email = c.Name, c.Email
		case !errors.Is(err, ErrNotFound): // an erased account has no address to mail
			return nil, nil, err
		}
	}
	rs = parcelsOf(r, len(d.Returns)+1, splitReturn(d, r.Lines))
	for i := range rs {
		if id := rs[i].SendTo.ID; id != "" {
			if rs[i].SendTo, err = s.Warehouse(ctx, id); err != nil {
				return nil, nil, err
			}
		}
	}
	return rs, r.Lines, nil
}

// planReturn checks what the customer asks of the order as read and makes
// the return of it all: its lines at the order's prices.
func (s *Store) planReturn(d OrderDetails, customerID string, req ReturnRequest) (Return, error) {
	orderID := d.Order.ID
	if d.Order.CustomerID != customerID {
		return Return{}, fmt.Errorf("order %s: %w", orderID, ErrNotFound)
	}
	closes := s.ReturnClosesAt(d)
	if closes.IsZero() {
		return Return{}, ErrNotReturnable
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	if !now.Before(closes) {
		return Return{}, fmt.Errorf("order %s: closed %s: %w", orderID, timestamp(closes), ErrReturnWindowClosed)
	}
	r := Return{
		ID: NewIDAt(now), OrderID: orderID, OrderNumber: d.Order.Number,
		CustomerID: customerID, Buyer: d.Order.Buyer, Status: ReturnRequested, Reason: req.Reason, Comment: req.Comment,
		Currency: d.Order.Total.Currency, RequestedAt: now, Version: 1,
	}
	left := returnable(d)
	seen := map[string]bool{}
	for _, a := range req.Lines {
		if a.Quantity == 0 {
			continue
		}
		i := slices.IndexFunc(d.Items, func(it OrderItem) bool { return it.ProductID == a.ProductID && it.DropID == a.DropID })
		if i < 0 || a.Quantity < 0 {
			return Return{}, ErrBadReturn
		}
		it := d.Items[i]
		k := orderItemSortKey(it.ProductID, it.DropID)
		if seen[k] {
			return Return{}, ErrBadReturn
		}
		seen[k] = true
		if a.Quantity > left[k] {
			return Return{}, fmt.Errorf("%s: %d asked, %d left: %w", it.ProductName, a.Quantity, left[k], ErrReturnTooMany)
		}
		r.Lines = append(r.Lines, ReturnLine{ProductID: it.ProductID, DropID: it.DropID, ProductName: it.ProductName, Names: it.Names,
			Price: it.Price.Amount, Quantity: a.Quantity})
	}
	if len(r.Lines) == 0 {
		return Return{}, ErrBadReturn
	}
	return r, nil
}

// writeReturns writes the planned returns, their mail and the order's
// returned-units item (counting asked, every line asked) in one
// transaction.
func (s *Store) writeReturns(ctx context.Context, d OrderDetails, asked []ReturnLine, rs []Return, mail func([]Return) *Mail) error {
	items := make([]types.TransactWriteItem, 0, len(rs)+2)
	for _, r := range rs {
		put, err := s.txPutNew(newReturnRecord(r))
		if err != nil {
			return err
		}
		items = append(items, put)
	}
	count, err := s.returnedUnitsUpdate(d, asked, len(rs))
	if err != nil {
		return err
	}
	items = append(items, count)
	if m := mailOf(mail, rs); m != nil {
		m.ID = ReturnRequestedMailID(rs[0].ID)
		mailPut, err := s.mailPut(*m)
		if err != nil {
			return err
		}
		items = append(items, mailPut)
	}
	orderID := d.Order.ID
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	switch reasons := cancellationReasons(err); {
	case len(reasons) > len(rs) && reasons[len(rs)] == reasonConditionFailed:
		return errReturnRaced
	case slices.Contains(reasons, reasonTransactionConflict):
		// Still contended after transactWrite's retries: nothing was written.
		return fmt.Errorf("order %s: %w", orderID, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("request return of order %s: %w", orderID, err)
	}
	return nil
}

// mailOf is mail made from rs, or nil when there is no mail to make.
func mailOf(mail func([]Return) *Mail, rs []Return) *Mail {
	if mail == nil {
		return nil
	}
	return mail(rs)
}

// returnedUnitsUpdate adds the units asked back (lines, each line once) to
// the order's returned-units item. The units a line has had returned live on it as one attribute per
// line, so the condition needs no arithmetic: the most it may hold before
// this ask is bought - refunded without a return - asked. Its Returns
// counts the returns: below the first new one's place, or its number is
// taken; n returns are added.
func (s *Store) returnedUnitsUpdate(d OrderDetails, lines []ReturnLine, n int) (types.TransactWriteItem, error) {
	returns := expression.Name("Returns")
	place := len(d.Returns) + 1
	upd := expression.Set(expression.Name("EntityType"), expression.Value(entityReturnedUnits)).Set(returns, expression.Value(place+n-1))
	cond := expression.Or(expression.AttributeNotExists(returns), returns.LessThan(expression.Value(place)))
	refunded := refundedOutsideReturns(d)
	for _, l := range lines {
		bought := -refunded[l.lineKey()]
		for _, it := range d.Items {
			if orderItemSortKey(it.ProductID, it.DropID) == l.lineKey() {
				bought += it.Quantity
			}
		}
		name := expression.Name(l.lineKey())
		upd = upd.Add(name, expression.Value(l.Quantity))
		cond = cond.And(expression.Or(expression.AttributeNotExists(name), name.LessThanEqual(expression.Value(bought-l.Quantity))))
	}
	return s.txUpdate(orderKey(d.Order.ID), sortKeyReturnedUnits, upd, cond)
}
