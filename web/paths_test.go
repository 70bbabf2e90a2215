package web_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
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

// Every builder of web/paths leads to a route of the method its users
// send, even with an id that needs escaping; and every builder is here.
func TestPathsMeetRoutes(t *testing.T) {
	rt := appRoutes(t, storetest.New(t).Store)
	const id, id2 = "x/y z", "run 7?" // escaped, each stays one segment
	get, post := http.MethodGet, http.MethodPost
	cases := []struct {
		name, method, path string
	}{
		{"Home", get, paths.Home},
		{"Catalogue", get, paths.Catalogue},
		{"Category", get, paths.Category("coffee & tea")},
		{"CatalogueList", get, paths.CatalogueList("coffee", "price-desc", 3)},
		{"Product", get, paths.Product(id)},
		{"Search", get, paths.Search},
		{"ProductStock", get, paths.ProductStock(id)},
		{"Signup", get, paths.Signup},
		{"Signup", post, paths.Signup},
		{"Login", get, paths.Login},
		{"Login", post, paths.Login},
		{"LoginThen", get, paths.LoginThen(paths.Product(id))},
		{"Logout", post, paths.Logout},
		{"Cart", get, paths.Cart},
		{"CartItems", post, paths.CartItems},
		{"CartItem", post, paths.CartItem(id)},
		{"CartItemRemove", post, paths.CartItemRemove(id)},
		{"CartTicketRemove", post, paths.CartTicketRemove(id)},
		{"Checkout", get, paths.Checkout},
		{"Checkout", post, paths.Checkout},
		{"CheckoutSummary", post, paths.CheckoutSummary},
		{"Orders", get, paths.Orders},
		{"Order", get, paths.Order(id)},
		{"OrderCancel", get, paths.OrderCancel(id)},
		{"OrderInvoicePDF", get, paths.OrderInvoicePDF(id)},
		{"OrderCreditNotePDF", get, paths.OrderCreditNotePDF(id, id2)},
		{"OrderCancel", post, paths.OrderCancel(id)},
		{"GuestOrder", get, paths.GuestOrder(id, "1.sig")},
		{"Subscriptions", get, paths.Subscriptions},
		{"Subscriptions", post, paths.Subscriptions},
		{"SubscribePreview", get, paths.SubscribePreview},
		{"SubscribePreviewOf", get, paths.SubscribePreviewOf(id)},
		{"SubscriptionDay", post, paths.SubscriptionDay(id)},
		{"SubscriptionPeriod", post, paths.SubscriptionPeriod(id)},
		{"SubscriptionCard", post, paths.SubscriptionCard(id)},
		{"SubscriptionSkip", post, paths.SubscriptionSkip(id)},
		{"SubscriptionPause", post, paths.SubscriptionPause(id)},
		{"SubscriptionResume", post, paths.SubscriptionResume(id)},
		{"SubscriptionCancel", post, paths.SubscriptionCancel(id)},
		{"SubscriptionKeep", post, paths.SubscriptionKeep(id)},
		{"SubscriptionSwap", get, paths.SubscriptionSwap(id)},
		{"SubscriptionSwap", post, paths.SubscriptionSwap(id)},
		{"SubscriptionPay", post, paths.SubscriptionPay(id)},
		{"Receipts", get, paths.Receipts},
		{"Receipt", get, paths.Receipt(id)},
		{"ReceiptPDF", get, paths.ReceiptPDF(id)},
		{"ReceiptCreditNotePDF", get, paths.ReceiptCreditNotePDF(id, "CN2026-000001")},
		{"Drops", get, paths.Drops},
		{"Drop", get, paths.Drop(id)},
		{"DropCount", get, paths.DropCount(id)},
		{"DropClaim", get, paths.DropClaim(id)},
		{"DropClaim", post, paths.DropClaim(id)},
		{"Tickets", get, paths.Tickets},
		{"TicketBuy", post, paths.TicketBuy(id)},
		{"AccountSessions", get, paths.AccountSessions},
		{"AccountSessionsEndOthers", post, paths.AccountSessionsEndOthers},
		{"AccountData", get, paths.AccountData},
		{"AccountDelete", get, paths.AccountDelete},
		{"AccountDelete", post, paths.AccountDelete},
		{"AccountSessionEnd", post, paths.AccountSessionEnd(id)},
		{"Account", get, paths.Account},
		{"AccountName", post, paths.AccountName},
		{"AccountPassword", post, paths.AccountPassword},
		{"AccountAddresses", post, paths.AccountAddresses},
		{"AccountAddress", get, paths.AccountAddress(id)},
		{"AccountAddress", post, paths.AccountAddress(id)},
		{"AccountAddressDefault", post, paths.AccountAddressDefault(id)},
		{"AccountAddressDelete", post, paths.AccountAddressDelete(id)},
		{"CheckoutTo", get, paths.CheckoutTo(id)},
		{"PasswordForgot", get, paths.PasswordForgot},
		{"PasswordForgot", post, paths.PasswordForgot},
		{"PasswordReset", get, paths.PasswordReset},
		{"PasswordReset", post, paths.PasswordReset},
		{"PasswordResetLink", get, paths.PasswordResetLink(id)},
		{"EmailVerify", get, paths.EmailVerify},
		{"EmailVerify", post, paths.EmailVerify},
		{"EmailVerifyLink", get, paths.EmailVerifyLink(id)},
		{"AccountVerifyEmail", post, paths.AccountVerifyEmail},

		{"Admin", get, paths.Admin},
		{"AdminWarehouses", get, paths.AdminWarehouses},
		{"AdminWarehouse", get, paths.AdminWarehouse(id)},
		{"AdminWarehouseShipments", get, paths.AdminWarehouseShipments(id)},
		{"AdminWarehouseAdjustments", get, paths.AdminWarehouseAdjustments(id)},
		{"AdminWarehouseStock", post, paths.AdminWarehouseStock(id)},
		{"AdminProducts", get, paths.AdminProducts},
		{"AdminProducts", post, paths.AdminProducts},
		{"AdminNewProduct", get, paths.AdminNewProduct},
		{"AdminProduct", get, paths.AdminProduct(id)},
		{"AdminProduct", post, paths.AdminProduct(id)},
		{"AdminProductPhoto", post, paths.AdminProductPhoto(id)},
		{"AdminProductLowStock", post, paths.AdminProductLowStock(id)},
		{"AdminDashboardBlock", get, paths.AdminDashboardBlock("sales")},
		{"Photo", get, paths.Photo(id, 640, "jpg")},
		{"DrawnPicture", get, paths.DrawnPicture(id, id2)},
		{"AdminOrders", get, paths.AdminOrders},
		{"AdminOrdersCSV", get, paths.AdminOrdersCSV("2031-01-01", "2031-01-31")},
		{"AdminOrder", get, paths.AdminOrder(id)},
		{"AdminOrderShipments", post, paths.AdminOrderShipments(id)},
		{"AdminOrderRefunds", post, paths.AdminOrderRefunds(id)},
		{"AdminOrderRefundRetry", post, paths.AdminOrderRefundRetry(id, id2)},
		{"AdminOrderAllocate", post, paths.AdminOrderAllocate(id)},
		{"AdminOrderShipment", post, paths.AdminOrderShipment(id, id2)},
		{"AdminOrderShipmentUndo", post, paths.AdminOrderShipmentUndo(id, id2)},
		{"AdminPackingSlip", get, paths.AdminPackingSlip(id, id2)},
		{"AdminShipments", get, paths.AdminShipments},
		{"AdminShipping", get, paths.AdminShipping},
		{"AdminShipping", post, paths.AdminShipping},
		{"AdminShippingZone", get, paths.AdminShippingZone(id)},
		{"AdminShippingZone", post, paths.AdminShippingZone(id)},
		{"AdminShippingZoneDelete", post, paths.AdminShippingZoneDelete(id)},
		{"AdminShipmentsIn", get, paths.AdminShipmentsIn("shipped")},
		{"AdminShipmentsPack", post, paths.AdminShipmentsPack},
		{"AdminShipmentsPrint", get, paths.AdminShipmentsPrint},
		{"AdminShipmentsPrint", post, paths.AdminShipmentsPrint},
		{"AdminCustomers", get, paths.AdminCustomers},
		{"AdminCustomer", get, paths.AdminCustomer(id)},
		{"AdminCustomerRole", post, paths.AdminCustomerRole(id)},
		{"AdminCustomerDeactivate", post, paths.AdminCustomerDeactivate(id)},
		{"AdminCustomerReactivate", post, paths.AdminCustomerReactivate(id)},
		{"AdminSubscriptions", get, paths.AdminSubscriptions},
		{"AdminSubscriptionsIn", get, paths.AdminSubscriptionsIn("paused")},
		{"AdminDue", get, paths.AdminDue},
		{"AdminBilling", get, paths.AdminBilling},
		{"AdminSubscriptionSettings", get, paths.AdminSubscriptionSettings},
		{"AdminSubscriptionSettings", post, paths.AdminSubscriptionSettings},
		{"AdminPriceChanges", get, paths.AdminPriceChanges},
		{"AdminPriceChanges", post, paths.AdminPriceChanges},
		{"AdminCustomerReceipt", get, paths.AdminCustomerReceipt(id, "R0000000000AA")},
		{"AdminReceiptRefund", post, paths.AdminReceiptRefund(id, "R0000000000AA")},
		{"AdminInvoices", get, paths.AdminInvoices},
		{"AdminSeller", get, paths.AdminSeller},
		{"AdminSeller", post, paths.AdminSeller},
		{"AdminInvoice", get, paths.AdminInvoice(id)},
		{"AdminInvoicePDF", get, paths.AdminInvoicePDF(id)},
		{"AdminCreditNotePDF", get, paths.AdminCreditNotePDF(id, id2)},
		{"AdminReceiptPDF", get, paths.AdminReceiptPDF(id, "R0000000000AA")},
		{"AdminReceiptCreditNotePDF", get, paths.AdminReceiptCreditNotePDF(id, "R0000000000AA", "CN2026-000001")},
		{"AdminShipment", get, paths.AdminShipment(id)},
		{"AdminGiftCards", get, paths.AdminGiftCards},
		{"AdminGiftCards", post, paths.AdminGiftCards},
		{"AdminDiscounts", get, paths.AdminDiscounts},
		{"AdminDiscounts", post, paths.AdminDiscounts},
		{"AdminAPIKeys", get, paths.AdminAPIKeys},
		{"AdminWebhooks", get, paths.AdminWebhooks},
		{"AdminWebhooks", post, paths.AdminWebhooks},
		{"AdminWebhook", get, paths.AdminWebhook(store.StaffWebhooks, id)},
		{"AdminWebhook", get, paths.AdminWebhook("partner", id)},
		{"AdminWebhookDelete", get, paths.AdminWebhookDelete(store.StaffWebhooks, id)},
		{"AdminWebhookDelete", post, paths.AdminWebhookDelete("partner", id)},
		{"AdminAPIKeys", post, paths.AdminAPIKeys},
		{"AdminAPIKeyRevoke", get, paths.AdminAPIKeyRevoke(id)},
		{"AdminAPIKeyRevoke", post, paths.AdminAPIKeyRevoke(id)},
		{"AdminAPIKeyRotate", get, paths.AdminAPIKeyRotate(id)},
		{"AdminAPIKeyRotate", post, paths.AdminAPIKeyRotate(id)},
		{"AdminIntegrationKeys", post, paths.AdminIntegrationKeys(id)},
		{"AdminIntegrationRevoke", get, paths.AdminIntegrationRevoke(id)},
		{"AdminIntegrationRevoke", post, paths.AdminIntegrationRevoke(id)},
		{"AdminArchive", get, paths.AdminArchive},
		{"AdminArchiveRun", post, paths.AdminArchiveRun},
		{"AdminArchiveFile", get, paths.AdminArchiveFile("2026-10", "receipts", "csv")},
		{"AdminDrops", get, paths.AdminDrops},
		{"AdminDrops", post, paths.AdminDrops},
		{"AdminDrop", get, paths.AdminDrop(id)},
		{"AdminDropLive", get, paths.AdminDropLive(id)},
		{"AdminDropTicketsCSV", get, paths.AdminDropTicketsCSV(id)},
		{"AdminDropTicketRelease", get, paths.AdminDropTicketRelease(id, id2)},
		{"AdminDropTicketRelease", post, paths.AdminDropTicketRelease(id, id2)},
		{"AdminDropClose", post, paths.AdminDropClose(id)},
		{"AdminDropCancel", post, paths.AdminDropCancel(id)},
		{"AdminDropDescription", post, paths.AdminDropDescription(id)},
		{"AdminDropPhoto", post, paths.AdminDropPhoto(id)},
		{"AdminJobs", get, paths.AdminJobs},
		{"AdminJobRunNow", post, paths.AdminJobRunNow(id)},
		{"AdminJobRuns", get, paths.AdminJobRuns(id)},
		{"AdminJobRun", get, paths.AdminJobRun(id, id2)},
		{"AdminJobRunProgress", get, paths.AdminJobRunProgress(id, id2)},
		{"AdminOutbox", get, paths.AdminOutbox},
		{"OrderReturns", post, paths.OrderReturns(id)},
		{"OrderReturnSlip", get, paths.OrderReturnSlip(id, id2)},
		{"AdminReturns", get, paths.AdminReturns},
		{"AdminReturnsIn", get, paths.AdminReturnsIn("received")},
		{"AdminReturn", get, paths.AdminReturn(id, id2)},
		{"AdminReturnReceive", post, paths.AdminReturnReceive(id, id2)},
		{"AdminReturnInspect", post, paths.AdminReturnInspect(id, id2)},
		{"AdminReturnRefund", post, paths.AdminReturnRefund(id, id2)},
		{"AdminMail", get, paths.AdminMail(id)},
		{"AdminWebhookEnable", post, paths.AdminWebhookEnable("partner", id)},
		{"AdminWebhookResend", post, paths.AdminWebhookResend("partner", id, id2)},

		{"TestPaymentCheckout", get, paths.TestPaymentCheckout(id)},
		{"TestPaymentCheckout", post, paths.TestPaymentCheckout(id)},
		{"TestPaymentCheckoutConfirm", post, paths.TestPaymentCheckoutConfirm(id)},
		{"TestPaymentConfirm", get, paths.TestPaymentConfirm(id)},
		{"TestPaymentConfirm", post, paths.TestPaymentConfirm(id)},
		{"WebhookTest", post, paths.WebhookTest},
		{"WebhookStripe", post, paths.WebhookStripe},
		{"OrderPayment", get, paths.OrderPayment(id)},
		{"OrderPay", post, paths.OrderPay(id)},

		{"APIOpenAPI", get, paths.APIOpenAPI},
		{"APIDrops", post, paths.APIDrops},
		{"APIDrops", get, paths.APIDrops},
		{"APIDrop", get, paths.APIDrop(id)},
		{"APIDropClose", post, paths.APIDropClose(id)},
		{"APIDropCancel", post, paths.APIDropCancel(id)},
		{"APIDropClaims", post, paths.APIDropClaims(id)},
		{"APIDropTickets", get, paths.APIDropTickets(id)},
		{"APIDropTicket", get, paths.APIDropTicket(id, "c:1")},
		{"APIDropTicket", http.MethodDelete, paths.APIDropTicket(id, "c:1")},
		{"APIWebhooks", post, paths.APIWebhooks},
		{"APIWebhooks", get, paths.APIWebhooks},
		{"APIWebhook", http.MethodDelete, paths.APIWebhook(id)},
		{"APIWebhookEnable", post, paths.APIWebhookEnable(id)},
		{"APIWebhookDeliveries", get, paths.APIWebhookDeliveries(id)},
		{"APIWebhookResend", post, paths.APIWebhookResend(id, "evt_"+id2)},
	}
	tested := map[string]bool{"WithQuery": true, "More": true} // build on the others
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

	// A builder added to web/paths without a case here fails.
	files, err := filepath.Glob(filepath.Join("paths", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the sources of web/paths: %v %v", files, err)
	}
	var missing []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			for _, name := range exportedNames(d) {
				if !tested[name] {
					missing = append(missing, name)
				}
			}
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("builders of web/paths with no case in this test: %v", missing)
	}
}

// exportedNames are the exported funcs and consts a declaration declares.
func exportedNames(d ast.Decl) []string {
	var out []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil && d.Name.IsExported() {
			out = append(out, d.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			if v, ok := s.(*ast.ValueSpec); ok {
				for _, n := range v.Names {
					if n.IsExported() {
						out = append(out, n.Name)
					}
				}
			}
		}
	}
	return out
}
