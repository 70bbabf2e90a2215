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
// order of someone else is ErrNotFound), with its number and the warehouse
// to send it to, and puts req.Mail (made from the return) in the outbox. One TransactWriteItems: the return (attribute_not_exists), the
// mail, and the order's returned-units item, which counts each line's
// returned units (ADD, on condition they leave room) and the returns (on
// condition no other return took this one's number). Two returns at once
// thus never ask back more than was bought nor share a number; the one that
// loses reads again and takes the next number, or is refused if the units
// are gone. Cost: one Query, one GetItem (the warehouse), one
// TransactWriteItems of three items.
func (s *Store) RequestReturn(ctx context.Context, orderID, customerID string, req ReturnRequest) (Return, error) {
	req.Reason, req.Comment = strings.TrimSpace(req.Reason), strings.TrimSpace(req.Comment)
	if !slices.Contains(ReturnReasons, req.Reason) || len(req.Comment) > maxReturnNote {
		return Return{}, ErrBadReturn
	}
	for attempt := 1; ; attempt++ {
		d, err := s.orderDetails(ctx, orderID, true)
		if err != nil {
			return Return{}, err
		}
		r, err := s.planReturn(d, customerID, req)
		if err != nil {
			return Return{}, err
		}
		if r.Buyer.Email == "" && req.Mail != nil {
			// An order from before orders kept their buyer: the mail
			// goes to the account.
			switch c, err := s.Customer(ctx, customerID); {
			case err == nil:
				r.Buyer.Name, r.Buyer.Email = c.Name, c.Email
			case !errors.Is(err, ErrNotFound): // an erased account has no address to mail
				return Return{}, err
			}
		}
		if id := returnWarehouse(d, r.Lines); id != "" {
			if r.SendTo, err = s.Warehouse(ctx, id); err != nil {
				return Return{}, err
			}
		}
		err = s.writeReturn(ctx, d, r, req.Mail)
		if errors.Is(err, errReturnRaced) && attempt < 3 {
			continue
		}
		if errors.Is(err, errReturnRaced) {
			return Return{}, fmt.Errorf("order %s: %w", orderID, ErrConflict)
		}
		return r, err
	}
}

// planReturn checks what the customer asks of the order as read and makes
// the return: its lines at the order's prices and the next number.
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
		ID: NewIDAt(now), OrderID: orderID, OrderNumber: d.Order.Number, Number: ReturnNumber(d.Order.Label(), len(d.Returns)+1),
		CustomerID: customerID, Buyer: d.Order.Buyer, Status: ReturnRequested, Reason: req.Reason, Comment: req.Comment,
		Currency: d.Order.Total.Currency, RequestedAt: now, Version: 1,
	}
	left := Returnable(d)
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
		r.Lines = append(r.Lines, ReturnLine{ProductID: it.ProductID, DropID: it.DropID, ProductName: it.ProductName,
			Price: it.Price.Amount, Quantity: a.Quantity})
	}
	if len(r.Lines) == 0 {
		return Return{}, ErrBadReturn
	}
	return r, nil
}

// returnWarehouse is the warehouse a return's parcel goes to: the one that
// shipped most of its units (the first shipment's on a tie), else the one
// checkout allocated its first line to. One parcel, one address: staff may
// still put the units back anywhere when they refund.
func returnWarehouse(d OrderDetails, lines []ReturnLine) string {
	best, most := "", 0
	for _, sh := range d.Shipments {
		n := 0
		for _, si := range sh.Items {
			for _, l := range lines {
				if si.ProductID == l.ProductID {
					n += min(si.Quantity, l.Quantity)
				}
			}
		}
		if n > most {
			best, most = sh.WarehouseID, n
		}
	}
	if best != "" {
		return best
	}
	for _, it := range d.Items {
		if it.ProductID == lines[0].ProductID && len(it.Allocations) > 0 {
			return it.Allocations[0].WarehouseID
		}
	}
	return ""
}

// writeReturn writes the planned return, its mail and the order's
// returned-units item in one transaction.
func (s *Store) writeReturn(ctx context.Context, d OrderDetails, r Return, mail func(Return) *Mail) error {
	put, err := s.txPutNew(newReturnRecord(r))
	if err != nil {
		return err
	}
	count, err := s.returnedUnitsUpdate(d, r)
	if err != nil {
		return err
	}
	items := []types.TransactWriteItem{put, count}
	if m := mailOf(mail, r); m != nil {
		m.ID = ReturnRequestedMailID(r.ID)
		mailPut, err := s.mailPut(*m)
		if err != nil {
			return err
		}
		items = append(items, mailPut)
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	switch reasons := cancellationReasons(err); {
	case len(reasons) > 1 && reasons[1] == reasonConditionFailed:
		return errReturnRaced
	case slices.Contains(reasons, reasonTransactionConflict):
		// Still contended after transactWrite's retries: nothing was written.
		return fmt.Errorf("order %s: %w", r.OrderID, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("request return of order %s: %w", r.OrderID, err)
	}
	return nil
}

// mailOf is mail made from r, or nil when there is no mail to make.
func mailOf(mail func(Return) *Mail, r Return) *Mail {
	if mail == nil {
		return nil
	}
	return mail(r)
}

// returnedUnitsUpdate adds the return's units to the order's returned-units
// item. The units a line has had returned live on it as one attribute per
// line, so the condition needs no arithmetic: the most it may hold before
// this return is bought - refunded without a return - asked. Its Returns
// counts the returns: below this one's place, or this number is taken.
func (s *Store) returnedUnitsUpdate(d OrderDetails, r Return) (types.TransactWriteItem, error) {
	returns := expression.Name("Returns")
	place := len(d.Returns) + 1
	upd := expression.Set(expression.Name("EntityType"), expression.Value(entityReturnedUnits)).Set(returns, expression.Value(place))
	cond := expression.Or(expression.AttributeNotExists(returns), returns.LessThan(expression.Value(place)))
	refunded := refundedOutsideReturns(d)
	for _, l := range r.Lines {
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
	return s.txUpdate(orderKey(r.OrderID), sortKeyReturnedUnits, upd, cond)
}
