package store

import (
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// mergeShards is the page a sharded list shows: the shards' items in
// sort-key order, cut at limit and at the bound a shard with more sets
// (nothing sorting after its last item read may show yet).
func TestMergeShards(t *testing.T) {
	page := func(more bool, sks ...string) shardPage {
		p := shardPage{more: more}
		for _, sk := range sks {
			p.items = append(p.items, map[string]types.AttributeValue{attrSK: &types.AttributeValueMemberS{Value: sk}})
		}
		return p
	}
	for _, tc := range []struct {
		name     string
		pages    []shardPage
		backward bool
		limit    int
		want     []string
		used     []int
	}{
		{name: "in sort-key order across shards", pages: []shardPage{page(false, "a", "c"), page(false, "b", "d")}, limit: 10,
			want: []string{"a", "b", "c", "d"}, used: []int{2, 2}},
		{name: "highest first when backward", pages: []shardPage{page(false, "c", "a"), page(false, "d", "b")}, backward: true, limit: 10,
			want: []string{"d", "c", "b", "a"}, used: []int{2, 2}},
		{name: "cut at the limit", pages: []shardPage{page(false, "a", "c"), page(false, "b", "d")}, limit: 3,
			want: []string{"a", "b", "c"}, used: []int{2, 1}},
		{name: "a shard with more bounds the page", pages: []shardPage{page(true, "a", "b"), page(false, "c", "d")}, limit: 10,
			want: []string{"a", "b"}, used: []int{2, 0}},
		{name: "the lowest bound of two", pages: []shardPage{page(true, "a", "e"), page(true, "b", "c"), page(false, "d")}, limit: 10,
			want: []string{"a", "b", "c"}, used: []int{1, 2, 0}},
		{name: "equal keys: the lower shard first", pages: []shardPage{page(false, "a"), page(false, "a")}, limit: 10,
			want: []string{"a", "a"}, used: []int{1, 1}},
		{name: "a shard done or empty", pages: []shardPage{{}, page(false, "a")}, limit: 10,
			want: []string{"a"}, used: []int{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items, used := mergeShards(tc.pages, onTable, tc.backward, tc.limit)
			var got []string
			for _, it := range items {
				got = append(got, it[attrSK].(*types.AttributeValueMemberS).Value)
			}
			if !slices.Equal(got, tc.want) || !slices.Equal(used, tc.used) {
				t.Errorf("items %v, used %v; want %v, %v", got, used, tc.want, tc.used)
			}
		})
	}
}
