package store

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
)

// What a drop that is not a product's gives is said by staff in words and a
// picture, changed after the drop is made: each its own UpdateItem of its
// own attributes, so neither undoes a claim's count or the other.

// SetDropDescription replaces a drop's description (trimmed; "" removes
// it). A DropError at "description" when it is too long; ErrNotFound if
// there is no such drop.
func (s *Store) SetDropDescription(ctx context.Context, dropID, description string) error {
	description = strings.TrimSpace(description)
	if n := utf8.RuneCountInString(description); n > MaxDropDescription {
		return &DropError{Field: "description", Kind: "description", Args: []any{"Max", MaxDropDescription},
			Msg: fmt.Sprintf("the description has at most %d characters", MaxDropDescription)}
	}
	upd := expression.Set(expression.Name("Description"), expression.Value(description))
	if description == "" {
		upd = expression.Remove(expression.Name("Description"))
	}
	return s.setDropDetail(ctx, dropID, "description", upd)
}

// SetDropPhoto records a drop's new photo (its copies are already on the
// shelf). ErrNotFound if there is no such drop.
func (s *Store) SetDropPhoto(ctx context.Context, dropID string, photo Photo) error {
	upd := expression.Set(expression.Name("PhotoKey"), expression.Value(photo.Key)).
		Set(expression.Name("PhotoFormat"), expression.Value(photo.Format)).
		Set(expression.Name("PhotoWidth"), expression.Value(photo.Width)).
		Set(expression.Name("PhotoHeight"), expression.Value(photo.Height))
	return s.setDropDetail(ctx, dropID, "photo", upd)
}

func (s *Store) setDropDetail(ctx context.Context, dropID, what string, upd expression.UpdateBuilder) error {
	defer s.forgetDrops()
	err := s.updateIf(ctx, dropKey(dropID), sortKeyDropInfo, upd, expression.AttributeExists(expression.Name(attrPK)))
	if isConditionFailed(err) {
		return fmt.Errorf("drop %s: %w", dropID, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("set %s of drop %s: %w", what, dropID, err)
	}
	return nil
}
