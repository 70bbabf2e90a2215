package store_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The access-pattern tables (docs/access-patterns.md, and the drops' and
// the API's rows in docs/drops.md and docs/api.md) name each store method
// and the file that holds it; a method that moves or is renamed must take
// its row along. A row may name an unexported method: a pattern that only
// the store itself runs (a credit note's number, once its refund is done).
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
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && receiverIsStore(fn) {
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

// docs/design.md says which package of the shop imports which, one line a
// package; go list says what the code does. A package or an import added
// without its line (or a line left after its import went) fails here, so
// the statement a newcomer reads cannot drift from the code.
func TestDesignNamesWhatEachPackageImports(t *testing.T) {
	t.Parallel()
	said := designImports(t, "../docs/design.md")
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "shop/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	listed := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		var own []string
		for _, imp := range fields[1:] {
			if imp == "shop" || strings.HasPrefix(imp, "shop/") {
				own = append(own, shopName(imp))
			}
		}
		slices.Sort(own)
		listed[shopName(fields[0])] = own
	}
	if len(listed) < 20 {
		t.Fatalf("go list named %d packages of the shop, want them all: %s", len(listed), out)
	}
	for _, pkg := range slices.Sorted(maps.Keys(listed)) {
		imports, ok := said[pkg]
		switch {
		case !ok:
			t.Errorf("docs/design.md has no line for %s, which imports %v", pkg, listed[pkg])
		case !slices.Equal(imports, listed[pkg]):
			t.Errorf("docs/design.md says %s imports %v; go list says %v", pkg, imports, listed[pkg])
		}
	}
	for pkg := range said {
		if _, ok := listed[pkg]; !ok {
			t.Errorf("docs/design.md names %s, which go list does not know", pkg)
		}
	}
}

// shopName is a package's name as docs/design.md writes it: its path
// below the module, the module's root being main.
func shopName(importPath string) string {
	if importPath == "shop" {
		return "main"
	}
	return strings.TrimPrefix(importPath, "shop/")
}

// designImports reads the import lines of docs/design.md's section on
// packages: "pkg ──> a, b" or "pkg ──> nothing of the shop", each list
// sorted.
func designImports(t *testing.T, name string) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "## Packages and the direction of their imports")
	if !ok {
		t.Fatalf("%s has no section on packages and their imports", name)
	}
	_, block, _ := strings.Cut(section, "```\n")
	block, _, _ = strings.Cut(block, "```")
	said := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		pkg, imports, ok := strings.Cut(line, "──>")
		pkg, imports = strings.TrimSpace(pkg), strings.TrimSpace(imports)
		if !ok || pkg == "" || strings.Contains(pkg, " ") {
			t.Errorf("%s: %q is not \"package ──> imports\"", name, line)
			continue
		}
		if _, twice := said[pkg]; twice {
			t.Errorf("%s names %s on two lines", name, pkg)
		}
		var list []string
		if imports != "nothing of the shop" {
			for _, imp := range strings.Split(imports, ",") {
				list = append(list, strings.TrimSpace(imp))
			}
		}
		slices.Sort(list)
		said[pkg] = list
	}
	return said
}
