package store

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// Session is the server side of a signed-in (or form-filling) browser. The
// cookie holds only its signed id, so deleting the item revokes the cookie.
type Session struct {
	ID        string
	Data      []byte
	ExpiresAt time.Time
}

type sessionRecord struct {
	PK         string `dynamodbav:"PK"`
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	Data       []byte `dynamodbav:"Data"`
	ExpiresAt  int64  `dynamodbav:"ExpiresAt"` // TTL, epoch seconds
}

// Session reads a live session. DynamoDB deletes expired items late, so an
// expired one that is still there is ErrNotFound too.
func (s *Store) Session(ctx context.Context, id string) (Session, error) {
	// Strongly consistent: a session revoked or written a moment ago must
	// read as such on real DynamoDB too.
	r, err := getItemConsistent(ctx, s, sessionKey(id), sessionKey(id), "session", asRecord[sessionRecord])
	if err != nil {
		return Session{}, err
	}
	exp := time.Unix(r.ExpiresAt, 0)
	if !s.now().Before(exp) {
		return Session{}, fmt.Errorf("session expired: %w", ErrNotFound)
	}
	return Session{ID: id, Data: r.Data, ExpiresAt: exp}, nil
}

// SaveSession writes a session. A new one must not exist yet; an existing
// one must still exist, so a request that loaded a session before it was
// revoked cannot bring it back (ErrNotFound).
func (s *Store) SaveSession(ctx context.Context, sess Session, isNew bool) error {
	cond := expression.AttributeExists(expression.Name(attrPK))
	if isNew {
		cond = expression.AttributeNotExists(expression.Name(attrPK))
	}
	err := s.putIf(ctx, sessionRecord{
		PK: sessionKey(sess.ID), SK: sessionKey(sess.ID), EntityType: entitySession,
		Data: sess.Data, ExpiresAt: sess.ExpiresAt.Unix(),
	}, cond)
	if isConditionFailed(err) {
		if isNew {
			return fmt.Errorf("session id taken: %w", ErrConflict)
		}
		return fmt.Errorf("session revoked meanwhile: %w", ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("save session: %w", err)
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
