package store

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The mails of an account: its links, and its orders' steps.
const (
	MailVerifyEmail   MailKind = "verify_email"
	MailPasswordReset MailKind = "password_reset"
	MailOrderPlaced   MailKind = "order_placed"
	MailOrderShipped  MailKind = "order_shipped"
	MailDelivered     MailKind = "order_delivered"
)

// LinkPurpose says what a mailed account link does.
type LinkPurpose string

const (
	LinkVerifyEmail   LinkPurpose = "verify"
	LinkResetPassword LinkPurpose = "reset"
)

// How long a mailed link works.
const (
	VerifyLinkLife = 7 * 24 * time.Hour
	ResetLinkLife  = time.Hour
	// linkKept is how long a used or expired link is still kept, so a
	// second click says "used" or "expired" rather than "not found".
	linkKept = 7 * 24 * time.Hour
)

var (
	ErrLinkUsed    = errors.New("this link was used already")
	ErrLinkExpired = errors.New("this link has expired")
)

// AccountLink is the state of a link mailed to a customer: it works once,
// until ValidUntil. Secret is in the link only; the table keys its hash.
type AccountLink struct {
	Secret     string
	Purpose    LinkPurpose
	CustomerID string
	Email      string
	CreatedAt  time.Time
	ValidUntil time.Time
	UsedAt     time.Time
	// A sign-up with a guest checkout's email (a verification link): the
	// password (hashed) and name the link sets on that customer once used.
	PasswordHash string
	Name         string
}

// Joins reports whether the link, once used, sets a password on a guest
// checkout's customer.
func (l AccountLink) Joins() bool { return l.PasswordHash != "" }

// NewAccountLink is a fresh link of purpose for the customer, valid from
// now for life.
func NewAccountLink(purpose LinkPurpose, c Customer, now time.Time, life time.Duration) AccountLink {
	var b [24]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	now = now.UTC().Truncate(time.Millisecond)
	return AccountLink{Secret: base64.RawURLEncoding.EncodeToString(b[:]), Purpose: purpose, CustomerID: c.ID, Email: c.Email,
		CreatedAt: now, ValidUntil: now.Add(life)}
}

// Check says whether the link can be used at now: ErrLinkUsed, ErrLinkExpired or nil.
func (l AccountLink) Check(now time.Time) error {
	switch {
	case !l.UsedAt.IsZero():
		return ErrLinkUsed
	case !now.Before(l.ValidUntil):
		return ErrLinkExpired
	}
	return nil
}

type accountLinkRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	Purpose    string `dynamodbav:"Purpose"`
	CustomerID string `dynamodbav:"CustomerID"`
	Email      string `dynamodbav:"Email"`
	CreatedAt  string `dynamodbav:"CreatedAt"`
	ValidUntil int64  `dynamodbav:"ValidUntil"` // Unix milliseconds
	UsedAt     string `dynamodbav:"UsedAt,omitempty"`
	ExpiresAt  int64  `dynamodbav:"ExpiresAt"` // TTL
	// A guest's sign-up: what the link sets on the customer.
	PasswordHash string `dynamodbav:"PasswordHash,omitempty"`
	Name         string `dynamodbav:"Name,omitempty"`
}

func (r accountLinkRecord) link() AccountLink {
	return AccountLink{Purpose: LinkPurpose(r.Purpose), CustomerID: r.CustomerID, Email: r.Email,
		CreatedAt: parseTime(r.CreatedAt), ValidUntil: time.UnixMilli(r.ValidUntil).UTC(), UsedAt: parseTime(r.UsedAt),
		PasswordHash: r.PasswordHash, Name: r.Name}
}

// linkPuts are a new link's item (on condition its key is new) and its
// mail's, for one transaction.
func (s *Store) linkPuts(l AccountLink, m Mail) ([]types.TransactWriteItem, error) {
	item, err := attributevalue.MarshalMap(accountLinkRecord{
		PK: accountLinkKey(l.Secret), SK: accountLinkKey(l.Secret), EntityType: entityAccountLink,
		Purpose: string(l.Purpose), CustomerID: l.CustomerID, Email: l.Email, CreatedAt: timestamp(l.CreatedAt),
		ValidUntil: l.ValidUntil.UnixMilli(), ExpiresAt: l.ValidUntil.Add(linkKept).Unix(),
		PasswordHash: l.PasswordHash, Name: l.Name,
	})
	if err != nil {
		return nil, err
	}
	cond, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name(attrPK))).Build()
	if err != nil {
		return nil, err
	}
	mail, err := s.mailPut(m)
	if err != nil {
		return nil, err
	}
	return []types.TransactWriteItem{{Put: &types.Put{TableName: aws.String(s.table), Item: item,
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names()}}, mail}, nil
}

// MailAccountLink keeps the link, lists it on the customer and puts its
// mail in the outbox, in one transaction: a link is never mailed without
// its state, nor kept unmailed.
func (s *Store) MailAccountLink(ctx context.Context, l AccountLink, m Mail) error {
	tx, err := s.linkPuts(l, m)
	if err != nil {
		return err
	}
	// The customer lists the link, for deleting the account to delete it.
	listed, err := s.txUpdate(customerKey(l.CustomerID), customerKey(l.CustomerID),
		expression.Add(expression.Name("Links"), expression.Value(&types.AttributeValueMemberSS{Value: []string{accountLinkKey(l.Secret)}})),
		expression.AttributeExists(expression.Name(attrPK)))
	if err != nil {
		return err
	}
	tx = append(tx, listed)
	if err := s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx}); err != nil {
		return fmt.Errorf("mail account link: %w", err)
	}
	return nil
}

// AccountLink reads a link by its secret (consistent: one just mailed or
// used must read so); ErrNotFound for none of that purpose.
func (s *Store) AccountLink(ctx context.Context, purpose LinkPurpose, secret string) (AccountLink, error) {
	l, err := getItemConsistent(ctx, s, accountLinkKey(secret), accountLinkKey(secret), "link", accountLinkRecord.link)
	if err != nil {
		return AccountLink{}, err
	}
	if l.Purpose != purpose {
		return AccountLink{}, fmt.Errorf("link of another purpose: %w", ErrNotFound)
	}
	l.Secret = secret
	return l, nil
}

// useLink is the transaction item that marks a link used, on condition it
// is of purpose, unused and still valid: of two uses at once, one wins.
func (s *Store) useLink(purpose LinkPurpose, secret string, now time.Time) (types.TransactWriteItem, error) {
	return s.txUpdate(accountLinkKey(secret), accountLinkKey(secret),
		expression.Set(expression.Name("UsedAt"), expression.Value(timestamp(now))),
		expression.Name("Purpose").Equal(expression.Value(string(purpose))).
			And(expression.AttributeNotExists(expression.Name("UsedAt"))).
			And(expression.Name("ValidUntil").GreaterThan(expression.Value(now.UnixMilli()))))
}

// linkRefused explains a use whose link condition failed: read again, it
// is missing, used or expired.
func (s *Store) linkRefused(ctx context.Context, purpose LinkPurpose, secret string) error {
	l, err := s.AccountLink(ctx, purpose, secret)
	if err != nil {
		return err
	}
	if err := l.Check(s.now()); err != nil {
		return err
	}
	return fmt.Errorf("link changed meanwhile: %w", ErrLinkUsed)
}

// useLinkWith marks the link used and applies also, in one transaction;
// the link's failed condition is ErrNotFound, ErrLinkUsed or
// ErrLinkExpired, another's ErrConflict.
func (s *Store) useLinkWith(ctx context.Context, purpose LinkPurpose, secret, what string, also ...types.TransactWriteItem) error {
	use, err := s.useLink(purpose, secret, s.now())
	if err != nil {
		return err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: append([]types.TransactWriteItem{use}, also...)})
	if reasons := cancellationReasons(err); reasons != nil {
		if reasons[0] == reasonConditionFailed {
			return s.linkRefused(ctx, purpose, secret)
		}
		return fmt.Errorf("%s: the account changed meanwhile: %w", what, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// VerifyEmail uses a verification link: the link is marked used and the
// customer verified, in one transaction. A second use is ErrLinkUsed.
// The link of a sign-up with a guest checkout's email (Joins) also sets
// its password and name on that customer and on the email item sign-in
// reads, on condition the email still has no password (ErrConflict if it
// got one meanwhile): the guest's orders are the account's.
func (s *Store) VerifyEmail(ctx context.Context, secret string) (AccountLink, error) {
	l, err := s.AccountLink(ctx, LinkVerifyEmail, secret)
	if err != nil {
		return l, err
	}
	if err := l.Check(s.now()); err != nil {
		return l, err
	}
	set := expression.Set(expression.Name("EmailVerifiedAt"), expression.Value(timestamp(s.now()))).
		Remove(expression.Name("EmailUnverified"))
	if l.Joins() {
		set = set.Set(expression.Name("PasswordHash"), expression.Value(l.PasswordHash)).
			Set(expression.Name("Name"), expression.Value(l.Name)).Remove(expression.Name("Guest"))
	}
	verified, err := s.txUpdate(customerKey(l.CustomerID), customerKey(l.CustomerID), set,
		expression.Name("Email").Equal(expression.Value(l.Email)))
	if err != nil {
		return l, err
	}
	writes := []types.TransactWriteItem{verified}
	if l.Joins() {
		emailItem, err := s.txUpdate(emailKey(l.Email), emailKey(l.Email),
			expression.Set(expression.Name("PasswordHash"), expression.Value(l.PasswordHash)).
				Set(expression.Name("Name"), expression.Value(l.Name)),
			expression.Name("CustomerID").Equal(expression.Value(l.CustomerID)).
				And(expression.Name("PasswordHash").Equal(expression.Value(""))))
		if err != nil {
			return l, err
		}
		writes = append(writes, emailItem)
	}
	return l, s.useLinkWith(ctx, LinkVerifyEmail, secret, "verify email", writes...)
}

// ResetPassword uses a reset link: the link is marked used and the new
// hash set on the customer and the email item that sign-in reads, in one
// transaction; of two uses at once, one wins (ErrLinkUsed for the other).
// Ending the other sessions is the caller's next step (EndSessions).
func (s *Store) ResetPassword(ctx context.Context, secret, newHash string) (AccountLink, error) {
	l, err := s.AccountLink(ctx, LinkResetPassword, secret)
	if err != nil {
		return l, err
	}
	if err := l.Check(s.now()); err != nil {
		return l, err
	}
	set := expression.Set(expression.Name("PasswordHash"), expression.Value(newHash))
	// A guest checkout's customer who sets a password is a guest no more.
	setAndJoin := expression.Set(expression.Name("PasswordHash"), expression.Value(newHash)).Remove(expression.Name("Guest"))
	customer, err := s.txUpdate(customerKey(l.CustomerID), customerKey(l.CustomerID), setAndJoin, expression.AttributeExists(expression.Name(attrPK)))
	if err != nil {
		return l, err
	}
	emailItem, err := s.txUpdate(emailKey(l.Email), emailKey(l.Email), set, expression.Name("CustomerID").Equal(expression.Value(l.CustomerID)))
	if err != nil {
		return l, err
	}
	return l, s.useLinkWith(ctx, LinkResetPassword, secret, "reset password", customer, emailItem)
}
