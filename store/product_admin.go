package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// CreateProduct adds a product to the catalogue; ErrConflict if the id is
// taken.
func (s *Store) CreateProduct(ctx context.Context, p Product) (Product, error) {
	if p.ID == "" {
		p.ID = NewID()
	}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = s.now()
	}
	defer s.forgetProducts(p.ID)
	return p, s.putNew(ctx, newProductRecord(p), "product "+p.ID)
}

// UpdateProduct saves a product's name, description (and their texts in
// the other languages), category, price, monthly subscription price (0 or not Subscribable: not subscribable) and free trial. A
// new name is copied onto its stock levels in the same transaction, so the
// inventory pages never show the old one.
func (s *Store) UpdateProduct(ctx context.Context, p Product) error {
	defer s.forgetProducts(p.ID)
	old, stock, err := s.ProductWithStock(ctx, p.ID)
	if err != nil {
		return err
	}
	p.CreatedAt = old.CreatedAt
	p.Photo = old.Photo // the photo is SetProductPhoto's to change
	item, err := attributevalue.MarshalMap(newProductRecord(p))
	if err != nil {
		return err
	}
	// Saved only over the product as it was read: two staff editing at once
	// do not silently overwrite each other (ErrConflict). The monthly price
	// is absent from the item when the product is not subscribable.
	monthly := expression.AttributeNotExists(expression.Name("MonthlyPrice"))
	if m := subscriptionPrice(old); m > 0 {
		monthly = expression.Name("MonthlyPrice").Equal(expression.Value(m))
	}
	// The photo is saved as it was read too: an upload meanwhile is kept,
	// not overwritten by the edit's copy of the item.
	photo := expression.AttributeNotExists(expression.Name("PhotoKey"))
	if old.Photo.Key != "" {
		photo = expression.Name("PhotoKey").Equal(expression.Value(old.Photo.Key))
	}
	texts := expression.AttributeNotExists(expression.Name("Texts"))
	if t := productTexts(old.Texts); t != nil {
		texts = expression.Name("Texts").Equal(expression.Value(t))
	}
	trial := expression.AttributeNotExists(expression.Name("TrialDays"))
	if d := trialDays(old); d > 0 {
		trial = expression.Name("TrialDays").Equal(expression.Value(d))
	}
	cond, err := expression.NewBuilder().WithCondition(
		expression.Name("Name").Equal(expression.Value(old.Name)).
			And(expression.Name("Description").Equal(expression.Value(old.Description))).
			And(expression.Name("Category").Equal(expression.Value(old.Category))).
			And(expression.Name("Price").Equal(expression.Value(old.Price.Amount))).
			And(expression.Name("Currency").Equal(expression.Value(old.Price.Currency))).
			And(monthly).And(trial).And(photo).And(texts)).Build()
	if err != nil {
		return err
	}
	tx := []types.TransactWriteItem{{Put: &types.Put{
		TableName: aws.String(s.table), Item: item,
		ConditionExpression: cond.Condition(), ExpressionAttributeNames: cond.Names(), ExpressionAttributeValues: cond.Values(),
	}}}
	if old.Name != p.Name {
		rename, err := expression.NewBuilder().WithUpdate(expression.Set(expression.Name("ProductName"), expression.Value(p.Name))).
			WithCondition(expression.AttributeExists(expression.Name(attrPK))).Build()
		if err != nil {
			return err
		}
		for _, l := range stock {
			tx = append(tx, types.TransactWriteItem{Update: &types.Update{
				TableName: aws.String(s.table), Key: itemKey(productKey(p.ID), warehouseKey(l.WarehouseID)),
				UpdateExpression: rename.Update(), ConditionExpression: rename.Condition(),
				ExpressionAttributeNames: rename.Names(), ExpressionAttributeValues: rename.Values(),
			}})
		}
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx})
	if cancellationReasons(err) != nil {
		return fmt.Errorf("product %s changed meanwhile: %w", p.ID, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("update product: %w", err)
	}
	return nil
}

// SetProductPhoto records a product's new photo (its copies are already on
// the shelf): one UpdateItem of the photo's attributes alone, so an edit of
// the product at the same time is not undone. ErrNotFound if there is no
// such product.
func (s *Store) SetProductPhoto(ctx context.Context, productID string, photo Photo) error {
	defer s.forgetProducts(productID)
	upd := expression.Set(expression.Name("PhotoKey"), expression.Value(photo.Key)).
		Set(expression.Name("PhotoFormat"), expression.Value(photo.Format)).
		Set(expression.Name("PhotoWidth"), expression.Value(photo.Width)).
		Set(expression.Name("PhotoHeight"), expression.Value(photo.Height))
	err := s.updateIf(ctx, productKey(productID), productKey(productID), upd, expression.AttributeExists(expression.Name(attrPK)))
	if isConditionFailed(err) {
		return fmt.Errorf("product %s: %w", productID, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("set photo of product %s: %w", productID, err)
	}
	return nil
}
