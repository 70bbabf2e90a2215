package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Session is the server side of a signed-in (or form-filling) browser. The
// cookie holds only its signed id, so deleting the item revokes the cookie.
type Session struct {
	ID        string
	Data      []byte
	ExpiresAt time.Time
	// CustomerID is who signed in ("" for a visitor's session), with the
	// device they signed in on. Both are written when the session is made
	// and never change: a sign-in always makes a new session.
	CustomerID string
	Device     string
	// SignedInAt is when the session was made; LastSeenAt when it was last
	// saved or touched (at most every few minutes, see TouchSession).
	SignedInAt time.Time
	LastSeenAt time.Time
}

// Handle names the session on the customer's own sessions page and in its
// forms: a hash of the id, so the page never shows the id itself.
func (s Session) Handle() string { return sessionHandle(s.ID) }

func sessionHandle(id string) string {
	h := sha256.Sum256([]byte(id))
	return hex.EncodeToString(h[:12])
}

// A customer's session carries the customer's id and sits in the sparse
// GSI1 list c#id#sessions by sign-in time, so "my sessions" and "end all
// their sessions" are one Query; a visitor's session has neither.
type sessionRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	Data       []byte `dynamodbav:"Data"`
	ExpiresAt  int64  `dynamodbav:"ExpiresAt"` // TTL, epoch seconds
	CustomerID string `dynamodbav:"CustomerID,omitempty"`
	Device     string `dynamodbav:"Device,omitempty"`
	CreatedAt  string `dynamodbav:"CreatedAt,omitempty"`
	LastSeenAt string `dynamodbav:"LastSeenAt,omitempty"`
	GSI1PK     string `dynamodbav:"GSI1-PK,omitempty"` // c#id#sessions
	GSI1SK     string `dynamodbav:"GSI1-SK,omitempty"` // created#id
}

func (r sessionRecord) session() Session {
	return Session{
		ID: trimPrefix(r.PK, prefixSession), Data: r.Data, ExpiresAt: time.Unix(r.ExpiresAt, 0),
		CustomerID: r.CustomerID, Device: r.Device, SignedInAt: parseTime(r.CreatedAt), LastSeenAt: parseTime(r.LastSeenAt),
	}
}

// Session reads a live session. DynamoDB deletes expired items late, so an
// expired one that is still there is ErrNotFound too.
func (s *Store) Session(ctx context.Context, id string) (Session, error) {
	// Strongly consistent: a session revoked or written a moment ago must
	// read as such on real DynamoDB too.
	sess, err := getItemConsistent(ctx, s, sessionKey(id), sessionKey(id), "session", sessionRecord.session)
	if err != nil {
		return Session{}, err
	}
	if !s.now().Before(sess.ExpiresAt) {
		return Session{}, fmt.Errorf("session expired: %w", ErrNotFound)
	}
	return sess, nil
}

// SaveSession writes a session. A new one must not exist yet and is put
// whole, with its customer and device; an existing one must still exist,
// so a request that loaded a session before it was revoked cannot bring it
// back (ErrNotFound), and only its data, expiry and last-seen time change.
func (s *Store) SaveSession(ctx context.Context, sess Session, isNew bool) error {
	now := s.now()
	if isNew {
		rec := sessionRecord{
			PK: sessionKey(sess.ID), SK: sessionKey(sess.ID), EntityType: entitySession,
			Data: sess.Data, ExpiresAt: sess.ExpiresAt.Unix(),
		}
		if sess.CustomerID != "" {
			rec.CustomerID, rec.Device = sess.CustomerID, sess.Device
			rec.CreatedAt, rec.LastSeenAt = timestamp(now), timestamp(now)
			rec.GSI1PK, rec.GSI1SK = customerSessionsKey(sess.CustomerID), createdKey(now, sess.ID)
		}
		err := s.putIf(ctx, rec, expression.AttributeNotExists(expression.Name(attrPK)))
		if isConditionFailed(err) {
			return fmt.Errorf("session id taken: %w", ErrConflict)
		}
		if err != nil {
			return fmt.Errorf("save session: %w", err)
		}
		return nil
	}
	upd := expression.Set(expression.Name("Data"), expression.Value(sess.Data)).
		Set(expression.Name(attrTTL), expression.Value(sess.ExpiresAt.Unix())).
		Set(expression.Name("LastSeenAt"), expression.Value(timestamp(now)))
	err := s.updateIf(ctx, sessionKey(sess.ID), sessionKey(sess.ID), upd, expression.AttributeExists(expression.Name(attrPK)))
	if isConditionFailed(err) {
		return fmt.Errorf("session revoked meanwhile: %w", ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("save session: %w", err)
	}
	return nil
}

// TouchSession notes that a signed-in session was used now. The web layer
// calls it only when the stored time is a few minutes old, so a customer's
// page views do not each write. A session saved before sessions carried
// their customer takes sess's customer and device here (if_not_exists),
// which puts it in the customer's list. A revoked session stays revoked
// (ErrNotFound): an update would otherwise make the item anew.
func (s *Store) TouchSession(ctx context.Context, sess Session) error {
	now := timestamp(s.now())
	ifNone := func(attr string, v any) expression.SetValueBuilder {
		return expression.IfNotExists(expression.Name(attr), expression.Value(v))
	}
	upd := expression.Set(expression.Name("LastSeenAt"), expression.Value(now))
	if sess.CustomerID != "" {
		upd = upd.Set(expression.Name("CustomerID"), ifNone("CustomerID", sess.CustomerID)).
			Set(expression.Name("Device"), ifNone("Device", sess.Device)).
			Set(expression.Name("CreatedAt"), ifNone("CreatedAt", now)).
			Set(expression.Name(attrGSI1PK), ifNone(attrGSI1PK, customerSessionsKey(sess.CustomerID))).
			Set(expression.Name(attrGSI1SK), ifNone(attrGSI1SK, createdKey(s.now(), sess.ID)))
	}
	err := s.updateIf(ctx, sessionKey(sess.ID), sessionKey(sess.ID), upd, expression.AttributeExists(expression.Name(attrPK)))
	if isConditionFailed(err) {
		return fmt.Errorf("session revoked: %w", ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("touch session: %w", err)
	}
	return nil
}

// DeleteSession revokes a session; deleting a missing one is not an error.
func (s *Store) DeleteSession(ctx context.Context, id string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(s.table), Key: itemKey(sessionKey(id), sessionKey(id)),
	})
	if err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// sessionsListed is how many sessions a customer's page shows: the newest
// sign-ins, more than anyone has devices (a session lives 14 days).
const sessionsListed = 100

// CustomerSessions is the customer's live sessions, newest sign-in first,
// in one Query of GSI1 (c#id#sessions). The index follows the table within
// a moment: a session made that moment ago may be missing.
func (s *Store) CustomerSessions(ctx context.Context, customerID string) ([]Session, error) {
	page, err := s.customerSessions(ctx, customerID, sessionsListed, "")
	return page.Items, err
}

func (s *Store) customerSessions(ctx context.Context, customerID string, limit int, cursor string) (Page[Session], error) {
	page, err := pagedQuery(ctx, s, querySpec{key: onGSI1.pkEquals(customerSessionsKey(customerID)), backward: true}, limit, cursor, sessionRecord.session)
	if err != nil {
		return Page[Session]{}, err
	}
	now := s.now()
	live := page.Items[:0]
	for _, sess := range page.Items {
		if now.Before(sess.ExpiresAt) { // expired, not yet deleted by the TTL
			live = append(live, sess)
		}
	}
	page.Items = live
	return page, nil
}

// EndSession signs one of the customer's sessions out, named by its
// handle: a Query of their sessions, then a DeleteItem on condition that
// it is still theirs. ErrNotFound if they have no such session.
func (s *Store) EndSession(ctx context.Context, customerID, handle string) error {
	sessions, err := s.CustomerSessions(ctx, customerID)
	if err != nil {
		return err
	}
	for _, sess := range sessions {
		if sess.Handle() != handle {
			continue
		}
		expr, err := expression.NewBuilder().WithCondition(expression.Name("CustomerID").Equal(expression.Value(customerID))).Build()
		if err != nil {
			return err
		}
		_, err = s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: aws.String(s.table), Key: itemKey(sessionKey(sess.ID), sessionKey(sess.ID)),
			ConditionExpression: expr.Condition(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		})
		if isConditionFailed(err) {
			return fmt.Errorf("session already ended: %w", ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("end session: %w", err)
		}
		s.tellSessionsEnded(sess.ID)
		return nil
	}
	return fmt.Errorf("session of customer %s: %w", customerID, ErrNotFound)
}

// EndSessions signs the customer out everywhere but the session keep ("":
// everywhere) and says how many sessions it ended: a Query of their
// sessions per page of 100, and a BatchWriteItem of deletes per 25.
func (s *Store) EndSessions(ctx context.Context, customerID, keep string) (int, error) {
	ended, cursor := 0, ""
	for {
		page, err := s.customerSessions(ctx, customerID, sessionsListed, cursor)
		if err != nil {
			return ended, err
		}
		var deletes []types.WriteRequest
		var ids []string
		for _, sess := range page.Items {
			if sess.ID != keep {
				deletes = append(deletes, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: itemKey(sessionKey(sess.ID), sessionKey(sess.ID))}})
				ids = append(ids, sess.ID)
			}
		}
		if err := s.batchWrite(ctx, deletes); err != nil {
			return ended, fmt.Errorf("end sessions: %w", err)
		}
		s.tellSessionsEnded(ids...)
		ended += len(deletes)
		if page.Next == "" {
			return ended, nil
		}
		cursor = page.Next
	}
}

// OnSessionsEnded has f told the ids of the sessions this process ends
// (EndSession, EndSessions; DeleteSession's caller knows its own), so that
// a cache of sessions forgets them at once. Set it before serving.
func (s *Store) OnSessionsEnded(f func(ids ...string)) { s.sessionsEnded.Store(&f) }

func (s *Store) tellSessionsEnded(ids ...string) {
	if f := s.sessionsEnded.Load(); f != nil && len(ids) > 0 {
		(*f)(ids...)
	}
}
