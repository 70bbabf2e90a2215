package storetest

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
)

// CheckRestoresVariable, set to 1, has every restore of a reused table
// read the whole table after it and compare it with what the table
// started with: the run fails (Main) if a restore missed a write.
const CheckRestoresVariable = "STORETEST_CHECK_RESTORES"

// written are the keys written to the reused tables tests hold, by
// table, as every client of the process (NewClient's, for the engine)
// reports them: restore reads and puts back those items instead of
// scanning the whole table. The scan (a thousand items encoded in the
// engine and decoded here, after each of some 200 web tests) was the
// biggest part of what handing a table on cost.
var written = struct {
	sync.Mutex
	byTable map[string]*writeLog
}{byTable: map[string]*writeLog{}}

// writeLog is what was written to one table while a test held it.
type writeLog struct {
	keys map[string]map[string]types.AttributeValue
	// unknown: a write whose keys were not seen (PartiQL, a request
	// noteWrite does not know, a child process's): restore scans the
	// table whole.
	unknown string
}

var watchOnce sync.Once

// logWrites starts the log of what is written to table, from now until
// restore takes it.
func logWrites(table string) {
	watchOnce.Do(func() { store.WatchRequests(noteWrite) })
	written.Lock()
	defer written.Unlock()
	written.byTable[table] = &writeLog{keys: map[string]map[string]types.AttributeValue{}}
}

// takeWrites ends the log of table: what was written since logWrites.
func takeWrites(table string) *writeLog {
	written.Lock()
	defer written.Unlock()
	log := written.byTable[table]
	delete(written.byTable, table)
	return log
}

// WrittenElsewhere says the test's table is written by what the test's
// process does not see (a child process serving it): when the test ends
// it is put back by reading it whole.
func (e Env) WrittenElsewhere(why string) {
	written.Lock()
	defer written.Unlock()
	if log := written.byTable[e.Table]; log != nil {
		log.unknown = why
	}
}

// noteWrite logs the keys a request writes to the logged tables. What it
// does not know (a request that may write without naming its keys) makes
// every logged table's restore scan it whole.
func noteWrite(params any) {
	note := func(table *string, key map[string]types.AttributeValue) {
		if log := written.byTable[aws.ToString(table)]; log != nil {
			k := map[string]types.AttributeValue{"PK": key["PK"], "SK": key["SK"]}
			log.keys[itemKey(k)] = k
		}
	}
	unknown := func(what string) {
		for _, log := range written.byTable {
			if log.unknown == "" {
				log.unknown = what
			}
		}
	}
	written.Lock()
	defer written.Unlock()
	if len(written.byTable) == 0 {
		return
	}
	switch in := params.(type) {
	case *dynamodb.GetItemInput, *dynamodb.BatchGetItemInput, *dynamodb.QueryInput, *dynamodb.ScanInput,
		*dynamodb.TransactGetItemsInput, *dynamodb.DescribeTableInput, *dynamodb.DescribeTimeToLiveInput,
		*dynamodb.ListTablesInput, *dynamodb.CreateTableInput, *dynamodb.DeleteTableInput,
		*dynamodb.UpdateTableInput, *dynamodb.UpdateTimeToLiveInput:
		// Reads; a new table (ours exist); a dropped one is not put back;
		// a table's settings (its items stay).
	case *dynamodb.PutItemInput:
		note(in.TableName, in.Item)
	case *dynamodb.UpdateItemInput:
		note(in.TableName, in.Key)
	case *dynamodb.DeleteItemInput:
		note(in.TableName, in.Key)
	case *dynamodb.BatchWriteItemInput:
		for table, writes := range in.RequestItems {
			for _, w := range writes {
				switch {
				case w.PutRequest != nil:
					note(&table, w.PutRequest.Item)
				case w.DeleteRequest != nil:
					note(&table, w.DeleteRequest.Key)
				}
			}
		}
	case *dynamodb.TransactWriteItemsInput:
		for _, it := range in.TransactItems {
			switch {
			case it.Put != nil:
				note(it.Put.TableName, it.Put.Item)
			case it.Update != nil:
				note(it.Update.TableName, it.Update.Key)
			case it.Delete != nil:
				note(it.Delete.TableName, it.Delete.Key)
			}
		}
	default:
		unknown(fmt.Sprintf("a %T", params))
	}
}

// restoreWritten puts back what the test wrote, by the keys it wrote: each
// is read, and deleted or written again as it started. A table with
// writes whose keys are unknown is scanned whole (restore).
func restoreWritten(ctx context.Context, env Env, log *writeLog, start map[string]map[string]types.AttributeValue) error {
	if log == nil || log.unknown != "" {
		if err := restore(ctx, env, start); err != nil {
			return err
		}
		return checked(ctx, env, start)
	}
	keys := make([]map[string]types.AttributeValue, 0, len(log.keys))
	for _, k := range log.keys {
		keys = append(keys, k)
	}
	now, err := getItems(ctx, env.Client, env.Table, keys)
	if err != nil {
		return err
	}
	var writes []types.WriteRequest
	for _, key := range keys {
		k := itemKey(key)
		it, was := now[k], start[k]
		switch {
		case it == nil && was == nil:
		case was == nil:
			writes = append(writes, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key}})
		case it == nil || !itemsEqual(it, was):
			writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: was}})
		}
	}
	if err := batchWrite(ctx, env.Client, env.Table, writes); err != nil {
		return err
	}
	return checked(ctx, env, start)
}

// checked is checkRestored when CheckRestoresVariable asks for it.
func checked(ctx context.Context, env Env, start map[string]map[string]types.AttributeValue) error {
	if os.Getenv(CheckRestoresVariable) != "1" {
		return nil
	}
	return checkRestored(ctx, env, start)
}

// getItems reads the items of keys (those there are), by itemKey, 100 a
// request, consistently.
func getItems(ctx context.Context, client *dynamodb.Client, table string, keys []map[string]types.AttributeValue) (map[string]map[string]types.AttributeValue, error) {
	items := make(map[string]map[string]types.AttributeValue, len(keys))
	for batch := range slices.Chunk(keys, 100) {
		pending := map[string]types.KeysAndAttributes{table: {Keys: batch, ConsistentRead: aws.Bool(true)}}
		for len(pending) > 0 {
			out, err := client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: pending})
			if err != nil {
				return nil, fmt.Errorf("batch get: %w", err)
			}
			for _, it := range out.Responses[table] {
				items[itemKey(it)] = it
			}
			pending = out.UnprocessedKeys
		}
	}
	return items, nil
}

// restoresMissed counts the restores CheckRestoresVariable found wrong.
var restoresMissed atomic.Int32

// checkRestored reads the whole table and compares it with start: a
// difference is a write restore missed. It is counted (Main fails the
// run) and returned (the table is dropped, not handed to a test).
func checkRestored(ctx context.Context, env Env, start map[string]map[string]types.AttributeValue) error {
	diff, err := differences(ctx, env, start)
	if err != nil {
		return err
	}
	if len(diff) > 0 {
		restoresMissed.Add(1)
		fmt.Fprintf(os.Stderr, "storetest: FAIL: the restore of table %s missed writes to %q\n", env.Table, diff)
		return fmt.Errorf("restore missed %d keys", len(diff))
	}
	return nil
}

// differences are the keys whose items differ from start, scanning the
// whole table.
func differences(ctx context.Context, env Env, start map[string]map[string]types.AttributeValue) ([]string, error) {
	var diff []string
	seen := make(map[string]bool, len(start))
	p := dynamodb.NewScanPaginator(env.Client, &dynamodb.ScanInput{TableName: aws.String(env.Table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("scan: %w", err)
		}
		for _, it := range out.Items {
			key := itemKey(it)
			seen[key] = true
			if was, ok := start[key]; !ok || !itemsEqual(it, was) {
				diff = append(diff, key)
			}
		}
	}
	for key := range start {
		if !seen[key] {
			diff = append(diff, key)
		}
	}
	slices.Sort(diff)
	return diff, nil
}
