package store

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// MailKind says why a mail was sent.
type MailKind string

const (
	MailReminder      MailKind = "reminder"
	MailReceipt       MailKind = "receipt"
	MailPaymentFailed MailKind = "payment_failed"
	MailCancelled     MailKind = "cancelled"
	MailRefund        MailKind = "refund" // an order's money back, or its cancellation
	// Subscription refunds, cards expiring before a payment, price changes.
	MailReceiptRefund MailKind = "receipt_refund"
	MailCardExpiring  MailKind = "card_expiring"
	MailPriceChange   MailKind = "price_change"
	// Staff's: a webhook endpoint disabled for failing (webhook_health.go).
	MailWebhookDisabled MailKind = "webhook_disabled"
	// MailDropCancelled tells a ticket holder that staff cancelled the drop
	// and the ticket is void (DropCancelMailID).
	MailDropCancelled MailKind = "drop_cancelled"
)

// MailStatus is where a mail is on its way out.
type MailStatus string

const (
	MailPending MailStatus = "pending" // waiting for the SMTP deliverer
	MailSent    MailStatus = "sent"
	MailFailed  MailStatus = "failed" // tried and refused; retried at its NextAttemptAt
	MailKept    MailStatus = "kept"   // no SMTP server configured: the outbox is the delivery
	// MailFailedForGood is a mail the deliverer gave up on after its last
	// attempt (jobs.DeliveryConfig.MaxAttempts, GiveUpAfter). It stays in the outbox, with
	// its attempts and last error for staff to read, but leaves the delivery
	// queue: newMailRecord gives GSI2 keys to pending and failed mails only, so
	// PendingMail no longer returns it.
	MailFailedForGood MailStatus = "failed_for_good"
)

// Mail is one message to a customer, kept in the outbox (the table).
type Mail struct {
	ID             string // MailID: deterministic per reason, so a rerun cannot send twice
	To             string
	Kind           MailKind
	Subject        string
	Text           string
	HTML           string
	CustomerID     string
	SubscriptionID string
	CreatedAt      time.Time
	Status         MailStatus
	Attempts       int
	LastError      string
	SentAt         time.Time
	// NextAttemptAt is when a failed mail is tried again (the deliverer's
	// backoff); the delivery queue holds it back until then.
	NextAttemptAt time.Time
	// AttachOrder and AttachReceipt name the document the mail carries as
	// a PDF: the order's invoice, or the customer's receipt of that number.
	// The PDF is rendered when the mail is sent, never kept in the outbox
	// (an item holds at most 400 KB).
	AttachOrder, AttachReceipt string
}

type mailRecord struct {
	PK             string `dynamodbav:"PK"`
	SK             string `dynamodbav:"SK"`
	EntityType     string `dynamodbav:"EntityType"`
	To             string `dynamodbav:"To"`
	Kind           string `dynamodbav:"Kind"`
	Subject        string `dynamodbav:"Subject"`
	Text           string `dynamodbav:"Text"`
	HTML           string `dynamodbav:"HTML"`
	CustomerID     string `dynamodbav:"CustomerID"`
	SubscriptionID string `dynamodbav:"SubscriptionID"`
	AttachOrder    string `dynamodbav:"AttachOrder,omitempty"`   // the order whose invoice it carries
	AttachReceipt  string `dynamodbav:"AttachReceipt,omitempty"` // the receipt (of CustomerID) it carries
	CreatedAt      string `dynamodbav:"CreatedAt"`
	Status         string `dynamodbav:"Status"`
	Attempts       int    `dynamodbav:"Attempts"`
	LastError      string `dynamodbav:"LastError,omitempty"`
	SentAt         string `dynamodbav:"SentAt,omitempty"`
	NextAttemptAt  string `dynamodbav:"NextAttemptAt,omitempty"`
	ExpiresAt      int64  `dynamodbav:"ExpiresAt"`
	GSI1PK         string `dynamodbav:"GSI1-PK"` // outbox
	GSI1SK         string `dynamodbav:"GSI1-SK"`
	GSI2PK         string `dynamodbav:"GSI2-PK,omitempty"` // mail-pending while it waits
	GSI2SK         string `dynamodbav:"GSI2-SK,omitempty"` // when it is due: created, or its next attempt; then the id
}

// mailRetention is how long the outbox keeps a mail.
const mailRetention = 180 * 24 * time.Hour

func newMailRecord(m Mail) mailRecord {
	r := mailRecord{
		PK: mailKey(m.ID), SK: mailKey(m.ID), EntityType: entityMail,
		To: m.To, Kind: string(m.Kind), Subject: m.Subject, Text: wrapMailText(m.Text, mailTextWidth), HTML: m.HTML,
		CustomerID: m.CustomerID, SubscriptionID: m.SubscriptionID, CreatedAt: timestamp(m.CreatedAt),
		AttachOrder: m.AttachOrder, AttachReceipt: m.AttachReceipt,
		Status: string(m.Status), Attempts: m.Attempts, LastError: m.LastError, ExpiresAt: m.CreatedAt.Add(mailRetention).Unix(),
		GSI1PK: partitionOutbox, GSI1SK: createdKey(m.CreatedAt, m.ID),
	}
	if !m.SentAt.IsZero() {
		r.SentAt = timestamp(m.SentAt)
	}
	if m.Status == MailPending || m.Status == MailFailed {
		due := m.CreatedAt
		if !m.NextAttemptAt.IsZero() {
			r.NextAttemptAt = timestamp(m.NextAttemptAt)
			due = m.NextAttemptAt
		}
		r.GSI2PK, r.GSI2SK = partitionMailQueue, createdKey(due, m.ID)
	}
	return r
}

func (r mailRecord) mail() Mail {
	return Mail{
		ID: trimPrefix(r.PK, prefixMail), To: r.To, Kind: MailKind(r.Kind), Subject: r.Subject, Text: r.Text, HTML: r.HTML,
		CustomerID: r.CustomerID, SubscriptionID: r.SubscriptionID, CreatedAt: parseTime(r.CreatedAt),
		Status: MailStatus(r.Status), Attempts: r.Attempts, LastError: r.LastError, SentAt: parseTime(r.SentAt),
		NextAttemptAt: parseTime(r.NextAttemptAt), AttachOrder: r.AttachOrder, AttachReceipt: r.AttachReceipt,
	}
}

// mailPut is the outbox item of a mail, on condition it was not sent before.
func (s *Store) mailPut(m Mail) (types.TransactWriteItem, error) {
	item, err := attributevalue.MarshalMap(newMailRecord(m))
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

// PutMail adds a mail to the outbox once; ErrConflict if its id was used.
func (s *Store) PutMail(ctx context.Context, m Mail) error {
	return s.putNew(ctx, newMailRecord(m), "mail "+m.ID)
}

// Outbox lists mails, newest first (GSI1: GSI1-PK=outbox).
func (s *Store) Outbox(ctx context.Context, limit int, cursor string) (Page[Mail], error) {
	return pagedQuery(ctx, s, querySpec{key: onGSI1.pkEquals(partitionOutbox), backward: true}, limit, cursor, mailRecord.mail)
}

// dottedMailID is the shape of the ids sign-up verification and password
// reset mails had until their timestamp lost its dot (see MailID):
// verify-<customer id>-20261128T011055.808. The outbox keeps mails 180
// days, so its page still opens those; nothing else takes a dot.
var dottedMailID = regexp.MustCompile(`^(?:verify|reset)-[0-9A-Za-z_-]{1,64}-[0-9]{8}T[0-9]{6}\.[0-9]{3}$`)

// OutboxID reports whether id can name a mail of the outbox: an id
// (ValidID, which every mail written now has), or an account mail's of
// before, with its dot.
func OutboxID(id string) bool { return ValidID(id) || dottedMailID.MatchString(id) }

// Mail reads one mail of the outbox by its id (PK=SK=mail#id);
// ErrNotFound if there is none.
func (s *Store) Mail(ctx context.Context, id string) (Mail, error) {
	if !OutboxID(id) {
		return Mail{}, ErrNotFound
	}
	return getItem(ctx, s, mailKey(id), mailKey(id), "mail "+id, mailRecord.mail)
}

// PendingMail lists mails due for delivery or a retry now, longest due
// first (GSI2: GSI2-PK=mail-pending, sparse; GSI2-SK up to now, the sort
// key being when each is due). A failed mail waiting out its backoff is
// not read at all, so no replica's deliverer tries it before its time.
func (s *Store) PendingMail(ctx context.Context, limit int) ([]Mail, error) {
	// Every key of this millisecond sorts below the next one's timestamp.
	upTo := onGSI2.pkAndSKBelow(partitionMailQueue, timestamp(s.now().Add(time.Millisecond)))
	p, err := pagedQuery(ctx, s, querySpec{key: upTo}, limit, "", mailRecord.mail)
	return p.Items, err
}

// MarkMail records a delivery attempt's outcome.
func (s *Store) MarkMail(ctx context.Context, m Mail) error {
	err := s.putIf(ctx, newMailRecord(m), expression.AttributeExists(expression.Name(attrPK)))
	if err != nil {
		return fmt.Errorf("mark mail %s: %w", m.ID, err)
	}
	return nil
}
