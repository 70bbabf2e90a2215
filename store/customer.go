package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Role says what a signed-in person may do.
type Role string

const (
	RoleCustomer Role = "customer"
	RoleStaff    Role = "staff"
	// RoleOwner is staff who manage the staff: they make customers staff
	// or owners, demote them and deactivate accounts.
	RoleOwner Role = "owner"
)

// Staff reports whether the role opens the staff console.
func (r Role) Staff() bool { return r == RoleStaff || r == RoleOwner }

// rank orders the roles: a change to a lower one is a demotion, which ends
// the person's sessions.
func (r Role) rank() int {
	switch r {
	case RoleOwner:
		return 2
	case RoleStaff:
		return 1
	}
	return 0
}

// Demotes reports whether changing from to r takes rights away.
func (r Role) Demotes(from Role) bool { return r.rank() < from.rank() }

// ValidRole reports whether r is a role an owner can give.
func ValidRole(r Role) bool { return r == RoleCustomer || r == RoleStaff || r == RoleOwner }

// Customer is a person with an account; staff are customers with RoleStaff
// or RoleOwner.
type Customer struct {
	ID        string
	Email     string
	Name      string
	Role      Role
	CreatedAt time.Time
	// Deactivated accounts cannot sign in; an owner can reactivate them.
	Deactivated bool
	// The last sign-in (zero: none recorded) and the address it came from.
	LastSignInAt      time.Time
	LastSignInAddress string
	// EmailUnverified is an account signed up with a verification link
	// not yet used; EmailVerifiedAt when it was. Accounts made otherwise
	// (staff, the demo, before verification) are neither.
	EmailUnverified bool
	EmailVerifiedAt time.Time
	// DeletedAt is when the customer deleted the account (zero: not
	// deleted): the item stays, without the person, for their orders.
	DeletedAt time.Time
	// Closing: the deletion has begun and not yet finished.
	Closing bool
	// Lang is the language the customer reads the shop in ("en", "ko",
	// "id"), which decides the language of their mail; "" for an account
	// from before the shop spoke more than English.
	Lang string
	// ProviderCustomers are the customer's customers at the card providers
	// (provider name → its id, e.g. "stripe" → "cus_…"), made the first
	// time they pay by card there (SetProviderCustomer). Erasure deletes
	// them at each provider (provider_customer.go).
	ProviderCustomers map[string]string
	// Guest is a customer made by a guest checkout, with no password yet:
	// a password set by signing up with the email, or by a reset link, ends it.
	Guest bool
}

// Deleted reports whether the account was deleted.
func (c Customer) Deleted() bool { return !c.DeletedAt.IsZero() }

// Buyer is the customer's name and email, as an order keeps them.
func (c Customer) Buyer() Buyer { return Buyer{Name: c.Name, Email: c.Email, Lang: c.Lang} }

// NewCustomer is what sign-up collects; the password is already hashed.
type NewCustomer struct {
	Email        string
	Name         string
	PasswordHash string
	Role         Role
	// Lang is the language the sign-up was made in.
	Lang string
	// VerifyMail, if set, makes the account unverified and puts the mail
	// with its verification link in the outbox, in the sign-up's
	// transaction.
	VerifyMail func(Customer, AccountLink) Mail
}

// Credentials are what sign-in checks, read by email in one request.
type Credentials struct {
	CustomerID   string
	Name         string
	Role         Role
	PasswordHash string
	// Deactivated accounts are refused at sign-in.
	Deactivated bool
	// KnownAddresses are where the person last signed in from, newest
	// first: failures elsewhere do not slow a sign-in from them.
	KnownAddresses []string
}

// Knows reports whether the person signed in from addr lately.
func (c Credentials) Knows(addr string) bool { return slices.Contains(c.KnownAddresses, addr) }

// knownAddressesKept is how many addresses a sign-in remembers.
const knownAddressesKept = 8

type customerRecord struct {
	PK                string `dynamodbav:"PK"`
	SK                string `dynamodbav:"SK"`
	EntityType        string `dynamodbav:"EntityType"`
	Email             string `dynamodbav:"Email"`
	Name              string `dynamodbav:"Name"`
	Role              string `dynamodbav:"Role"`
	PasswordHash      string `dynamodbav:"PasswordHash"`
	CreatedAt         string `dynamodbav:"CreatedAt"`
	LastSignInAt      string `dynamodbav:"LastSignInAt,omitempty"`
	LastSignInAddress string `dynamodbav:"LastSignInAddress,omitempty"`
	Deactivated       bool   `dynamodbav:"Deactivated,omitempty"`
	EmailUnverified   bool   `dynamodbav:"EmailUnverified,omitempty"`
	EmailVerifiedAt   string `dynamodbav:"EmailVerifiedAt,omitempty"`
	Lang              string `dynamodbav:"Lang,omitempty"`
	Guest             bool   `dynamodbav:"Guest,omitempty"`
	// Links are the keys of the links mailed to the customer (their items
	// hold the email), so that deleting the account deletes them too.
	Links  []string `dynamodbav:"Links,stringset,omitempty"`
	GSI1PK string   `dynamodbav:"GSI1-PK,omitempty"` // customers
	GSI1SK string   `dynamodbav:"GSI1-SK,omitempty"` // created#id
	// A deletion (privacy.go): begun at ClosingAt, with the sign-in
	// addresses whose rate-limit counters name the email, listed in the
	// sparse GSI2 accounts-closing until DeletedAt.
	ClosingAt        string   `dynamodbav:"ClosingAt,omitempty"`
	ClosingAddresses []string `dynamodbav:"ClosingAddresses,omitempty"`
	DeletedAt        string   `dynamodbav:"DeletedAt,omitempty"`
	GSI2PK           string   `dynamodbav:"GSI2-PK,omitempty"`
	GSI2SK           string   `dynamodbav:"GSI2-SK,omitempty"`
	// ProviderCustomers: provider name → the customer's id there. After
	// erasure, only those a provider did not delete yet are left (listed
	// on GSI2 provider-customers-left until they are).
	ProviderCustomers map[string]string `dynamodbav:"ProviderCustomers,omitempty"`
}

// emailRecord makes an address unique and answers sign-in in one GetItem; it
// carries a copy of what sign-in needs, always written in one transaction with
// the customer.
type emailRecord struct {
	PK             string   `dynamodbav:"PK"`
	SK             string   `dynamodbav:"SK"`
	EntityType     string   `dynamodbav:"EntityType"`
	CustomerID     string   `dynamodbav:"CustomerID"`
	Name           string   `dynamodbav:"Name"`
	Role           string   `dynamodbav:"Role"`
	PasswordHash   string   `dynamodbav:"PasswordHash"`
	Deactivated    bool     `dynamodbav:"Deactivated,omitempty"`
	KnownAddresses []string `dynamodbav:"KnownAddresses,omitempty"`
}

func (r customerRecord) customer() Customer {
	created, _ := time.Parse(time.RFC3339Nano, r.CreatedAt)
	return Customer{ID: trimPrefix(r.PK, prefixCustomer), Email: r.Email, Name: r.Name, Role: Role(r.Role), CreatedAt: created,
		LastSignInAt: parseTime(r.LastSignInAt), LastSignInAddress: r.LastSignInAddress, Deactivated: r.Deactivated,
		EmailUnverified: r.EmailUnverified, EmailVerifiedAt: parseTime(r.EmailVerifiedAt),
		DeletedAt: parseTime(r.DeletedAt), Closing: r.ClosingAt != "" && r.DeletedAt == "", Lang: r.Lang,
		ProviderCustomers: r.ProviderCustomers, Guest: r.Guest}

}

// CreateCustomer writes the customer, its email item and its finder items
// (customer_find.go) in one transaction, the first two on condition that
// they do not exist yet: ErrEmailTaken if the address is registered, and
// never one item without the others. An owner is counted
// among the owners in the same transaction.
func (s *Store) CreateCustomer(ctx context.Context, nc NewCustomer) (Customer, error) {
	if nc.Role == "" {
		nc.Role = RoleCustomer
	}
	c := Customer{ID: NewID(), Email: NormalizeEmail(nc.Email), Name: nc.Name, Role: nc.Role, Lang: nc.Lang, CreatedAt: s.now().UTC().Truncate(time.Millisecond)}
	var also []types.TransactWriteItem
	var links []string
	if nc.VerifyMail != nil {
		c.EmailUnverified = true
		l := NewAccountLink(LinkVerifyEmail, c, c.CreatedAt, VerifyLinkLife)
		puts, err := s.linkPuts(l, nc.VerifyMail(c, l))
		if err != nil {
			return Customer{}, err
		}
		also, links = puts, []string{accountLinkKey(l.Secret)}
	}
	return c, s.createCustomerWithID(ctx, c, nc.PasswordHash, links, also...)
}

func (s *Store) createCustomerWithID(ctx context.Context, c Customer, passwordHash string, links []string, also ...types.TransactWriteItem) error {
	cust, err := attributevalue.MarshalMap(customerRecord{
		PK: customerKey(c.ID), SK: customerKey(c.ID), EntityType: entityCustomer,
		Email: c.Email, Name: c.Name, Role: string(c.Role), PasswordHash: passwordHash,
		CreatedAt: timestamp(c.CreatedAt), EmailUnverified: c.EmailUnverified, Links: links, Lang: c.Lang, Guest: c.Guest,
		GSI1PK: partitionCustomers, GSI1SK: createdKey(c.CreatedAt, c.ID),
	})
	if err != nil {
		return err
	}
	email, err := attributevalue.MarshalMap(emailRecord{
		PK: emailKey(c.Email), SK: emailKey(c.Email), EntityType: entityEmail,
		CustomerID: c.ID, Name: c.Name, Role: string(c.Role), PasswordHash: passwordHash,
	})
	if err != nil {
		return err
	}
	cond, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))).Build()
	if err != nil {
		return err
	}
	put := func(item map[string]types.AttributeValue) types.TransactWriteItem {
		return types.TransactWriteItem{Put: &types.Put{
			TableName: aws.String(s.table), Item: item,
			ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(),
		}}
	}
	finders, err := s.customerFinders(c)
	if err != nil {
		return err
	}
	items := append(append([]types.TransactWriteItem{put(email), put(cust)}, finders...), also...)
	if c.Role == RoleOwner && !c.Deactivated {
		count, err := s.countOwners(1)
		if err != nil {
			return err
		}
		items = append(items, count)
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if reasons := cancellationReasons(err); reasons != nil {
		if reasons[0] == reasonConditionFailed {
			return ErrEmailTaken
		}
		if reasons[1] == reasonConditionFailed {
			return fmt.Errorf("customer id %s: %w", c.ID, ErrConflict)
		}
	}
	if err != nil {
		return fmt.Errorf("create customer: %w", err)
	}
	return nil
}

// Customer reads a customer by id (access pattern 1).
func (s *Store) Customer(ctx context.Context, id string) (Customer, error) {
	return getItem(ctx, s, customerKey(id), customerKey(id), "customer "+id, customerRecord.customer)
}

// CredentialsByEmail reads what sign-in checks, in one GetItem.
func (s *Store) CredentialsByEmail(ctx context.Context, email string) (Credentials, error) {
	return getItem(ctx, s, emailKey(email), emailKey(email), "email", func(r emailRecord) Credentials {
		return Credentials{CustomerID: r.CustomerID, Name: r.Name, Role: Role(r.Role), PasswordHash: r.PasswordHash,
			Deactivated: r.Deactivated, KnownAddresses: r.KnownAddresses}
	})
}

// RecordSignIn notes a sign-in of cred (as read for it, by email) from
// addr: the customer's last sign-in for staff, and addr first among the
// addresses the email item knows. One transaction of two updates.
func (s *Store) RecordSignIn(ctx context.Context, email string, cred Credentials, addr string) error {
	known := append([]string{addr}, slices.DeleteFunc(slices.Clone(cred.KnownAddresses), func(a string) bool { return a == addr })...)
	known = known[:min(len(known), knownAddressesKept)]
	exists := expression.AttributeExists(expression.Name(attrPK))
	customer, err := s.txUpdate(customerKey(cred.CustomerID), customerKey(cred.CustomerID),
		expression.Set(expression.Name("LastSignInAt"), expression.Value(timestamp(s.now()))).
			Set(expression.Name("LastSignInAddress"), expression.Value(addr)), exists)
	if err != nil {
		return err
	}
	emailItem, err := s.txUpdate(emailKey(email), emailKey(email), expression.Set(expression.Name("KnownAddresses"), expression.Value(known)), exists)
	if err != nil {
		return err
	}
	if err := s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{customer, emailItem}}); err != nil {
		return fmt.Errorf("record sign-in: %w", err)
	}
	return nil
}

// SetCustomerLanguage records the language the customer chose to read
// the shop in, which their mail is written in, on the customer and on
// each of their subscriptions that still mails them (every one not
// cancelled): the billing jobs read a subscription's own Lang, never the
// customer. Orders keep the language of their checkout.
//
// It costs one strongly consistent Query of the customer's subscriptions
// (their collection under ACC#id) and one transaction writing the customer
// and those subscriptions whose language differs (2 WCU each) and checking
// the others' Version (1 RCU each): two requests whatever the number of subscriptions, up to 99 of them. A
// change is rare (a choice on the language switcher), so the transaction's
// price buys that the customer and their subscriptions never disagree
// when two changes race.
//
// Each subscription's Version is bumped with its Lang: a job that read it
// before the change then fails its conditional write, reads it again and
// writes its mail in the new language, instead of putting the old Lang
// back with the item. ErrNotFound if the customer is not there.
func (s *Store) SetCustomerLanguage(ctx context.Context, customerID, lang string) error {
	const tries = 5 // a subscription changed meanwhile (another change, a job): read them again
	for try := 1; ; try++ {
		subs, err := s.Subscriptions(ctx, customerID)
		if err != nil {
			return fmt.Errorf("set language: customer %s: %w", customerID, err)
		}
		err = s.setLanguageOf(ctx, customerID, lang, subs)
		if !errors.Is(err, ErrConflict) || try == tries {
			return err
		}
	}
}

// setLanguageOf writes lang on the customer and on their subscriptions
// subs that mail them and have another language. Every such subscription
// is written, or checked when it has lang already, on condition of the
// Version read: a change racing this one bumps some Version first (or
// finds its own checks failing), so the last change to commit is the
// language of the customer and of every subscription alike.
func (s *Store) setLanguageOf(ctx context.Context, customerID, lang string, subs []Subscription) error {
	set := expression.Set(expression.Name("Lang"), expression.Value(lang))
	exists := expression.AttributeExists(expression.Name(attrPK))
	var writes []types.TransactWriteItem
	for _, sub := range subs {
		if sub.Status == SubscriptionCancelled {
			continue
		}
		unchanged := expression.Name("Version").Equal(expression.Value(sub.Version))
		if sub.Lang == lang {
			expr, err := expression.NewBuilder().WithCondition(unchanged).Build()
			if err != nil {
				return err
			}
			writes = append(writes, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
				TableName: aws.String(s.table), Key: itemKey(accountKey(customerID), subscriptionSortKey(sub.ID, sub.ProductID)),
				ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
			}})
			continue
		}
		// A builder of its own: Set adds to the builder it is called on.
		bump := expression.Set(expression.Name("Lang"), expression.Value(lang)).
			Set(expression.Name("Version"), expression.Name("Version").Plus(expression.Value(1)))
		w, err := s.txUpdate(accountKey(customerID), subscriptionSortKey(sub.ID, sub.ProductID), bump, unchanged)
		if err != nil {
			return err
		}
		writes = append(writes, w)
	}
	if len(writes) == 0 {
		err := s.updateIf(ctx, customerKey(customerID), customerKey(customerID), set, exists)
		if isConditionFailed(err) {
			return fmt.Errorf("set language: customer %s: %w", customerID, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("set language: customer %s: %w", customerID, err)
		}
		return nil
	}
	customer, err := s.txUpdate(customerKey(customerID), customerKey(customerID), set, exists)
	if err != nil {
		return err
	}
	writes = append([]types.TransactWriteItem{customer}, writes...)
	// More than fit one transaction (a customer with a hundred
	// subscriptions) go in several, the customer in the first.
	for first := true; len(writes) > 0; first = false {
		n := min(len(writes), maxTransactItems)
		err := s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: writes[:n]})
		if reasons := cancellationReasons(err); reasons != nil {
			if first && reasons[0] == reasonConditionFailed {
				return fmt.Errorf("set language: customer %s: %w", customerID, ErrNotFound)
			}
			if slices.Contains(reasons, reasonConditionFailed) {
				return fmt.Errorf("set language: customer %s: a subscription changed meanwhile: %w", customerID, ErrConflict)
			}
		}
		if err != nil {
			return fmt.Errorf("set language: customer %s: %w", customerID, err)
		}
		writes = writes[n:]
	}
	return nil
}
