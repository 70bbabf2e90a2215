package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"shop/store"
	"shop/store/demo"
	"shop/store/payment"
	"shop/store/storetest"
	"shop/web"
)

func TestProductPageShowsStockAcrossWarehouses(t *testing.T) {
	t.Parallel()
	s := sharedShop(t)
	b := s.browser(t)
	ctx := context.Background()
	_, stock, err := s.env.Store.ProductWithStock(ctx, "cf-grinder")
	if err != nil {
		t.Fatal(err)
	}
	total := store.TotalStock(stock)
	b.get("/products") // categories are kept a minute: count a warm view
	s.env.Counter.Reset()
	p := b.get("/products/cf-grinder")
	wantStatus(t, "product page", p, http.StatusOK)
	// A new visitor: the product and its stock in one Query; the
	// add-to-cart form's CSRF token lives in the visitor cookie, not the table.
	if ops := s.env.Counter.Ops(); ops["Query"] != 1 || s.env.Counter.Total() != 1 {
		t.Errorf("a new visitor's product page made %v, want one Query", ops)
	}
	s.env.Counter.Reset()
	b.get("/products/cf-grinder")
	if n := s.env.Counter.Total(); n != 0 {
		t.Errorf("the product page again within its second made %v, want nothing (the shop window)", s.env.Counter.Ops())
	}
	if p.testid("product-name").Text() != "Hand Grinder" || !strings.Contains(p.testid("product-price").Text(), "€54.90") {
		t.Fatalf("product page: %q %q", p.testid("product-name").Text(), p.testid("product-price").Text())
	}
	if n := p.testid("stock-row").Length(); n != len(stock) {
		t.Fatalf("%d stock rows, want %d", n, len(stock))
	}
	if !strings.Contains(p.testid("stock-total").Text(), itoa(total)) {
		t.Fatalf("stock total %q, want %d", p.testid("stock-total").Text(), total)
	}
	partial := b.get("/products/cf-grinder/stock", "HX-Request", "true")
	if partial.testid("stock").Length() != 1 || partial.doc.Find("header").Length() != 0 {
		t.Fatalf("stock refresh: %s", trim(partial.body))
	}

	for _, path := range []string{"/products/no-such-product", "/products/bad%23id", "/no/such/page"} {
		p := b.get(path)
		wantStatus(t, path, p, http.StatusNotFound)
		if p.testid("error").Length() != 1 || p.doc.Find("header nav").Length() == 0 {
			t.Errorf("%s: the 404 is not a page in the layout", path)
		}
	}
}

func TestAdminIsForStaffOnly(t *testing.T) {
	t.Parallel()
	s := newShop(t)

	visitor := s.browser(t)
	p := visitor.get("/admin/warehouses")
	wantStatus(t, "visitor", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); loc != "/login?next=%2Fadmin%2Fwarehouses" {
		t.Fatalf("visitor sent to %q", loc)
	}

	customer := s.browser(t)
	customer.signIn(demo.CustomerEmail, demo.CustomerPassword)
	for _, path := range []string{"/admin", "/admin/warehouses", "/admin/warehouses/gbg"} {
		wantStatus(t, "customer at "+path, customer.get(path), http.StatusForbidden)
	}

	staff := s.browser(t)
	staff.get("/login?next=/admin/warehouses")
	if next, _ := staff.get("/login?next=/admin/warehouses").doc.Find(`input[name="next"]`).Attr("value"); next != "/admin/warehouses" {
		t.Fatalf("next not carried in the form: %q", next)
	}
	staff.signIn(demo.StaffEmail, demo.StaffPassword)
	wantStatus(t, "staff home", staff.get("/admin"), http.StatusOK)
	list := staff.get("/admin/warehouses")
	wantStatus(t, "warehouses", list, http.StatusOK)
	if n := list.testid("warehouse-row").Length(); n != 4 {
		t.Fatalf("%d warehouses listed, want 4", n)
	}
	wh := staff.get("/admin/warehouses/gbg")
	wantStatus(t, "warehouse", wh, http.StatusOK)
	if wh.testid("warehouse-name").Text() != "Göteborg Harbour" {
		t.Fatalf("warehouse name %q", wh.testid("warehouse-name").Text())
	}
	rows := wh.testid("inventory-row").Length()
	more, _ := wh.testid("inventory-more").Attr("hx-get")
	for more != "" {
		p := staff.get(more, "HX-Request", "true")
		wantStatus(t, "more inventory", p, http.StatusOK)
		rows += p.testid("inventory-row").Length()
		more, _ = p.testid("inventory-more").Attr("hx-get")
	}
	inv, err := s.env.Store.WarehouseStock(context.Background(), "gbg", 1000, "")
	if err != nil {
		t.Fatal(err)
	}
	if rows != len(inv.Items) || rows <= 25 {
		t.Fatalf("inventory pages show %d rows, the warehouse holds %d products", rows, len(inv.Items))
	}
	wantStatus(t, "unknown warehouse", staff.get("/admin/warehouses/atlantis"), http.StatusNotFound)
}

func TestDynamoDBFailureIs500WithRequestID(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	// The app over a table that does not exist: every read fails.
	base, logs := startApp(t, env, "no-such-table", [][]byte{keyA})
	b := newBrowser(t, base)
	p := b.get("/products")
	wantStatus(t, "broken store", p, http.StatusInternalServerError)
	id := p.testid("request-id").Text()
	if id == "" || p.header.Get("X-Request-ID") != id {
		t.Fatalf("500 page shows request id %q, header %q", id, p.header.Get("X-Request-ID"))
	}
	if strings.Contains(p.body, "no-such-table") || strings.Contains(p.body, "ResourceNotFound") {
		t.Fatal("the 500 page leaks the cause")
	}
	log := logs.String()
	if !strings.Contains(log, "request_id="+id) || !strings.Contains(log, "ResourceNotFoundException") {
		t.Fatalf("the log lacks the cause or the request id:\n%s", log)
	}
	wantStatus(t, "readyz on a broken store", b.get("/readyz"), http.StatusServiceUnavailable)
	wantStatus(t, "healthz on a broken store", b.get("/healthz"), http.StatusOK)
}

func TestHeadersHealthAndMetrics(t *testing.T) {
	t.Parallel()
	s := sharedShop(t)
	b := s.browser(t)
	p := b.get("/products")
	csp := p.header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
		t.Errorf("CSP = %q", csp)
	}
	for _, h := range []string{"X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy", "X-Request-ID"} {
		if p.header.Get(h) == "" {
			t.Errorf("missing header %s", h)
		}
	}
	if p.header.Get("Set-Cookie") != "" {
		t.Error("a visitor browsing the catalogue was given a session")
	}
	if p.doc.Find(`script[src^="/static/vendor/htmx.min.js?v="]`).Length() != 1 || p.doc.Find("script:not([src])").Length() != 0 {
		t.Error("htmx must be loaded from /static, with no inline script")
	}
	wantStatus(t, "htmx", b.get("/static/vendor/htmx.min.js"), http.StatusOK)
	wantStatus(t, "healthz", b.get("/healthz"), http.StatusOK)
	wantStatus(t, "readyz", b.get("/readyz"), http.StatusOK)
	m := b.get("/metrics")
	for _, want := range []string{`shop_http_requests_total{method="GET",route="/products",status="200"}`, `shop_dynamodb_requests_total{operation="Query",outcome="ok"}`} {
		if !strings.Contains(m.body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestAppNeedsGoodSessionKeys(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	for _, keys := range [][][]byte{nil, {[]byte("short")}} {
		_, err := web.New(web.Config{Store: env.Store, Payments: payment.NewProviders(testProvider(t, env.Store)), Log: slog.New(slog.NewTextHandler(io.Discard, nil)), SessionKeys: keys, BcryptCost: bcrypt.MinCost})
		if err == nil {
			t.Errorf("keys %q accepted", keys)
		}
	}
}
