package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store/rules"
)

// MaxAddresses is how many addresses a customer keeps. The address book is
// one item on the customer's partition (PK=c#id, SK=addresses) whose
// Addresses map holds them and whose Default names one: the cap is the
// condition size(Addresses) < MaxAddresses of the add itself, and there is
// one default because there is one attribute, so neither needs a read
// first and parallel requests cannot pass them.
const MaxAddresses = 10

// ErrAddressBookFull is an add to a book holding MaxAddresses already.
var ErrAddressBookFull = fmt.Errorf("you can keep at most %d addresses: delete one first", MaxAddresses)

// SavedAddress is one of a customer's addresses; its Country is an ISO
// 3166-1 alpha-2 code (see Countries).
type SavedAddress struct {
	ID string
	Address
	Default bool
	AddedAt time.Time
}

// Same reports whether a is the address b, field by field (a form typed
// again, the country as a code).
func (a SavedAddress) Same(b Address) bool {
	x := a.Address
	for _, f := range [][2]string{{x.Name, b.Name}, {x.Street, b.Street}, {x.Number, b.Number}, {x.ZipCode, b.ZipCode}, {x.City, b.City}, {x.Country, b.Country}} {
		if !strings.EqualFold(strings.TrimSpace(f[0]), strings.TrimSpace(f[1])) {
			return false
		}
	}
	return true
}

// AddressBook is a customer's saved addresses, the default first, then
// oldest first.
type AddressBook struct {
	Addresses []SavedAddress
}

// Default is the default address, if there is one.
func (b AddressBook) Default() (SavedAddress, bool) {
	if len(b.Addresses) > 0 && b.Addresses[0].Default {
		return b.Addresses[0], true
	}
	return SavedAddress{}, false
}

// Find is the address of id.
func (b AddressBook) Find(id string) (SavedAddress, bool) {
	i := slices.IndexFunc(b.Addresses, func(a SavedAddress) bool { return a.ID == id })
	if i < 0 {
		return SavedAddress{}, false
	}
	return b.Addresses[i], true
}

// Full reports whether the book takes no more addresses.
func (b AddressBook) Full() bool { return len(b.Addresses) >= MaxAddresses }

type addressDoc struct {
	Name    string `dynamodbav:"Name"`
	Street  string `dynamodbav:"Street"`
	Number  string `dynamodbav:"Number"`
	ZipCode string `dynamodbav:"ZipCode"`
	City    string `dynamodbav:"City"`
	Country string `dynamodbav:"Country"`
	AddedAt string `dynamodbav:"AddedAt"`
}

type addressBookRecord struct {
	PK         string                `dynamodbav:"PK"` // c#id
	SK         string                `dynamodbav:"SK"` // addresses
	EntityType string                `dynamodbav:"EntityType"`
	Addresses  map[string]addressDoc `dynamodbav:"Addresses"`
	Default    string                `dynamodbav:"Default,omitempty"`
}

func (r addressBookRecord) book() AddressBook {
	var b AddressBook
	for id, d := range r.Addresses {
		b.Addresses = append(b.Addresses, SavedAddress{ID: id, Default: id == r.Default, AddedAt: parseTime(d.AddedAt),
			Address: Address{Name: d.Name, Street: d.Street, Number: d.Number, ZipCode: d.ZipCode, City: d.City, Country: d.Country}})
	}
	slices.SortFunc(b.Addresses, func(x, y SavedAddress) int {
		switch {
		case x.Default != y.Default:
			if x.Default {
				return -1
			}
			return 1
		case !x.AddedAt.Equal(y.AddedAt):
			return x.AddedAt.Compare(y.AddedAt)
		}
		return strings.Compare(x.ID, y.ID)
	})
	return b
}

// Addresses reads the customer's address book (one GetItem); a customer
// who saved none has an empty book.
func (s *Store) Addresses(ctx context.Context, customerID string) (AddressBook, error) {
	b, err := getItem(ctx, s, customerKey(customerID), sortKeyAddresses, "address book", addressBookRecord.book)
	if errors.Is(err, ErrNotFound) {
		return AddressBook{}, nil
	}
	return b, err
}

// errBookCondition is an address book write's failed condition (internal).
var errBookCondition = errors.New("address book condition failed")

// updateBook runs one UpdateItem on the address book and returns the book
// as it is after. On a failed condition it returns errBookCondition and the
// book as it was then (nil if there was none), from the same request.
func (s *Store) updateBook(ctx context.Context, customerID string, upd expression.UpdateBuilder, cond expression.ConditionBuilder) (*addressBookRecord, error) {
	expr, err := expression.NewBuilder().WithUpdate(upd).WithCondition(cond).Build()
	if err != nil {
		return nil, err
	}
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: itemKey(customerKey(customerID), sortKeyAddresses),
		UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(),
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	item, failed := map[string]types.AttributeValue(nil), errBookCondition
	var ccf *types.ConditionalCheckFailedException
	switch {
	case err == nil:
		item, failed = out.Attributes, nil
	case errors.As(err, &ccf):
		item = ccf.Item
	default:
		return nil, err
	}
	if len(item) == 0 {
		return nil, failed
	}
	var rec addressBookRecord
	if err := attributevalue.UnmarshalMap(item, &rec); err != nil {
		return nil, fmt.Errorf("unmarshal address book: %w", err)
	}
	return &rec, failed
}

// checkAddress refuses a country that is not a code of Countries (the
// forms check it first and say so; this keeps the table clean).
func checkAddress(a Address) error {
	if _, ok := rules.CountryName(a.Country); !ok {
		return fmt.Errorf("country %q: not an ISO 3166-1 code", a.Country)
	}
	return nil
}

// AddAddress saves a new address: one UpdateItem on condition the book
// holds fewer than MaxAddresses (ErrAddressBookFull otherwise). The first
// address, or one added asDefault, becomes the default. A customer's first
// address makes the book (a PutItem on condition there is none, after the
// update found no book: two requests).
func (s *Store) AddAddress(ctx context.Context, customerID string, a Address, asDefault bool) (SavedAddress, error) {
	if err := checkAddress(a); err != nil {
		return SavedAddress{}, err
	}
	saved := SavedAddress{ID: NewID(), Address: a, AddedAt: s.now().UTC().Truncate(time.Millisecond)}
	saved.Country = strings.ToUpper(a.Country)
	doc := addressDoc{Name: a.Name, Street: a.Street, Number: a.Number, ZipCode: a.ZipCode, City: a.City, Country: saved.Country, AddedAt: timestamp(saved.AddedAt)}
	def := expression.Name("Default")
	// A book without a default (its default was deleted) takes the new one.
	var setDefault expression.OperandBuilder = expression.IfNotExists(def, expression.Value(saved.ID))
	if asDefault {
		setDefault = expression.Value(saved.ID)
	}
	for range 5 {
		cur, err := s.updateBook(ctx, customerID,
			expression.Set(expression.Name(addressPath(saved.ID)), expression.Value(doc)).Set(def, setDefault),
			expression.AttributeExists(expression.Name(attrPK)).
				And(expression.Size(expression.Name("Addresses")).LessThan(expression.Value(MaxAddresses))))
		switch {
		case err == nil:
			saved.Default = cur != nil && cur.Default == saved.ID
			return saved, nil
		case !errors.Is(err, errBookCondition):
			return SavedAddress{}, fmt.Errorf("add address: %w", err)
		case cur != nil:
			return SavedAddress{}, ErrAddressBookFull
		}
		rec := addressBookRecord{PK: customerKey(customerID), SK: sortKeyAddresses, EntityType: entityAddressBook,
			Addresses: map[string]addressDoc{saved.ID: doc}, Default: saved.ID}
		err = s.putNew(ctx, rec, "address book")
		if errors.Is(err, ErrConflict) {
			continue // made meanwhile: add to it
		}
		if err != nil {
			return SavedAddress{}, err
		}
		saved.Default = true
		return saved, nil
	}
	return SavedAddress{}, fmt.Errorf("add address: the address book kept changing: %w", ErrConflict)
}

// UpdateAddress rewrites a saved address (its id, default and date stay):
// one UpdateItem on condition it is there, else ErrNotFound.
func (s *Store) UpdateAddress(ctx context.Context, customerID, id string, a Address) error {
	if err := checkAddress(a); err != nil {
		return err
	}
	missing := fmt.Errorf("address %s: %w", id, ErrNotFound)
	if !ValidID(id) {
		return missing
	}
	p := addressPath(id)
	upd := expression.Set(expression.Name(p+".Name"), expression.Value(a.Name)).
		Set(expression.Name(p+".Street"), expression.Value(a.Street)).
		Set(expression.Name(p+".Number"), expression.Value(a.Number)).
		Set(expression.Name(p+".ZipCode"), expression.Value(a.ZipCode)).
		Set(expression.Name(p+".City"), expression.Value(a.City)).
		Set(expression.Name(p+".Country"), expression.Value(strings.ToUpper(a.Country)))
	_, err := s.updateBook(ctx, customerID, upd, expression.AttributeExists(expression.Name(p)))
	switch {
	case errors.Is(err, errBookCondition):
		return missing
	case err != nil:
		return fmt.Errorf("update address: %w", err)
	}
	return nil
}

// SetDefaultAddress makes a saved address the default: one UpdateItem of
// the book's one Default on condition the address is there (ErrNotFound),
// so the default never names an address deleted meanwhile.
func (s *Store) SetDefaultAddress(ctx context.Context, customerID, id string) error {
	missing := fmt.Errorf("address %s: %w", id, ErrNotFound)
	if !ValidID(id) {
		return missing
	}
	_, err := s.updateBook(ctx, customerID, expression.Set(expression.Name("Default"), expression.Value(id)),
		expression.AttributeExists(expression.Name(addressPath(id))))
	switch {
	case errors.Is(err, errBookCondition):
		return missing
	case err != nil:
		return fmt.Errorf("set default address: %w", err)
	}
	return nil
}

// DeleteAddress deletes a saved address (ErrNotFound if it is not there).
// The default goes with it in the same UpdateItem: a delete is on condition
// the address is not the default, or, when it is, removes Default too on
// condition it still names it. So a default set meanwhile is never lost
// and never left naming nothing. Usually one request; two when the
// first guess about the default was wrong.
func (s *Store) DeleteAddress(ctx context.Context, customerID, id string) error {
	missing := fmt.Errorf("address %s: %w", id, ErrNotFound)
	if !ValidID(id) {
		return missing
	}
	p, def := expression.Name(addressPath(id)), expression.Name("Default")
	isDefault := false
	for range 5 {
		upd := expression.Remove(p)
		cond := expression.AttributeExists(p).And(expression.Or(expression.AttributeNotExists(def), def.NotEqual(expression.Value(id))))
		if isDefault {
			upd = upd.Remove(def)
			cond = expression.AttributeExists(p).And(def.Equal(expression.Value(id)))
		}
		cur, err := s.updateBook(ctx, customerID, upd, cond)
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, errBookCondition):
			return fmt.Errorf("delete address: %w", err)
		case cur == nil:
			return missing
		}
		if _, ok := cur.Addresses[id]; !ok {
			return missing
		}
		isDefault = cur.Default == id
	}
	return fmt.Errorf("delete address: the address book kept changing: %w", ErrConflict)
}
