package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// A customer's rights over their data: everything the shop holds about
// them in one read (CustomerData), and the closing of their account
// (DeleteCustomer), which erases the person and keeps the books.

// DeletedCustomerName stands for the buyer on the orders, items and
// invoices of a deleted account: the books keep the sale, not the person.
const DeletedCustomerName = "Deleted customer"

// Errors of a deletion the customer can act on.
var (
	ErrStaffAccount = errors.New("a staff account is closed by an owner, not deleted from the account page")
	ErrOrderToShip  = errors.New("an order waits to ship")
	// errAccountDeleted refuses a change to an account that was deleted.
	errAccountDeleted = errors.New("the account was deleted")
)

// OrderToShipError refuses a deletion while an order still has to reach the
// customer: its address is needed until it ships.
type OrderToShipError struct{ Number string }

func (e *OrderToShipError) Error() string {
	return fmt.Sprintf("order %s has not shipped yet", e.Number)
}
func (e *OrderToShipError) Is(target error) bool { return target == ErrOrderToShip }

// CustomerData is everything the shop holds about one customer.
type CustomerData struct {
	Customer Customer
	// SignInAddresses are where the customer last signed in from (the
	// email item keeps them to spare them the slow-down of failed
	// sign-ins), newest first.
	SignInAddresses []string
	Addresses       AddressBook
	Cart            Cart
	Orders          []OrderDetails // newest first, each with items, invoice and shipments
	Subscriptions   []Subscription
	Receipts        []Receipt
	Tickets         []Ticket
	Sessions        []Session
	Mails           []Mail
	RoleChanges     []RoleChange
	// WebhookEvents are the shop's events that carried the customer's
	// data to staff's endpoints, with their deliveries (privacy_events.go).
	WebhookEvents []CustomerWebhookEvent
}

// CustomerData reads what the shop holds about a customer with the shop's
// own access patterns, each once (the customer first, then the rest in
// parallel): the customer, the email item (sign-in addresses), the address
// book, the cart, the orders (a Query per 100) and each order's collection
// (pattern 5), the subscriptions (R6), the receipts (R7, a Query per 100),
// the tickets, the sessions, the role changes, the mails (the outbox,
// filtered by customer: a Query per 1 MB of mail), and the shop's webhook
// events carrying their data (privacy_events.go).
func (s *Store) CustomerData(ctx context.Context, customerID string) (CustomerData, error) {
	cust, err := s.Customer(ctx, customerID)
	if err != nil {
		return CustomerData{}, err
	}
	d := CustomerData{Customer: cust}
	g, gctx := errgroup.WithContext(ctx)
	if cust.Email != "" {
		g.Go(func() error {
			cred, err := s.CredentialsByEmail(gctx, cust.Email)
			if errors.Is(err, ErrNotFound) {
				return nil
			}
			if err == nil && cred.CustomerID == customerID {
				d.SignInAddresses = cred.KnownAddresses
			}
			return err
		})
	}
	g.Go(func() (err error) { d.Addresses, err = s.Addresses(gctx, customerID); return err })
	g.Go(func() (err error) { d.Cart, err = s.Cart(gctx, CustomerOwner(customerID)); return err })
	g.Go(func() (err error) { d.Orders, err = s.customerOrderDetails(gctx, customerID); return err })
	g.Go(func() (err error) { d.Subscriptions, err = s.Subscriptions(gctx, customerID); return err })
	g.Go(func() (err error) {
		d.Receipts, err = allPages(func(cursor string) (Page[Receipt], error) {
			return s.receiptsBetween(gctx, customerID, prefixReceipt, prefixReceipt+sortsLast, 100, cursor)
		})
		return err
	})
	g.Go(func() (err error) {
		d.Tickets, err = allPages(func(cursor string) (Page[Ticket], error) { return s.CustomerTickets(gctx, customerID, 100, cursor) })
		return err
	})
	g.Go(func() (err error) { d.Sessions, err = s.CustomerSessions(gctx, customerID); return err })
	g.Go(func() (err error) { d.Mails, err = s.customerMails(gctx, customerID, cust.Email); return err })
	g.Go(func() (err error) { d.RoleChanges, err = s.RoleChanges(gctx, customerID); return err })
	g.Go(func() (err error) { d.WebhookEvents, err = s.CustomerWebhookEvents(gctx, customerID); return err })
	if err := g.Wait(); err != nil {
		return CustomerData{}, fmt.Errorf("data of customer %s: %w", customerID, err)
	}
	return d, nil
}

// allPages reads a paged list to its end.
func allPages[T any](page func(cursor string) (Page[T], error)) ([]T, error) {
	var out []T
	for cursor := ""; ; {
		p, err := page(cursor)
		if err != nil {
			return nil, err
		}
		out = append(out, p.Items...)
		if cursor = p.Next; cursor == "" {
			return out, nil
		}
	}
}

// customerOrderDetails reads each of the customer's orders whole, newest
// first: the customer's orders (GSI2), then each order's collection, a few
// at once.
func (s *Store) customerOrderDetails(ctx context.Context, customerID string) ([]OrderDetails, error) {
	orders, err := s.everyCustomerOrder(ctx, customerID)
	if err != nil {
		return nil, err
	}
	out := make([]OrderDetails, len(orders))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for i, o := range orders {
		g.Go(func() (err error) { out[i], err = s.OrderDetails(gctx, o.ID); return err })
	}
	return out, g.Wait()
}

// customerMails are the outbox's mails to the customer, newest first: the
// outbox (GSI1) filtered on the customer's id, or on the address for a mail
// that names no customer. The outbox keeps no list per customer, so this
// reads every mail of its 180 days, 1 MB a request; it serves the rare
// export and deletion, never a page.
func (s *Store) customerMails(ctx context.Context, customerID, email string) ([]Mail, error) {
	theirs := expression.Name("CustomerID").Equal(expression.Value(customerID))
	if email != "" {
		theirs = theirs.Or(expression.Name("CustomerID").Equal(expression.Value("")).And(expression.Name("To").Equal(expression.Value(email))))
	}
	in, err := s.queryInput(querySpec{key: onGSI1.pkEquals(partitionOutbox), backward: true, filter: &theirs})
	if err != nil {
		return nil, err
	}
	var out []Mail
	for {
		page, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("mails of customer %s: %w", customerID, err)
		}
		mails, err := unmarshalItems(page.Items, mailRecord.mail)
		if err != nil {
			return nil, err
		}
		out = append(out, mails...)
		if page.LastEvaluatedKey == nil {
			return out, nil
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}

// partitionClosing is the sparse GSI2 list of accounts whose deletion has
// begun and not finished, oldest first: the reconcile step finishes them.
const partitionClosing = "accounts-closing"

// Rate-limit scopes that name a person's email (handlers/account.go counts
// sign-ins by them): a deletion removes their counters rather than wait
// out their TTL.
const (
	limitScopeLoginEmail     = "login-email"      // subject: the email
	limitScopeLoginEmailAddr = "login-email-addr" // subject: the email, a space, the address
)

// DeleteCustomer deletes a customer's account: the person is erased, their
// sales stay in the books.
//
// The first step is one transaction: the customer item is marked closing
// (and listed in accounts-closing) and loses its password hash; the email
// item (sign-in, and the address's uniqueness: it can sign up again at
// once), the finder items and the address book are deleted. The steps
// after it each finish what they touch and can run again: sessions ended,
// cart deleted, subscriptions cancelled at once (no more charges; the
// period paid is not refunded) with their email and card token cleared,
// receipts without the email, open drop tickets void, orders, their
// items and invoices with the buyer as DeletedCustomerName and no email,
// their addresses (order and shipments) cut to the country, the outbox's
// mails to them deleted, and the rate-limit counters naming the email. The
// last step blanks the customer item (name, email, sign-in) and marks it
// deleted; staff still see that an account was there, not whose.
//
// A deletion that stopped midway (a crash, a timeout) is finished by
// calling DeleteCustomer again, or by FinishDeletions; a deleted account's
// is nil. A staff account is ErrStaffAccount; an order waiting to ship
// refuses the deletion with an *OrderToShipError (its address is needed
// until it ships).
func (s *Store) DeleteCustomer(ctx context.Context, customerID string) error {
	rec, err := getItemConsistent(ctx, s, customerKey(customerID), customerKey(customerID), "customer "+customerID, asRecord[customerRecord])
	if err != nil {
		return err
	}
	if rec.DeletedAt != "" {
		return nil
	}
	if rec.ClosingAt == "" {
		if Role(rec.Role).Staff() {
			return ErrStaffAccount
		}
		if err := s.noOrderToShip(ctx, customerID); err != nil {
			return err
		}
		begun, err := s.beginDeletion(ctx, rec)
		if errors.Is(err, ErrConflict) {
			// Begun meanwhile by a twin request (a second click, another
			// tab): finish it alongside, every step being safe twice.
			if begun, err = getItemConsistent(ctx, s, rec.PK, rec.SK, "customer "+customerID, asRecord[customerRecord]); err == nil && begun.ClosingAt == "" {
				err = fmt.Errorf("delete customer %s: changed meanwhile: %w", customerID, ErrConflict)
			}
		}
		if err != nil {
			return err
		}
		if begun.DeletedAt != "" {
			return nil
		}
		rec = begun
	}
	return s.finishDeletion(ctx, rec)
}

// everyCustomerOrder is the customer's orders and, after them, the
// expired ones: out of the customer's list, but holding their name and
// address all the same (GSI2 c#id, xo#).
func (s *Store) everyCustomerOrder(ctx context.Context, customerID string) ([]Order, error) {
	orders, err := allPages(func(cursor string) (Page[Order], error) { return s.CustomerOrders(ctx, customerID, 100, cursor) })
	if err != nil {
		return nil, err
	}
	expired, err := queryAll(ctx, s, querySpec{key: onGSI2.pkAndSKPrefix(customerKey(customerID), prefixExpiredOrder), backward: true}, orderRecord.order)
	return append(orders, expired...), err
}

// noOrderToShip refuses a deletion while one of the customer's orders has
// not shipped, or awaits a payment that would make it one to ship.
func (s *Store) noOrderToShip(ctx context.Context, customerID string) error {
	orders, err := allPages(func(cursor string) (Page[Order], error) { return s.CustomerOrders(ctx, customerID, 100, cursor) })
	if err != nil {
		return err
	}
	for _, o := range orders {
		if waitsToShip(o.Status) || o.Status == OrderAwaitingPayment {
			return &OrderToShipError{Number: o.Number}
		}
	}
	return nil
}

// beginDeletion is the first step's transaction; it returns the customer
// item as it now is.
func (s *Store) beginDeletion(ctx context.Context, rec customerRecord) (customerRecord, error) {
	id := trimPrefix(rec.PK, prefixCustomer)
	now := s.now().UTC()
	var known []string
	if rec.Email != "" {
		cred, err := s.CredentialsByEmail(ctx, rec.Email)
		switch {
		case err == nil && cred.CustomerID == id:
			known = cred.KnownAddresses
		case err != nil && !errors.Is(err, ErrNotFound):
			return rec, err
		}
	}
	rec.ClosingAt, rec.ClosingAddresses = timestamp(now), known
	rec.GSI2PK, rec.GSI2SK = partitionClosing, createdKey(now, id)
	upd := expression.Set(expression.Name("ClosingAt"), expression.Value(rec.ClosingAt)).
		Set(expression.Name(attrGSI2PK), expression.Value(rec.GSI2PK)).
		Set(expression.Name(attrGSI2SK), expression.Value(rec.GSI2SK)).
		Remove(expression.Name("PasswordHash"))
	if len(known) > 0 {
		upd = upd.Set(expression.Name("ClosingAddresses"), expression.Value(known))
	}
	// On the role read: a promotion to staff meanwhile stops the deletion.
	cond := expression.AttributeExists(expression.Name(attrPK)).And(expression.AttributeNotExists(expression.Name("ClosingAt"))).
		And(expression.Name("Role").Equal(expression.Value(rec.Role)))
	customer, err := s.txUpdate(rec.PK, rec.SK, upd, cond)
	if err != nil {
		return rec, err
	}
	writes := []types.TransactWriteItem{customer}
	if rec.Email != "" {
		// Only this customer's: the address may already belong to another.
		mine, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK)).
			Or(expression.Name("CustomerID").Equal(expression.Value(id)))).Build()
		if err != nil {
			return rec, err
		}
		writes = append(writes, types.TransactWriteItem{Delete: &types.Delete{
			TableName: aws.String(s.table), Key: itemKey(emailKey(rec.Email), emailKey(rec.Email)),
			ConditionExpression: mine.Condition(), ExpressionAttributeNames: mine.Names(), ExpressionAttributeValues: mine.Values(),
		}})
	}
	for _, sk := range []string{finderNameKey, finderEmailKey, sortKeyAddresses} {
		writes = append(writes, types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(s.table), Key: itemKey(rec.PK, sk)}})
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: writes})
	if reasons := cancellationReasons(err); reasons != nil && reasons[0] == reasonConditionFailed {
		return rec, fmt.Errorf("delete customer %s: changed meanwhile: %w", id, ErrConflict)
	}
	if err != nil {
		return rec, fmt.Errorf("delete customer %s: %w", id, err)
	}
	return rec, nil
}

// finishDeletion runs the steps after the first, each safe to run again,
// then marks the customer deleted.
func (s *Store) finishDeletion(ctx context.Context, rec customerRecord) error {
	id := trimPrefix(rec.PK, prefixCustomer)
	steps := []struct {
		what string
		run  func() error
	}{
		{"sessions", func() error { _, err := s.EndSessions(ctx, id, ""); return err }},
		{"cart", func() error { return s.deletePartition(ctx, cartKey(CustomerOwner(id))) }},
		{"subscriptions", func() error { return s.forgetSubscriptions(ctx, id) }},
		{"tickets", func() error { return s.voidOpenTickets(ctx, id) }},
		{"orders", func() error { return s.anonymiseOrders(ctx, id) }},
		{"mails", func() error { return s.deleteMails(ctx, id, rec.Email) }},
		// After the steps that may write one (a subscription cancelled).
		{"webhook events", func() error { return s.forgetWebhookEvents(ctx, id) }},
		{"rate limits", func() error { return s.forgetLimits(ctx, rec.Email, rec.ClosingAddresses) }},
		{"mailed links", func() error { return s.deleteLinks(ctx, rec.Links) }},
	}
	for _, step := range steps {
		if err := step.run(); err != nil {
			return fmt.Errorf("delete customer %s: %s: %w", id, step.what, err)
		}
	}
	// The customers at the card providers last, each deleted there or left
	// listed to be (provider_customer.go): a provider down does not stop
	// the erasure.
	left := s.eraseProviderCustomers(ctx, rec)
	now := s.now()
	upd := expression.Set(expression.Name("DeletedAt"), expression.Value(timestamp(now))).
		Set(expression.Name("Name"), expression.Value(""))
	for _, attr := range []string{"Email", "PasswordHash", "LastSignInAt", "LastSignInAddress", "Lang", "ClosingAddresses", "Links"} {
		upd = upd.Remove(expression.Name(attr))
	}
	upd = leftListed(upd, left, id, now)
	err := s.updateIf(ctx, rec.PK, rec.SK, upd, expression.AttributeExists(expression.Name("ClosingAt")))
	if err != nil {
		return fmt.Errorf("delete customer %s: %w", id, err)
	}
	return nil
}

// deletePartition deletes every item under pk (a cart: its item, and lines
// of the old shape).
func (s *Store) deletePartition(ctx context.Context, pk string) error {
	items, err := s.query(ctx, querySpec{key: onTable.pkEquals(pk), consistent: true})
	if err != nil {
		return err
	}
	var deletes []types.WriteRequest
	for _, it := range items {
		deletes = append(deletes, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: map[string]types.AttributeValue{attrPK: it[attrPK], attrSK: it[attrSK]}}})
	}
	return s.batchWrite(ctx, deletes)
}
