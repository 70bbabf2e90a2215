package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// shardedList is one list written over several partitions (its shards) so
// that no partition takes every write: the billing-due indexes, a month's
// orders, the open card checkouts. A page reads every shard in parallel,
// one Query each, and merges them in sort-key order.
type shardedList struct {
	id       string // pins a cursor to this list and its range
	shards   int
	key      func(shard int) keyCond
	backward bool // highest sort key first
}

// mergedPage reads one page of l: up to limit items after cursor, in
// sort-key order across shards. The cursor carries each shard's position
// (or that it is done), by shard number.
func mergedPage[R, T any](ctx context.Context, s *Store, l shardedList, limit int, cursor string, convert func(R) T) (Page[T], error) {
	limit = max(limit, 1)
	pos, err := decodeListsCursor(cursor, l.id)
	if err != nil {
		return Page[T]{}, err
	}
	pages, on, err := s.readShards(ctx, l, pos, limit)
	if err != nil {
		return Page[T]{}, err
	}
	items, used := mergeShards(pages, on, l.backward, limit)
	next := shardsCursor(l, pos, pages, used, on)
	out, err := unmarshalItems(items, convert)
	if err != nil {
		return Page[T]{}, err
	}
	if len(next.Done) == l.shards {
		return Page[T]{Items: out}, nil
	}
	c, err := encodeCursor(next)
	if err != nil {
		return Page[T]{}, err
	}
	return Page[T]{Items: out, Next: c}, nil
}

// shardPage is what one shard's Query returned: up to a page and one
// more, and whether the shard holds more than that.
type shardPage struct {
	items []map[string]types.AttributeValue
	more  bool
}

// readShards queries every shard of l the cursor's position is not done
// with, in parallel, each from where the position left it; on is the
// key schema the shards are read on.
func (s *Store) readShards(ctx context.Context, l shardedList, pos listsCursor, limit int) ([]shardPage, keySchema, error) {
	pages := make([]shardPage, l.shards)
	var on keySchema
	g, gctx := errgroup.WithContext(ctx)
	for n := range l.shards {
		key := l.key(n)
		on = key.on
		if slices.Contains(pos.Done, strconv.Itoa(n)) {
			continue
		}
		var start map[string]types.AttributeValue
		if after, ok := pos.After[strconv.Itoa(n)]; ok {
			var err error
			if start, err = startKey(after, key); err != nil {
				return nil, keySchema{}, err
			}
		}
		in, err := s.queryInput(querySpec{key: key, backward: l.backward})
		if err != nil {
			return nil, keySchema{}, err
		}
		g.Go(func() error {
			out, err := s.queryFrom(gctx, in, start, limit)
			if err != nil {
				return fmt.Errorf("query %s shard %s: %w", key.on.index, key.pk, err)
			}
			pages[n] = shardPage{items: out.Items, more: len(out.Items) > limit || out.LastEvaluatedKey != nil}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, keySchema{}, err
	}
	return pages, on, nil
}

// mergeShards merges the shards' pages into up to limit items in sort-key
// order (used: how many items of each shard's page were taken). A shard
// that has more than it returned bounds the page: what it holds next
// sorts after its last item read, so nothing of another shard beyond that
// may be shown yet. (A shard reads one more than a page, so only
// DynamoDB's 1 MB stop makes the bound bite.)
func mergeShards(pages []shardPage, on keySchema, backward bool, limit int) (items []map[string]types.AttributeValue, used []int) {
	order := func(a, b string) int {
		if backward {
			return cmp.Compare(b, a)
		}
		return cmp.Compare(a, b)
	}
	type entry struct {
		shard, i int
		sk       string
	}
	var all []entry
	bound, bounded := "", false
	for n, p := range pages {
		for i, it := range p.items {
			if sk, ok := it[on.skAttr].(*types.AttributeValueMemberS); ok {
				all = append(all, entry{n, i, sk.Value})
			}
		}
		if !p.more || len(p.items) == 0 {
			continue
		}
		if last, ok := p.items[len(p.items)-1][on.skAttr].(*types.AttributeValueMemberS); ok && (!bounded || order(last.Value, bound) < 0) {
			bound, bounded = last.Value, true
		}
	}
	slices.SortFunc(all, func(a, b entry) int { return cmp.Or(order(a.sk, b.sk), cmp.Compare(a.shard, b.shard)) })
	taken := all[:min(limit, len(all))]
	if bounded {
		for i, e := range taken {
			if order(e.sk, bound) > 0 {
				taken = taken[:i]
				break
			}
		}
	}
	used = make([]int, len(pages))
	items = make([]map[string]types.AttributeValue, 0, len(taken))
	for _, e := range taken {
		items = append(items, pages[e.shard].items[e.i])
		used[e.shard] = e.i + 1
	}
	return items, used
}

// shardsCursor is where the next page of l starts: each shard after the
// last item taken from it, where it was if none was, or done with when
// all of it was taken.
func shardsCursor(l shardedList, pos listsCursor, pages []shardPage, used []int, on keySchema) listsCursor {
	next := listsCursor{Query: l.id, Done: slices.Clone(pos.Done), After: map[string]map[string]string{}}
	for n := range l.shards {
		name := strconv.Itoa(n)
		if slices.Contains(pos.Done, name) {
			continue
		}
		p := pages[n]
		switch {
		case used[n] == len(p.items) && !p.more:
			next.Done = append(next.Done, name)
		case used[n] > 0:
			next.After[name] = keysOf(p.items[used[n]-1], on.cursorAttrs())
		default:
			if after, ok := pos.After[name]; ok {
				next.After[name] = after
			}
		}
	}
	return next
}
