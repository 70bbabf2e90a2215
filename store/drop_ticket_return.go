package store

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"shop/store/rules"
)

// A product drop's ticket holds one unit set aside. A ticket that expires
// unused (past its RedeemBy) or is voided (its drop cancelled) gives that
// unit back to stock, once: the ticket stock job (jobs/ticket_stock.go)
// reads the sparse GSI2 list ticket-returns#<shard> up to now, an entry
// per product drop ticket (subject#<drop>#ticket / return#<client>),
// put in the claim's transaction due at RedeemBy plus a grace, and moved
// to "now" when the ticket is voided. Each unit goes back in one
// transaction on condition the ticket is still unredeemed and not returned
// yet: its UnitReturnedAt set, the entry deleted, the stock +1 (with its
// logged adjustment) in the warehouse the drop set most aside in, and the
// drop's returned count +1 (its item subject#<drop>/returned). A ticket
// redeemed by an order awaiting its payment is skipped (its entry stays)
// until the payment ends: paid, the unit is sold and the entry goes;
// expired, the ticket is valid (or void) again and goes back.

const (
	// ticketReturnShards spreads the list over GSI2 partitions: a burst of
	// claims writes an entry per claim (a partition takes 1,000 writes a
	// second); the job reads each shard once a run.
	ticketReturnShards = 8
	// ticketReturnGrace is how long after RedeemBy a valid ticket's unit
	// goes back: a checkout that began before RedeemBy on a replica whose
	// clock runs behind still meets a valid ticket.
	ticketReturnGrace = 5 * time.Minute

	prefixTicketReturn      = "return#"         // a ticket's entry, under its drop's ticket partition
	partitionTicketReturns  = "ticket-returns#" // GSI2: ticket-returns#<shard>, by due time (sparse)
	sortKeyDropReturned     = "returned"        // under subject#<drop>: units returned from tickets
	entityTicketReturn      = "ticketReturn"
	entityDropReturnedCount = "dropReturned"
)

// TicketReturn is a product drop ticket's entry in the list of units to
// give back: due at its ticket's RedeemBy plus a grace, or when voided.
type TicketReturn struct {
	DropID string
	Client string
	Due    time.Time
}

type ticketReturnRecord struct {
	PK         string `dynamodbav:"PK"` // subject#<drop>#ticket
	SK         string `dynamodbav:"SK"` // return#<client>
	EntityType string `dynamodbav:"EntityType"`
	DropID     string `dynamodbav:"DropID"`
	Client     string `dynamodbav:"Client"`
	Due        string `dynamodbav:"Due"`
	GSI2PK     string `dynamodbav:"GSI2-PK"` // ticket-returns#<shard>
	GSI2SK     string `dynamodbav:"GSI2-SK"` // <due>#<drop>#<client>
}

func (r ticketReturnRecord) ticketReturn() TicketReturn {
	return TicketReturn{DropID: r.DropID, Client: r.Client, Due: parseTime(r.Due)}
}

func ticketReturnSortKey(client string) string { return prefixTicketReturn + client }

// ticketReturnShard is the shard of a ticket's entry, by drop and client.
func ticketReturnShard(dropID, client string) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(dropID + "\x00" + client)) // a hash's Write never fails
	return int(h.Sum32() % ticketReturnShards)
}

func newTicketReturn(dropID, client string, due time.Time) ticketReturnRecord {
	return ticketReturnRecord{
		PK: ticketPartition(dropID), SK: ticketReturnSortKey(client), EntityType: entityTicketReturn,
		DropID: dropID, Client: client, Due: timestamp(due),
		GSI2PK: fmt.Sprintf("%s%d", partitionTicketReturns, ticketReturnShard(dropID, client)),
		GSI2SK: createdKey(due, dropID+"#"+client),
	}
}

// txTicketReturn is the put of a claimed ticket's entry, due at its
// RedeemBy plus the grace (a claim over a released ticket moves it).
func (s *Store) txTicketReturn(dropID, client string, claimed time.Time, redeemWithin time.Duration) (types.TransactWriteItem, error) {
	item, err := attributevalue.MarshalMap(newTicketReturn(dropID, client, claimed.Add(redeemWithin+ticketReturnGrace)))
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table), Item: item}}, nil
}

// txTicketReturnNow makes a voided ticket's entry due now (made if a ticket
// claimed before the list has none).
func (s *Store) txTicketReturnNow(dropID, client string, now time.Time) (types.TransactWriteItem, error) {
	r := newTicketReturn(dropID, client, now)
	return s.txUpsert(r.PK, r.SK, expression.Set(expression.Name("EntityType"), expression.Value(r.EntityType)).
		Set(expression.Name("DropID"), expression.Value(r.DropID)).Set(expression.Name("Client"), expression.Value(r.Client)).
		Set(expression.Name("Due"), expression.Value(r.Due)).
		Set(expression.Name(attrGSI2PK), expression.Value(r.GSI2PK)).Set(expression.Name(attrGSI2SK), expression.Value(r.GSI2SK)))
}

// txUpsert is a transaction's update of pk/sk on no condition: it makes
// the item if there is none.
func (s *Store) txUpsert(pk, sk string, upd expression.UpdateBuilder) (types.TransactWriteItem, error) {
	expr, err := expression.NewBuilder().WithUpdate(upd).Build()
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(s.table), Key: itemKey(pk, sk), UpdateExpression: expr.Update(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
	}}, nil
}

// ticketReturnNow makes a voided ticket's entry due now, outside a
// transaction.
func (s *Store) ticketReturnNow(ctx context.Context, dropID, client string) error {
	w, err := s.txTicketReturnNow(dropID, client, s.now().UTC().Truncate(time.Millisecond))
	if err != nil {
		return err
	}
	u := w.Update
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression,
		ExpressionAttributeNames: u.ExpressionAttributeNames, ExpressionAttributeValues: u.ExpressionAttributeValues})
	if err != nil {
		return fmt.Errorf("make the unit of %s's void ticket of %s due: %w", client, dropID, err)
	}
	return nil
}

// TicketReturnsDue lists the entries due by now, every shard (read in
// parallel, each paged), so tickets whose unit is not owed are never read.
func (s *Store) TicketReturnsDue(ctx context.Context) ([]TicketReturn, error) {
	upTo := timestamp(s.now()) + "#" + sortsLast
	shards := make([][]TicketReturn, ticketReturnShards)
	g, gctx := errgroup.WithContext(ctx)
	for n := range ticketReturnShards {
		g.Go(func() error {
			q := querySpec{key: onGSI2.pkAndSKUpTo(fmt.Sprintf("%s%d", partitionTicketReturns, n), upTo)}
			cursor := ""
			for {
				page, err := pagedQuery(gctx, s, q, 100, cursor, ticketReturnRecord.ticketReturn)
				if err != nil {
					return fmt.Errorf("ticket returns due (shard %d): %w", n, err)
				}
				shards[n] = append(shards[n], page.Items...)
				if page.Next == "" {
					return nil
				}
				cursor = page.Next
			}
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var out []TicketReturn
	for _, sh := range shards {
		out = append(out, sh...)
	}
	return out, nil
}

// TicketReturnOutcome is what ReturnTicketUnit did with an entry.
type TicketReturnOutcome string

const (
	// TicketUnitReturned: the unit is back in stock (by this call).
	TicketUnitReturned TicketReturnOutcome = "returned"
	// TicketUnitHeld: the ticket is in an order awaiting its payment, or
	// not due yet: its entry stays for a later run.
	TicketUnitHeld TicketReturnOutcome = "held"
	// TicketUnitNotOwed: used, released, or returned already (by another
	// run): its entry is gone.
	TicketUnitNotOwed TicketReturnOutcome = "not owed"
)

// returnAttempts bounds the reads and transactions of one entry meeting
// other runs (and checkouts) on the same ticket.
const returnAttempts = 5

// ReturnTicketUnit gives back the unit of the entry's ticket if it is
// owed (see the top of this file): the ticket read consistently, its drop
// and product, for a ticket in an order that order's status, then the one
// transaction. A ticket another run returned meanwhile is TicketUnitNotOwed.
func (s *Store) ReturnTicketUnit(ctx context.Context, r TicketReturn) (TicketReturnOutcome, error) {
	if !ValidID(r.DropID) {
		return TicketUnitNotOwed, s.deleteItem(ctx, ticketPartition(r.DropID), ticketReturnSortKey(r.Client))
	}
	for range returnAttempts {
		plan, err := s.ticketReturnPlan(ctx, r)
		if err != nil || plan.outcome != TicketUnitReturned {
			return plan.outcome, err
		}
		err = s.returnUnitTx(ctx, plan)
		if err == nil {
			s.forgetStock(plan.drop.ProductID)
			return TicketUnitReturned, nil
		}
		if cancellationReasons(err) == nil {
			return "", fmt.Errorf("return the unit of %s's ticket of %s: %w", r.Client, r.DropID, err)
		}
		// The ticket changed (another run returned it, an order redeemed
		// it) or another transaction held an item: read again.
	}
	return "", fmt.Errorf("return the unit of %s's ticket of %s: it kept changing: %w", r.Client, r.DropID, ErrConflict)
}

// ticketReturnPlan is what is known of an entry's ticket before its
// transaction: whether its unit is owed (outcome TicketUnitReturned), and
// if so the ticket, drop, product and the order that held it, if any.
type ticketReturnPlan struct {
	outcome TicketReturnOutcome
	ticket  Ticket
	drop    Drop
	product Product
	order   Order // a void ticket's order, expired (its ConditionCheck)
}

// ticketReturnPlan reads what decides an entry; an entry whose unit is
// not owed is deleted here.
func (s *Store) ticketReturnPlan(ctx context.Context, r TicketReturn) (ticketReturnPlan, error) {
	notOwed := func() (ticketReturnPlan, error) {
		return ticketReturnPlan{outcome: TicketUnitNotOwed}, s.deleteItem(ctx, ticketPartition(r.DropID), ticketReturnSortKey(r.Client))
	}
	held := ticketReturnPlan{outcome: TicketUnitHeld}
	t, err := s.TicketConsistent(ctx, r.DropID, r.Client)
	if errors.Is(err, ErrNotFound) {
		return notOwed()
	}
	if err != nil {
		return held, err
	}
	if t.UnitReturned || t.Status == TicketReleased {
		return notOwed()
	}
	d, err := s.Drop(ctx, r.DropID)
	if errors.Is(err, ErrNotFound) || (err == nil && (d.ProductID == "" || len(d.SetAside) == 0)) {
		return notOwed()
	}
	if err != nil {
		return held, err
	}
	plan := ticketReturnPlan{outcome: TicketUnitReturned, ticket: t, drop: d}
	switch {
	case t.Status == TicketValid && s.now().Before(t.RedeemBy(d).Add(ticketReturnGrace)):
		return held, nil // not due yet (an older entry of a ticket claimed again)
	case t.OrderID != "" && (t.Status == TicketRedeemed || t.Status == TicketVoid):
		od, err := s.OrderDetails(ctx, t.OrderID)
		switch {
		case errors.Is(err, ErrNotFound):
			return notOwed()
		case err != nil:
			return held, err
		case od.Order.Status == OrderAwaitingPayment:
			return held, nil // the payment decides: a later run sees how
		case t.Status == TicketRedeemed || od.Order.Status != OrderExpired:
			return notOwed() // sold with its order
		}
		plan.order = od.Order // voided while its order waited, which then expired
	case t.Status == TicketRedeemed:
		return notOwed()
	}
	p, err := s.Product(ctx, d.ProductID)
	if errors.Is(err, ErrNotFound) {
		p = Product{ID: d.ProductID, Name: d.ProductID}
	} else if err != nil {
		return held, err
	}
	plan.product = p
	return plan, nil
}

// returnUnitTx is the return's one transaction: the ticket marked (on
// condition it is as read, unredeemed and not returned), its entry
// deleted, the stock +1 with its adjustment, the drop's returned count +1,
// and for a ticket of an expired order a check the order is still expired.
func (s *Store) returnUnitTx(ctx context.Context, p ticketReturnPlan) error {
	now := s.now().UTC().Truncate(time.Millisecond)
	t, d := p.ticket, p.drop
	cond := expression.Name("Status").Equal(expression.Value(string(t.Status))).
		And(expression.Name("CreatedAt").Equal(expression.Value(timestamp(t.CreatedAt)))).
		And(expression.AttributeNotExists(expression.Name("UnitReturnedAt")))
	if t.OrderID == "" {
		cond = cond.And(expression.AttributeNotExists(expression.Name("OrderID")))
	} else {
		cond = cond.And(expression.Name("OrderID").Equal(expression.Value(t.OrderID)))
	}
	mark, err := s.txUpdate(ticketPartition(d.ID), ticketSortKey(t.Client),
		expression.Set(expression.Name("UnitReturnedAt"), expression.Value(timestamp(now))), cond)
	if err != nil {
		return err
	}
	count, err := s.txUpsert(dropKey(d.ID), sortKeyDropReturned,
		expression.Add(expression.Name("Units"), expression.Value(1)).Set(expression.Name("EntityType"), expression.Value(entityDropReturnedCount)))
	if err != nil {
		return err
	}
	items := []types.TransactWriteItem{mark, count, {Delete: &types.Delete{TableName: aws.String(s.table),
		Key: itemKey(ticketPartition(d.ID), ticketReturnSortKey(t.Client))}}}
	why := "expired unused"
	if t.Status == TicketVoid {
		why = "void"
	}
	moves, err := s.stockMoves(p.product, rules.GiveBack(d.SetAside, 1), +1, "returned from a ticket ("+why+") of drop "+d.Title, "", now)
	if err != nil {
		return err
	}
	items = append(items, moves...)
	if p.order.ID != "" {
		check, err := s.txCheck(orderKey(p.order.ID), customerKey(p.order.CustomerID),
			expression.Name("Status").Equal(expression.Value(string(OrderExpired))))
		if err != nil {
			return err
		}
		items = append(items, check)
	}
	return s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
}
