package web_test

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/crypto/bcrypt"

	"shop/static"
	"shop/store"
	"shop/store/dropgate"
	"shop/store/payment"
	stripepay "shop/store/payment/stripe"
	"shop/store/storetest"
	"shop/web"
	"shop/web/paths"
)

// route is one registered route: its method and Fiber pattern, and the
// pattern as a regular expression over a request's (escaped) path.
type route struct {
	method, pattern string
	re              *regexp.Regexp
}

// routeTable is what the app routes, middleware (Use) left out: a path
// only a catch-all would take is no route.
type routeTable []route

// appRoutes builds the app over st in test mode and in Stripe's mode,
// without serving it, and returns their routes. The routes do not depend
// on the configuration, but for the card providers' (the test provider's
// pages and webhook in test mode, Stripe's webhook in its mode).
func appRoutes(t testing.TB, st *store.Store) routeTable {
	t.Helper()
	provider, err := payment.NewTestProvider(context.Background(), st, "")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := stripepay.New(stripepay.Config{SecretKey: "sk_test_routes", WebhookSecret: "whsec_routes"})
	if err != nil {
		t.Fatal(err)
	}
	refundsOnly := *provider
	refundsOnly.RefundsOnly = true
	var rt routeTable
	for _, providers := range []payment.Providers{payment.NewProviders(provider), payment.NewProviders(sp, &refundsOnly)} {
		app, err := web.New(web.Config{
			Store: st, Log: discardLog(),
			SessionKeys: [][]byte{keyA}, BcryptCost: bcrypt.MinCost,
			Gate:     dropgate.New(st, nil), // not refreshed: nothing is served
			Payments: providers, PaymentEvents: &recordedEvents{},
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = app.Shutdown() }) // stops the API key cache
		for _, r := range app.GetRoutes(true) {
			if r.Method == fiber.MethodHead {
				continue // Fiber adds one for every GET
			}
			if !slices.ContainsFunc(rt, func(had route) bool { return had.method == r.Method && had.pattern == r.Path }) {
				rt = append(rt, route{method: r.Method, pattern: r.Path, re: fiberPattern(r.Path)})
			}
		}
	}
	if len(rt) < 50 {
		t.Fatalf("only %d routes: %v", len(rt), rt)
	}
	return rt
}

var fiberParam = regexp.MustCompile(`:\w+`)

// fiberPattern turns a Fiber route pattern into a regular expression the
// way Fiber matches with the app's settings: case-insensitive, a trailing
// slash optional; ":name" is one segment, ":name?" an optional one, "*" any
// rest (or none), "+" any rest of at least one character.
func fiberPattern(pattern string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?i)^")
	for _, seg := range strings.Split(strings.Trim(pattern, "/"), "/") {
		switch {
		case seg == "":
		case seg == "*":
			b.WriteString(`(?:/.*)?`)
		case seg == "+":
			b.WriteString(`/.+`)
		case strings.HasPrefix(seg, ":") && strings.HasSuffix(seg, "?"):
			b.WriteString(`(?:/[^/]+)?`)
		default:
			b.WriteString("/")
			last := 0
			for _, m := range fiberParam.FindAllStringIndex(seg, -1) {
				b.WriteString(regexp.QuoteMeta(seg[last:m[0]]))
				b.WriteString(`[^/]+`)
				last = m[1]
			}
			b.WriteString(strings.ReplaceAll(regexp.QuoteMeta(seg[last:]), `\*`, `.*`))
		}
	}
	b.WriteString("/?$")
	return regexp.MustCompile(b.String())
}

// match returns the pattern of the first route of the method that takes
// the path (without its query), or "".
func (rt routeTable) match(method, path string) string {
	path, _, _ = strings.Cut(path, "?")
	for _, r := range rt {
		if r.method == method && r.re.MatchString(path) {
			return r.pattern
		}
	}
	return ""
}

// staticFile reports whether a /static/ path names a file the app serves.
func staticFile(path string) bool {
	path, _, _ = strings.Cut(path, "?")
	name, ok := strings.CutPrefix(path, "/static/")
	if !ok {
		return false
	}
	st, err := fs.Stat(static.FS, name)
	return err == nil && !st.IsDir()
}

func TestFiberPatternMatchesAsFiberDoes(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"/", "/", true},
		{"/", "/products", false},
		{"/admin/", "/admin", true},
		{"/admin", "/admin/", true},
		{"/products/:id", "/products/cf-light", true},
		{"/products/:id", "/Products/cf-light/", true},
		{"/products/:id", "/products", false},
		{"/products/:id", "/products/a/b", false},
		{"/products/:id", "/products/a%2Fb", true},
		{"/admin/orders.csv", "/admin/orders.csv", true},
		{"/admin/orders.csv", "/admin/ordersxcsv", false},
		{"/admin/drops/:id/tickets.csv", "/admin/drops/d1/tickets.csv", true},
		{"/receipts/:number?", "/receipts", true},
		{"/receipts/:number?", "/receipts/R1", true},
		{"/static/*", "/static/css/shop.css", true},
		{"/static/*", "/static", true},
		{"/files/+", "/files", false},
		{"/files/+", "/files/a/b", true},
	} {
		if got := fiberPattern(c.pattern).MatchString(c.path); got != c.want {
			t.Errorf("%s against %s: %v, want %v", c.path, c.pattern, got, c.want)
		}
	}
}

// Every route is registered with a pattern of web/paths, and every
// pattern there is routed: routes.go writes no path of its own, and a
// builder that fills its route's pattern (Order fills OrderPattern, and
// gives it as many values as it has parameters) cannot lead elsewhere
// than that route, whatever its values (fill keeps each one segment, see
// web/paths). What a builder does beyond filling a pattern with its
// arguments (a query after the path, a segment made of several values, a
// choice between paths) is held to a route of the method its users send
// case by case here, with values that need escaping; and every such
// builder is here.
func TestPathsMeetRoutes(t *testing.T) {
	t.Parallel()
	rt := appRoutes(t, storetest.New(t).Store)
	src := readPaths(t)

	routed := map[string]bool{}
	for _, r := range rt {
		routed[r.pattern] = true
		if !slices.Contains(src.patterns, r.pattern) {
			t.Errorf("route %s %s: its pattern is not one of web/paths", r.method, r.pattern)
		}
	}
	for name, p := range src.byName {
		if !routed[p] {
			t.Errorf("paths.%s = %q: no route has this pattern", name, p)
		}
	}
	for _, bad := range src.problems {
		t.Error(bad)
	}
	for _, lit := range routedLiterals(t) {
		t.Errorf("routes.go routes %s: a pattern is written in web/paths, once", lit)
	}

	const id, id2 = "x/y z", "run 7?" // escaped, each stays one segment
	get := http.MethodGet
	cases := []struct {
		name, method, path string
	}{
		{"Category", get, paths.Category("coffee & tea")},
		{"CatalogueList", get, paths.CatalogueList("coffee", "price-desc", 3)},
		{"LoginThen", get, paths.LoginThen(paths.Product(id))},
		{"GuestOrder", get, paths.GuestOrder(id, "1.sig")},
		{"SubscribePreviewOf", get, paths.SubscribePreviewOf(id)},
		{"CheckoutTo", get, paths.CheckoutTo(id)},
		{"PasswordResetLink", get, paths.PasswordResetLink(id)},
		{"EmailVerifyLink", get, paths.EmailVerifyLink(id)},
		{"Photo", get, paths.Photo(id, 640, "jpg")},
		{"DrawnPicture", get, paths.DrawnPicture(id, id2)},
		{"AdminOrdersCSV", get, paths.AdminOrdersCSV("2031-01-01", "2031-01-31")},
		{"AdminShipmentsIn", get, paths.AdminShipmentsIn("shipped")},
		{"AdminSubscriptionsIn", get, paths.AdminSubscriptionsIn("paused")},
		{"AdminArchiveFile", get, paths.AdminArchiveFile("2026-10", "receipts", "csv")},
		{"AdminReturnsIn", get, paths.AdminReturnsIn("received")},
	}
	tested := map[string]bool{"WithQuery": true, "More": true} // build on the others; web/paths tests them
	for _, c := range cases {
		tested[c.name] = true
		if !strings.HasPrefix(c.path, "/") || strings.Contains(c.path, "//") {
			t.Errorf("%s: %q is not a path of this site", c.name, c.path)
		}
		if rt.match(c.method, c.path) == "" {
			t.Errorf("%s: no %s route takes %s", c.name, c.method, c.path)
		}
	}
	tested["Static"] = true
	if p := paths.Static("css/shop.css"); !staticFile(p) {
		t.Errorf("Static: %s is no file of static/", p)
	}

	// A builder added to web/paths that does more than fill a pattern
	// with its arguments, and has no case here, fails.
	var missing []string
	for _, name := range src.builders {
		if !tested[name] && !src.fillsOnly[name] {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("builders of web/paths with no case in this test (nor fill the pattern of their name): %v", missing)
	}
}

// routedLiterals are the routes routes.go registers with a path written
// there (app.Get("/orders/:id", …)) rather than a pattern of web/paths.
func routedLiterals(t testing.TB) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "routes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !slices.Contains([]string{"Get", "Post", "Put", "Patch", "Delete", "Head", "All"}, sel.Sel.Name) {
			return true
		}
		if lit, ok := call.Args[0].(*ast.BasicLit); ok {
			out = append(out, lit.Value)
		}
		return true
	})
	return out
}

// pathsSource is what web/paths declares, read from its source.
type pathsSource struct {
	byName    map[string]string // the patterns: exported constants of a path
	patterns  []string
	builders  []string        // the exported funcs
	fillsOnly map[string]bool // builders X that are return fill(XPattern, their arguments...)
	problems  []string
}

// readPaths reads web/paths: its patterns (each one string literal), its
// builders, and whether each call of fill gives its pattern as many values
// as the pattern has parameters.
func readPaths(t testing.TB) pathsSource {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("paths", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the sources of web/paths: %v %v", files, err)
	}
	src := pathsSource{byName: map[string]string{}, fillsOnly: map[string]bool{}}
	var funcs []*ast.FuncDecl
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					src.builders = append(src.builders, d.Name.Name)
					funcs = append(funcs, d)
				}
			case *ast.GenDecl:
				src.readConsts(d)
			}
		}
	}
	for _, p := range src.byName {
		src.patterns = append(src.patterns, p)
	}
	for _, f := range funcs {
		src.readBuilder(f)
	}
	return src
}

// readConsts takes the exported constants of a declaration as patterns:
// each must be one string literal, a path.
func (src *pathsSource) readConsts(d *ast.GenDecl) {
	if d.Tok != token.CONST {
		return
	}
	for _, s := range d.Specs {
		v := s.(*ast.ValueSpec)
		for i, n := range v.Names {
			if !n.IsExported() {
				continue
			}
			var lit *ast.BasicLit
			if i < len(v.Values) {
				lit, _ = v.Values[i].(*ast.BasicLit)
			}
			p, err := strconv.Unquote(litValue(lit))
			if lit == nil || lit.Kind != token.STRING || err != nil || !strings.HasPrefix(p, "/") {
				src.problems = append(src.problems, fmt.Sprintf("paths.%s: a pattern is one string literal, a path", n.Name))
				continue
			}
			src.byName[n.Name] = p
		}
	}
}

func litValue(lit *ast.BasicLit) string {
	if lit == nil {
		return ""
	}
	return lit.Value
}

// readBuilder checks each call of fill in a builder: a pattern, and as
// many values as it has parameters. A builder X whose body is only
// "return fill(XPattern, a, b)" of its own arguments meets its route by
// construction.
func (src *pathsSource) readBuilder(f *ast.FuncDecl) {
	ast.Inspect(f.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || !isIdent(call.Fun, "fill") {
			return true
		}
		arg, _ := call.Args[0].(*ast.Ident)
		pattern, known := "", arg != nil
		if known {
			pattern, known = src.byName[arg.Name]
		}
		switch {
		case !known:
			src.problems = append(src.problems, fmt.Sprintf("%s: fill's first argument is not a pattern of web/paths", f.Name.Name))
		case strings.Count(pattern, "/:") != len(call.Args)-1:
			src.problems = append(src.problems, fmt.Sprintf("%s: %d values for %s, which has %d parameters",
				f.Name.Name, len(call.Args)-1, pattern, strings.Count(pattern, "/:")))
		}
		return true
	})
	if len(f.Body.List) != 1 {
		return
	}
	ret, ok := f.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	if !ok || !isIdent(call.Fun, "fill") || !isIdent(call.Args[0], f.Name.Name+"Pattern") {
		return
	}
	var params []string
	for _, field := range f.Type.Params.List {
		for _, n := range field.Names {
			params = append(params, n.Name)
		}
	}
	for i, a := range call.Args[1:] {
		if i >= len(params) || !isIdent(a, params[i]) {
			return
		}
	}
	src.fillsOnly[f.Name.Name] = len(call.Args)-1 == len(params)
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
