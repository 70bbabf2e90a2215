package store

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestEveryOperationIsAskedAndCountedForCapacity(t *testing.T) {
	inputs := []any{
		&dynamodb.GetItemInput{}, &dynamodb.PutItemInput{}, &dynamodb.UpdateItemInput{}, &dynamodb.DeleteItemInput{},
		&dynamodb.QueryInput{}, &dynamodb.ScanInput{}, &dynamodb.BatchGetItemInput{}, &dynamodb.BatchWriteItemInput{},
		&dynamodb.TransactWriteItemsInput{}, &dynamodb.TransactGetItemsInput{}, &dynamodb.ExecuteStatementInput{},
	}
	for _, in := range inputs {
		askCapacity(in)
		if got := capacityAsked(t, in); got != string(types.ReturnConsumedCapacityTotal) {
			t.Errorf("%T: ReturnConsumedCapacity = %q", in, got)
		}
	}
	// Inputs without the field, and odd values, are left alone.
	for _, in := range []any{&dynamodb.DescribeTableInput{}, nil, 42, (*dynamodb.GetItemInput)(nil)} {
		askCapacity(in)
	}

	unit := func(r, w float64) *types.ConsumedCapacity {
		return &types.ConsumedCapacity{ReadCapacityUnits: aws.Float64(r), WriteCapacityUnits: aws.Float64(w), CapacityUnits: aws.Float64(r + w)}
	}
	for _, c := range []struct {
		out  any
		want Capacity
	}{
		{&dynamodb.GetItemOutput{ConsumedCapacity: unit(0.5, 0)}, Capacity{Read: 0.5, Total: 0.5}},
		{&dynamodb.QueryOutput{ConsumedCapacity: unit(2, 0)}, Capacity{Read: 2, Total: 2}},
		{&dynamodb.UpdateItemOutput{ConsumedCapacity: unit(0, 1)}, Capacity{Write: 1, Total: 1}},
		{&dynamodb.PutItemOutput{}, Capacity{}},
		{&dynamodb.TransactWriteItemsOutput{ConsumedCapacity: []types.ConsumedCapacity{*unit(0, 4), *unit(1, 2)}}, Capacity{Read: 1, Write: 6, Total: 7}},
		{&dynamodb.DescribeTableOutput{}, Capacity{}},
		{nil, Capacity{}},
		{(*dynamodb.QueryOutput)(nil), Capacity{}},
	} {
		if got := consumed(c.out); got != c.want {
			t.Errorf("%T: consumed %+v, want %+v", c.out, got, c.want)
		}
	}
}

// capacityAsked reads the field as the input would be sent.
func capacityAsked(t *testing.T, in any) string {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var fields struct{ ReturnConsumedCapacity string }
	if err := json.Unmarshal(b, &fields); err != nil {
		t.Fatal(err)
	}
	return fields.ReturnConsumedCapacity
}

// The longest wait before each retry doubles from 25 ms up to 2 s; a wait
// drawn is within it.
func TestRetryBackoffDoublesUpToItsCap(t *testing.T) {
	b := jitterBackoff{base: retryBase, cap: retryCap}
	for _, tc := range []struct {
		attempt int
		want    time.Duration
	}{
		{1, 25 * time.Millisecond}, {2, 50 * time.Millisecond}, {3, 100 * time.Millisecond},
		{6, 800 * time.Millisecond}, {7, 1600 * time.Millisecond}, {8, 2 * time.Second}, {30, 2 * time.Second},
	} {
		if got := b.ceiling(tc.attempt); got != tc.want {
			t.Errorf("ceiling(%d) = %v, want %v", tc.attempt, got, tc.want)
		}
		for range 100 {
			if d, err := b.BackoffDelay(tc.attempt, nil); err != nil || d < 0 || d >= tc.want {
				t.Fatalf("BackoffDelay(%d) = %v, %v; want in [0, %v)", tc.attempt, d, err, tc.want)
			}
		}
	}
}
