package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"shop/store/rules"
)

// The AWS recurring-payments model ("Recurring payments schema design"):
// a subscription facet (PK ACC#<account>, SK SUB#<id>#SKU#<product>) and a
// receipt facet (SK REC#<processed>#SKU#<product>), all values strings, no
// EntityType. The account is the shop's customer of that id.

// Card brands of an imported card: the model holds a card number, which the
// shop never keeps. Without a gateway token nothing can charge it.
const (
	importedInvalidCard = "Invalid card"
	importedCard        = "Imported card"
)

func wbS(s string) wbValue { return wbValue{S: &s} }

// wbDay reads a billing date: a bare YYYY-MM-DD is that day; a timestamp
// is the day it fell on in the shop's time zone.
func (s *Store) wbDay(v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if d, err := rules.ParseDate(v); err == nil {
		return d, nil
	}
	t, err := wbTime(v)
	if err != nil {
		return time.Time{}, err
	}
	return rules.DateOf(t, s.loc), nil
}

// Luhn reports whether a string of digits passes the Luhn check (the
// gateway checks typed numbers with it; imports check the models' samples).
func Luhn(digits string) bool {
	sum, double := 0, false
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// cardFromNumber keeps what the shop may keep of a card number from a
// model: its last four digits and a brand saying it cannot be charged.
// Never the number, never a token.
func cardFromNumber(number string) Card {
	digits := strings.NewReplacer(" ", "", "-", "").Replace(number)
	if digits == "" {
		return Card{}
	}
	if strings.Trim(digits, "0123456789") != "" || len(digits) < 4 {
		return Card{Brand: importedInvalidCard}
	}
	c := Card{Brand: importedCard, Last4: digits[len(digits)-4:]}
	if len(digits) < 12 || len(digits) > 19 || !Luhn(digits) {
		c.Brand = importedInvalidCard
	}
	return c
}

// convertSubscription turns the model's subscription into the shop's: money
// strings to minor units, the payment day to a number, one-month periods,
// active, its dates kept, its card reduced to what may be kept.
func (im *importer) convertSubscription(it wbItem) (Subscription, error) {
	account, id, sku, ok := subscriptionKeys(it.str(attrPK), it.str(attrSK))
	if !ok {
		return Subscription{}, skip("keys are not ACC#<account>/SUB#<id>#SKU#<product>")
	}
	if v := it.str("SKU"); v != "" && v != sku {
		return Subscription{}, skip("SKU %q is not the key's %q", v, sku)
	}
	amount, err := wbMoney(it.str("PaymentAmount"))
	if err != nil || amount.Amount <= 0 {
		return Subscription{}, skip("payment amount %q is not an amount above zero", it.str("PaymentAmount"))
	}
	day, err := strconv.Atoi(strings.TrimSpace(it.str("PaymentDay")))
	if err != nil || !rules.ValidPaymentDay(day) {
		return Subscription{}, skip("payment day %q is not a day from 1 to 31", it.str("PaymentDay"))
	}
	sub := Subscription{
		ID: id, AccountID: account, ProductID: sku, Email: NormalizeEmail(it.str("Email")),
		MonthlyPrice: amount, PeriodMonths: 1, PaymentDay: day, Status: SubscriptionActive,
		Card: cardFromNumber(it["PaymentDetails"].M["default-card"].str()), Version: 1,
	}
	dates := []struct {
		attr     string
		to       *time.Time
		required bool
	}{
		{"NextPaymentDate", &sub.NextPaymentDate, true},
		{"NextReminderDate", &sub.NextReminderDate, false},
		{"LastPaymentDate", &sub.LastPaymentDate, false},
		{"LastReminderDate", &sub.LastReminderDate, false},
	}
	for _, d := range dates {
		v := it.str(d.attr)
		if v == "" && d.required {
			return Subscription{}, skip("no %s", d.attr)
		}
		if *d.to, err = im.s.wbDay(v); err != nil {
			return Subscription{}, skip("%s: %v", d.attr, err)
		}
	}
	if sub.CreatedAt, err = wbTime(it.str("CreatedDate")); err != nil {
		return Subscription{}, skip("CreatedDate: %v", err)
	}
	return sub, nil
}

func subscriptionIndexKey(account, sku string) string { return account + "/" + sku }

// subscription imports a subscription through newSubscriptionRecord, so it
// lands in the sharded billing-due indexes. Importing again rewrites it
// only while it is as imported (version 1): one the jobs or the customer
// moved on is left as it is.
func (im *importer) subscription(ctx context.Context, it wbItem) error {
	s := im.s
	sub, err := im.convertSubscription(it)
	if err != nil {
		return err
	}
	if sub.ProductName, err = im.subscribableProduct(ctx, sub.ProductID, sub.MonthlyPrice); err != nil {
		return err
	}
	im.subscriptions[subscriptionIndexKey(sub.AccountID, sub.ProductID)] = sub
	if err := im.account(ctx, sub.AccountID, sub.Email); err != nil {
		return err
	}
	item, err := s.subscriptionItem(ctx, sub)
	if err != nil {
		return err
	}
	cond, err := expression.NewBuilder().WithCondition(expression.Or(
		expression.AttributeNotExists(expression.Name(attrPK)),
		expression.Name("Version").Equal(expression.Value(sub.Version)))).Build()
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: item,
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values()})
	if isConditionFailed(err) {
		return skip("changed since it was imported; left as it is")
	}
	if err != nil {
		return fmt.Errorf("import subscription %s: %w", sub.ID, err)
	}
	return nil
}

// receipt imports a receipt. Its sort key is made from its ProcessedDate
// (the model's sample key is malformed), its amount in minor units, and it
// expires six months and a day after it was processed (not at the model's
// TTL). A receipt older than six months is not imported: it would be past
// its retention, and its TTL in the past.
func (im *importer) receipt(ctx context.Context, it wbItem) error {
	s := im.s
	pk, sk := it.str(attrPK), it.str(attrSK)
	account := trimPrefix(pk, prefixAccount)
	sku := it.str("SKU")
	if sku == "" {
		sku = receiptSKU(sk)
	}
	if !ValidID(account) || !ValidID(sku) {
		return skip("keys are not ACC#<account>/REC#<processed>#SKU#<product>")
	}
	at, err := wbTime(it.str("ProcessedDate"))
	if err != nil {
		return skip("ProcessedDate: %v", err)
	}
	repaired := ""
	if key := receiptSortKey(at, sku); key != sk {
		repaired = "; sort key repaired to " + key
	}
	amount, err := wbMoney(it.str("ProcessedAmount"))
	if err != nil {
		return skip("processed amount %q: %v%s", it.str("ProcessedAmount"), err, repaired)
	}
	if !at.After(s.now().AddDate(0, -ReceiptRetention, 0)) {
		return skip("processed %s, more than %d months ago: past the time receipts are kept (its TTL would be in the past)%s",
			timestamp(at), ReceiptRetention, repaired)
	}
	email := NormalizeEmail(it.str("Email"))
	if err := im.account(ctx, account, email); err != nil {
		return err
	}
	r := Receipt{
		Number: ReceiptNumber(at, sku), AccountID: account, ProductID: sku, Email: email,
		ProcessedAt: at, Amount: amount, PeriodStart: rules.DateOf(at, s.loc), ExpiresAt: receiptExpiry(at),
	}
	if sub, ok := im.subscriptions[subscriptionIndexKey(account, sku)]; ok {
		r.SubscriptionID, r.ProductName = sub.ID, sub.ProductName
		r.Card = Card{Brand: sub.Card.Brand, Last4: sub.Card.Last4}
		r.PeriodEnd = rules.NextBillingDate(r.PeriodStart, sub.PeriodMonths, sub.PaymentDay)
	} else if p, err := s.Product(ctx, sku); err == nil {
		r.ProductName = p.Name
	} else {
		r.ProductName = "Product " + sku
	}
	// Written whole: a receipt never changes, so importing again is a no-op.
	if err := s.putItem(ctx, newReceiptRecord(r)); err != nil {
		return fmt.Errorf("import receipt %s: %w", r.Number, err)
	}
	if repaired != "" {
		im.rep.Written = append(im.rep.Written, fmt.Sprintf("receipt %s/%s: written as %s", pk, sk, receiptSortKey(at, sku)))
	}
	return nil
}

// subscribableProduct is the name of the subscription's product, created
// (category "Imported", subscribable at the subscription's price) if the
// shop does not have it. An existing product is left as staff made it.
func (im *importer) subscribableProduct(ctx context.Context, sku string, price Money) (string, error) {
	s := im.s
	p, err := s.Product(ctx, sku)
	if err == nil {
		return p.Name, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return "", err
	}
	if err := s.PutCategory(ctx, Category{Slug: importedCategory, Name: "Imported", Description: "Products imported from NoSQL Workbench models."}); err != nil {
		return "", err
	}
	p = Product{ID: sku, Name: im.productName(productKey(sku)), Category: importedCategory, Price: price, Subscribable: true, MonthlyPrice: price}
	if err := s.PutProduct(ctx, p); err != nil {
		return "", err
	}
	im.rep.Written = append(im.rep.Written, fmt.Sprintf("%s %s/%s: subscribable at %s a month", entityProduct, productKey(sku), productKey(sku), price))
	return p.Name, nil
}

// account makes sure the account's customer exists: one the model lacks is
// created with the model's email and no password (it cannot sign in).
func (im *importer) account(ctx context.Context, id, email string) error {
	s := im.s
	if _, err := s.Customer(ctx, id); err == nil || !errors.Is(err, ErrNotFound) {
		return err
	}
	if email == "" {
		im.rep.Skipped = append(im.rep.Skipped, fmt.Sprintf("%s %s/%s: account %s has no customer and the model no email to make one with",
			entityCustomer, customerKey(id), customerKey(id), accountKey(id)))
		return nil
	}
	pk := customerKey(id)
	err := im.customer(ctx, wbItem{attrPK: wbS(pk), attrSK: wbS(pk), "Email": wbS(email), "Name": wbS("Customer " + id)})
	var sk skipError
	if errors.As(err, &sk) {
		im.rep.Skipped = append(im.rep.Skipped, fmt.Sprintf("%s %s/%s: %s", entityCustomer, pk, pk, sk.why))
		return nil
	}
	if err != nil {
		return err
	}
	im.rep.Written = append(im.rep.Written, fmt.Sprintf("%s %s/%s: for account %s, without a password", entityCustomer, pk, pk, accountKey(id)))
	return nil
}
