package storetest

import (
	"context"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// itemsEqual answers as reflect.DeepEqual did for every kind of value a
// scan decodes: a restore that missed a change would hand the next test a
// table that is not the demo's.
func TestItemsEqual(t *testing.T) {
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	m := func(kv ...any) map[string]types.AttributeValue {
		out := map[string]types.AttributeValue{}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1].(types.AttributeValue)
		}
		return out
	}
	nested := func(v string) types.AttributeValue {
		return &types.AttributeValueMemberM{Value: m("l", &types.AttributeValueMemberL{Value: []types.AttributeValue{s(v), n("1")}})}
	}
	for _, tc := range []struct {
		name string
		a, b map[string]types.AttributeValue
		want bool
	}{
		{"same", m("PK", s("a"), "N", n("1")), m("PK", s("a"), "N", n("1")), true},
		{"a string changed", m("PK", s("a")), m("PK", s("b")), false},
		{"a number changed", m("N", n("1")), m("N", n("2")), false},
		{"S and N of one text", m("V", s("1")), m("V", n("1")), false},
		{"an attribute added", m("PK", s("a")), m("PK", s("a"), "X", s("")), false},
		{"one attribute for another", m("PK", s("a"), "X", s("")), m("PK", s("a"), "Y", s("")), false},
		{"bool", m("B", &types.AttributeValueMemberBOOL{Value: true}), m("B", &types.AttributeValueMemberBOOL{Value: false}), false},
		{"null", m("Z", &types.AttributeValueMemberNULL{Value: true}), m("Z", &types.AttributeValueMemberNULL{Value: true}), true},
		{"nested, same", m("M", nested("x")), m("M", nested("x")), true},
		{"nested, changed deep down", m("M", nested("x")), m("M", nested("y")), false},
		{"list longer", m("L", &types.AttributeValueMemberL{Value: []types.AttributeValue{s("a")}}), m("L", &types.AttributeValueMemberL{Value: []types.AttributeValue{s("a"), s("a")}}), false},
		{"string set", m("SS", &types.AttributeValueMemberSS{Value: []string{"a", "b"}}), m("SS", &types.AttributeValueMemberSS{Value: []string{"a", "c"}}), false},
		{"number set", m("NS", &types.AttributeValueMemberNS{Value: []string{"1"}}), m("NS", &types.AttributeValueMemberNS{Value: []string{"1"}}), true},
		{"binary", m("B", &types.AttributeValueMemberB{Value: []byte{1}}), m("B", &types.AttributeValueMemberB{Value: []byte{2}}), false},
		{"binary, same", m("B", &types.AttributeValueMemberB{Value: []byte{1}}), m("B", &types.AttributeValueMemberB{Value: []byte{1}}), true},
	} {
		if got := itemsEqual(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: itemsEqual %v, want %v", tc.name, got, tc.want)
		}
		if got := itemsEqual(tc.b, tc.a); got != tc.want {
			t.Errorf("%s, the other way: itemsEqual %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The check STORETEST_CHECK_RESTORES turns on finds an item added, one
// changed and one deleted since the start: it can fail.
func TestDifferencesFindWhatChanged(t *testing.T) {
	env := New(t)
	ctx := context.Background()
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	it := func(pk, v string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": s(pk), "SK": s("x"), "V": s(v)}
	}
	env.PutItems(t, []map[string]types.AttributeValue{it("same", "1"), it("changed", "1"), it("deleted", "1")})
	start := byKey(env.Items(t))
	if diff, err := differences(ctx, env, start); err != nil || len(diff) != 0 {
		t.Fatalf("a table as it started differs at %q (%v)", diff, err)
	}
	env.PutItems(t, []map[string]types.AttributeValue{it("changed", "2"), it("added", "1")})
	if _, err := env.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(env.Table),
		Key: map[string]types.AttributeValue{"PK": s("deleted"), "SK": s("x")}}); err != nil {
		t.Fatal(err)
	}
	diff, err := differences(ctx, env, start)
	if want := []string{"added\x00x", "changed\x00x", "deleted\x00x"}; err != nil || !reflect.DeepEqual(diff, want) {
		t.Fatalf("differences %q (%v), want %q", diff, err, want)
	}
}
