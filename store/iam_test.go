package store

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// dynamoDBCalls reads the store's own code (not its tests, not storetest)
// for the DynamoDB operations it can make: calls on the client (s.db.X),
// the SDK's paginators, and the parts a transaction is made of.
func dynamoDBCalls(t *testing.T) []string {
	t.Helper()
	found := map[string]bool{}
	parts := map[string]string{"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem", "ConditionCheck": "ConditionCheckItem"}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "storetest" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if inner, ok := sel.X.(*ast.SelectorExpr); ok && inner.Sel.Name == "db" {
					found[sel.Sel.Name] = true
				}
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "dynamodb" && strings.HasSuffix(sel.Sel.Name, "Paginator") {
					found[strings.TrimSuffix(strings.TrimPrefix(sel.Sel.Name, "New"), "Paginator")] = true
				}
			case *ast.CompositeLit:
				if sel, ok := n.Type.(*ast.SelectorExpr); ok {
					if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "types" && parts[sel.Sel.Name] != "" {
						found[parts[sel.Sel.Name]] = true
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A transaction needs no action of its own: its parts are authorised.
	delete(found, "TransactWriteItems")
	var ops []string
	for op := range found {
		ops = append(ops, "dynamodb:"+op)
	}
	slices.Sort(ops)
	return ops
}

func TestIAMPolicyGrantsExactlyWhatTheCodeCalls(t *testing.T) {
	calls := dynamoDBCalls(t)
	if len(calls) < 10 {
		t.Fatalf("found only %v: the source scan is broken", calls)
	}
	granted := slices.Concat(itemActions, tableActions)
	slices.Sort(granted)
	if !slices.Equal(calls, granted) {
		t.Fatalf("the code calls\n  %v\nthe policy grants\n  %v", calls, granted)
	}

	doc, err := IAMPolicy("shop", "eu-north-1", "123456789012")
	if err != nil {
		t.Fatal(err)
	}
	var p policyDocument
	if err := json.Unmarshal(doc, &p); err != nil {
		t.Fatal(err)
	}
	table := "arn:aws:dynamodb:eu-north-1:123456789012:table/shop"
	var resources []string
	for _, st := range p.Statement {
		for _, a := range st.Action {
			if strings.Contains(a, "*") {
				t.Errorf("statement %s grants %q", st.Sid, a)
			}
		}
		for _, r := range st.Resource {
			if strings.Contains(r, "*") || !strings.HasPrefix(r, table) {
				t.Errorf("statement %s on %q", st.Sid, r)
			}
			resources = append(resources, r)
		}
	}
	for _, g := range tableIndexes() {
		if !slices.Contains(resources, table+"/index/"+*g.IndexName) {
			t.Errorf("no statement names index %s", *g.IndexName)
		}
	}
}

func TestIAMPolicyChecksItsArguments(t *testing.T) {
	for _, tc := range []struct {
		table, region, account, want string
	}{
		{"shop", "", "", `"arn:aws:dynamodb:${aws:RequestedRegion}:${aws:PrincipalAccount}:table/shop"`},
		{"shop", "us-east-1", "", `"arn:aws:dynamodb:us-east-1:${aws:PrincipalAccount}:table/shop/index/GSI1"`},
		{"s", "", "", "error"},
		{"shop", "Mars", "", "error"},
		{"shop", "", "12345", "error"},
		{"shop*", "", "", "error"},
	} {
		doc, err := IAMPolicy(tc.table, tc.region, tc.account)
		if got := string(doc); (tc.want == "error") != (err != nil) || (err == nil && !strings.Contains(got, tc.want)) {
			t.Errorf("IAMPolicy(%q, %q, %q) = %s, %v; want %s", tc.table, tc.region, tc.account, got, err, tc.want)
		}
	}
}
