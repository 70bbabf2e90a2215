package store

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Customers lists customers, newest first (GSI1 PK=customers), for staff.
func (s *Store) Customers(ctx context.Context, limit int, cursor string) (Page[Customer], error) {
	return pagedQuery(ctx, s, querySpec{key: onGSI1.pkEquals(partitionCustomers), backward: true}, limit, cursor, customerRecord.customer)
}

// RenameCustomer changes the customer's name on the customer item, on the
// email item's copy that sign-in reads and in the finder items staff
// search, in one transaction (the customer and email items on condition
// they are there and still the customer's): ErrNotFound otherwise.
func (s *Store) RenameCustomer(ctx context.Context, customerID, email, name string) error {
	set := expression.Set(expression.Name("Name"), expression.Value(name))
	finders, err := s.customerFinders(Customer{ID: customerID, Email: email, Name: name})
	if err != nil {
		return err
	}
	return s.updateCustomerAndEmail(ctx, customerID, email, "rename customer", set,
		expression.Name("CustomerID").Equal(expression.Value(customerID)), finders...)
}

// ChangePassword replaces the password hash on the customer and email
// items in one transaction, on condition the email item still has the
// hash the current password was checked against: a change made meanwhile
// elsewhere is ErrConflict, not silently overwritten.
func (s *Store) ChangePassword(ctx context.Context, customerID, email, checkedHash, newHash string) error {
	set := expression.Set(expression.Name("PasswordHash"), expression.Value(newHash))
	return s.updateCustomerAndEmail(ctx, customerID, email, "change password", set,
		expression.Name("CustomerID").Equal(expression.Value(customerID)).
			And(expression.Name("PasswordHash").Equal(expression.Value(checkedHash))))
}

// updateCustomerAndEmail applies set to the customer item (on condition it
// exists) and to its email item (on condition emailCond), together.
func (s *Store) updateCustomerAndEmail(ctx context.Context, customerID, email, what string, set expression.UpdateBuilder, emailCond expression.ConditionBuilder, also ...types.TransactWriteItem) error {
	customer, err := s.txUpdate(customerKey(customerID), customerKey(customerID), set, expression.AttributeExists(expression.Name(attrPK)))
	if err != nil {
		return err
	}
	emailItem, err := s.txUpdate(emailKey(email), emailKey(email), set, emailCond)
	if err != nil {
		return err
	}
	err = s.transactWrite(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: append([]types.TransactWriteItem{customer, emailItem}, also...)})
	if reasons := cancellationReasons(err); reasons != nil {
		switch {
		case reasons[0] == reasonConditionFailed:
			return fmt.Errorf("%s: customer %s: %w", what, customerID, ErrNotFound)
		case reasons[1] == reasonConditionFailed:
			return fmt.Errorf("%s: %w", what, ErrConflict)
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
