package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"shop/store/rules"
)

// forgetSubscriptions cancels the customer's subscriptions that are not
// cancelled yet, at once (the payment job charges none of them again), and
// clears the email and card token of every one; the receipts keep the
// payment without the email. Each subscription is written on its version;
// one the payment job changed meanwhile is read again.
func (s *Store) forgetSubscriptions(ctx context.Context, customerID string) error {
	today := rules.DateOf(s.now(), s.loc)
	for tries := 0; ; tries++ {
		subs, err := s.Subscriptions(ctx, customerID)
		if err != nil {
			return err
		}
		conflict := false
		for _, sub := range subs {
			if sub.Status == SubscriptionCancelled && sub.Email == "" && sub.Card.Token == "" {
				continue
			}
			next := sub
			if sub.Status != SubscriptionCancelled {
				if next, err = CancelNow()(sub, today, s.reminderLead); err != nil {
					return err
				}
			}
			next.Email, next.Card.Token = "", ""
			_, err := s.UpdateSubscription(ctx, next)
			if errors.Is(err, ErrConflict) && tries < 3 {
				conflict = true
				continue
			}
			if err != nil {
				return err
			}
		}
		if !conflict {
			break
		}
	}
	// Every receipt, those past their TTL too (DynamoDB deletes late).
	receipts, err := allPages(func(cursor string) (Page[receiptRecord], error) {
		q := querySpec{key: onTable.pkAndSKBetween(accountKey(customerID), prefixReceipt, prefixReceipt+sortsLast), consistent: true}
		return pagedQuery(ctx, s, q, 100, cursor, asRecord[receiptRecord])
	})
	if err != nil {
		return err
	}
	for _, r := range receipts {
		if r.Email == "" {
			continue
		}
		err := s.updateIf(ctx, r.PK, r.SK, expression.Set(expression.Name("Email"), expression.Value("")), expression.AttributeExists(expression.Name(attrPK)))
		if err != nil && !isConditionFailed(err) { // expired and deleted meanwhile
			return fmt.Errorf("receipt %s: %w", r.Number, err)
		}
	}
	return nil
}

// voidOpenTickets voids the customer's drop tickets not yet redeemed, each
// on condition it is still valid (a redemption meanwhile stands). The unit
// stays claimed: the drop gave it out first come, first served.
func (s *Store) voidOpenTickets(ctx context.Context, customerID string) error {
	tickets, err := allPages(func(cursor string) (Page[Ticket], error) { return s.CustomerTickets(ctx, customerID, 100, cursor) })
	if err != nil {
		return err
	}
	for _, t := range tickets {
		if t.Status != TicketValid {
			continue
		}
		err := s.updateIf(ctx, ticketPartition(t.DropID), ticketSortKey(t.Client),
			expression.Set(expression.Name("Status"), expression.Value(string(TicketVoid))),
			expression.Name("Status").Equal(expression.Value(string(TicketValid))))
		if err != nil && !isConditionFailed(err) {
			return fmt.Errorf("void ticket of drop %s: %w", t.DropID, err)
		}
	}
	return nil
}

// anonymiseOrders takes the person out of each of the customer's orders,
// one transaction per order: the buyer on the order, its items and its
// invoice becomes DeletedCustomerName without an email, and the order's
// and its shipments' addresses keep only the country, which the books need
// for the sale's VAT (where the goods went); the street, the postcode and
// the recipient they do not. An order still to ship (one placed in the
// moment the deletion began) keeps its address until it ships.
func (s *Store) anonymiseOrders(ctx context.Context, customerID string) error {
	orders, err := s.everyCustomerOrder(ctx, customerID)
	if err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for _, o := range orders {
		g.Go(func() error { return s.anonymiseOrder(gctx, o.ID) })
	}
	return g.Wait()
}

func (s *Store) anonymiseOrder(ctx context.Context, orderID string) error {
	items, err := s.query(ctx, querySpec{key: onTable.pkEquals(orderKey(orderID)), consistent: true})
	if err != nil {
		return err
	}
	var head struct {
		Status string
		ShipTo Address
	}
	for _, it := range items {
		if sk, ok := it[attrSK].(*types.AttributeValueMemberS); ok && trimPrefix(sk.Value, prefixCustomer) != "" {
			if err := attributevalue.UnmarshalMap(it, &head); err != nil {
				return err
			}
		}
	}
	keepAddress := waitsToShip(OrderStatus(head.Status))
	countryOnly := Address{Country: head.ShipTo.Country}
	exists := expression.AttributeExists(expression.Name(attrPK))
	buyer := expression.Set(expression.Name("BuyerName"), expression.Value(DeletedCustomerName)).Remove(expression.Name("BuyerEmail"))
	var writes []types.TransactWriteItem
	for _, it := range items {
		var rec struct {
			PK, SK, EntityType string
			Address            Address
		}
		if err := attributevalue.UnmarshalMap(it, &rec); err != nil {
			return err
		}
		var upd expression.UpdateBuilder
		switch rec.EntityType {
		case entityOrder:
			upd = buyer
			if !keepAddress {
				upd = buyer.Set(expression.Name("ShipTo"), expression.Value(countryOnly))
			}
		case entityOrderItem, entityInvoice:
			upd = buyer
		case entityShipment:
			if keepAddress || rec.Address == (Address{Country: rec.Address.Country}) {
				continue
			}
			upd = expression.Set(expression.Name("Address"), expression.Value(Address{Country: rec.Address.Country}))
		default:
			continue
		}
		w, err := s.txUpdate(rec.PK, rec.SK, upd, exists)
		if err != nil {
			return err
		}
		writes = append(writes, w)
	}
	for batch := range slices.Chunk(writes, 100) {
		if err := s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: batch}); err != nil {
			return fmt.Errorf("order %s: %w", orderID, err)
		}
	}
	return nil
}

// deleteMails deletes the outbox's mails to the customer (a mail waiting
// to go is not sent).
func (s *Store) deleteMails(ctx context.Context, customerID, email string) error {
	mails, err := s.customerMails(ctx, customerID, email)
	if err != nil {
		return err
	}
	var deletes []types.WriteRequest
	for _, m := range mails {
		deletes = append(deletes, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: itemKey(mailKey(m.ID), mailKey(m.ID))}})
	}
	return s.batchWrite(ctx, deletes)
}

// forgetLimits deletes the sign-in counters whose keys hold the email:
// by email alone, and by email and each address it signed in from lately.
// Counters of failed sign-ins from other addresses cannot be named; they
// expire with their window (half an hour).
func (s *Store) forgetLimits(ctx context.Context, email string, addresses []string) error {
	if email == "" {
		return nil
	}
	email = NormalizeEmail(email)
	pks := []string{limitKey(limitScopeLoginEmail, email)}
	for _, a := range addresses {
		pks = append(pks, limitKey(limitScopeLoginEmailAddr, email+" "+a))
	}
	for _, pk := range pks {
		if err := s.deletePartition(ctx, pk); err != nil {
			return err
		}
	}
	return nil
}

// deleteLinks deletes the links mailed to the customer: their items hold
// the email until they expire.
func (s *Store) deleteLinks(ctx context.Context, keys []string) error {
	var deletes []types.WriteRequest
	for _, k := range keys {
		deletes = append(deletes, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: itemKey(k, k)}})
	}
	return s.batchWrite(ctx, deletes)
}

// FinishDeletions finishes the deletions begun before `before` that
// stopped midway (the accounts-closing list, GSI2), and says how many;
// then it deletes the customers at card providers erasures left
// (provider-customers-left, GSI2).
func (s *Store) FinishDeletions(ctx context.Context, before time.Time) (int, error) {
	q := querySpec{key: onGSI2.pkAndSKBelow(partitionClosing, timestamp(before))}
	page, err := pagedQuery(ctx, s, q, 100, "", asRecord[customerRecord])
	if err != nil {
		return 0, err
	}
	done := 0
	for _, rec := range page.Items {
		if err := s.DeleteCustomer(ctx, trimPrefix(rec.PK, prefixCustomer)); err != nil {
			return done, err
		}
		done++
	}
	// And the customers at card providers an erasure could not delete.
	return done, s.retryProviderCustomers(ctx)
}
