package store

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A shipment number is what is written on the parcel and read out on the
// phone: "SH-7K3Q92", the order numbers' alphabet (order_number.go). It is
// drawn at random when the shipment is made and written in the
// transaction that makes it, with an item of its own on condition the
// number is free (as an order's number is); a number taken meanwhile is
// drawn again. Shipments from before numbers (and imported ones) have none.
const shipmentNumberPrefix = "SH-"

func newShipmentNumber() string {
	return shipmentNumberPrefix + newOrderNumber()[len(orderNumberPrefix):]
}

// shipmentNumberRecord holds a shipment number taken: which shipment of
// which order it names.
type shipmentNumberRecord struct {
	PK         string `dynamodbav:"PK"` // shno#SH-XXXXXX
	SK         string `dynamodbav:"SK"`
	EntityType string `dynamodbav:"EntityType"`
	ShipmentID string `dynamodbav:"ShipmentID"`
	OrderID    string `dynamodbav:"OrderID"`
}

func shipmentNumberKey(number string) string { return prefixShipNo + number }

func newShipmentNumberRecord(sh Shipment) shipmentNumberRecord {
	k := shipmentNumberKey(sh.Number)
	return shipmentNumberRecord{PK: k, SK: k, EntityType: entityShipmentNumber, ShipmentID: sh.ID, OrderID: sh.OrderID}
}

// numberShipments gives each shipment a number drawn afresh, none twice
// among them (one transaction cannot write one item twice).
func (s *Store) numberShipments(shipments []*Shipment) {
	seen := map[string]bool{}
	for _, sh := range shipments {
		n := s.shipmentNumbers()
		for seen[n] {
			n = s.shipmentNumbers()
		}
		seen[n] = true
		sh.Number = n
	}
}

// shipmentNumberPut is the put of a shipment's number item, on condition
// the number is free.
func (s *Store) shipmentNumberPut(sh Shipment) (types.TransactWriteItem, error) {
	item, err := attributevalue.MarshalMap(newShipmentNumberRecord(sh))
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table), Item: item,
		ConditionExpression: aws.String("attribute_not_exists(PK)")}}, nil
}

// Label is how a shipment is named to people: its number, or "" for a
// shipment from before numbers (the views name those otherwise).
func (sh Shipment) Label() string { return sh.Number }
