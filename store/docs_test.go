package store_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The access-pattern tables (docs/access-patterns.md, and the drops' and
// the API's rows in docs/drops.md and docs/api.md) name each store method
// and the file that holds it; a method that moves or is renamed must take
// its row along.
func TestDocsNameTheFileOfEveryStoreMethod(t *testing.T) {
	t.Parallel()
	docs, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, name := range append([]string{"../README.md"}, docs...) {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		text.Write(raw)
		text.WriteString("\n")
	}
	fset := token.NewFileSet()
	defined := map[string]string{} // method -> file
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && fn.Name.IsExported() && receiverIsStore(fn) {
				defined[fn.Name.Name] = name
			}
		}
	}
	code := regexp.MustCompile("`(\\w+)(?:\\([^`]*\\))?`")
	rows := 0
	inTable := false
	for _, line := range strings.Split(text.String(), "\n") {
		if !strings.HasPrefix(line, "|") {
			inTable = false
			continue
		}
		if strings.Contains(line, "| store method | file |") {
			inTable = true
			continue
		}
		if !inTable || strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(line, "|")
		methods, fileCell := cells[len(cells)-3], cells[len(cells)-2]
		rows++
		for _, m := range code.FindAllStringSubmatch(methods, -1) {
			file, ok := defined[m[1]]
			switch {
			case !ok:
				t.Errorf("the docs name %s, which the store does not have: %s", m[1], line)
			case !strings.Contains(fileCell, "`"+file+"`"):
				t.Errorf("docs: %s is in %s, the row says %q", m[1], file, strings.TrimSpace(fileCell))
			}
		}
	}
	if rows < 60 {
		t.Fatalf("read %d rows of access patterns from the README and docs/; their tables changed shape", rows)
	}
}

// receiverIsStore reports whether fn is a method of *Store (the tables name
// the store's methods, not those of the types it returns).
func receiverIsStore(fn *ast.FuncDecl) bool {
	star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	id, ok := star.X.(*ast.Ident)
	return ok && id.Name == "Store"
}
