package views

import (
	"context"
	"strconv"
	"strings"

	"shop/web/paths"
)

func itoa(n int) string { return strconv.Itoa(n) }

// stockWord says how much of a product is left.
func stockWord(ctx context.Context, n int) string {
	switch {
	case n == 0:
		return t(ctx, "shop.stock.out")
	case n < 5:
		return tn(ctx, "shop.stock.few", n)
	default:
		return tn(ctx, "shop.stock.many", n)
	}
}

// errorCount is how many of fields have an error.
func errorCount(errs FieldErrors, fields []string) int {
	n := 0
	for _, f := range fields {
		if errs[f] != "" {
			n++
		}
	}
	return n
}

// consoleLink is one link of the console's sidebar.
type consoleLink struct {
	href, label, testid string // label is a message id
}

// current reports whether the page at path is in the section: the console
// home only at /admin, the others at their path and below it.
func (s consoleLink) current(path string) bool {
	path = strings.TrimSuffix(path, "/")
	if isReturnPage(path) {
		path = paths.AdminReturns
	}
	if s.href == paths.Admin {
		return path == paths.Admin
	}
	return path == s.href || strings.HasPrefix(path, s.href+"/")
}

// isReturnPage reports whether path is a return's page, which sits under
// its order (/admin/orders/:id/returns/:rid) but is worked from Returns.
func isReturnPage(path string) bool {
	rest, ok := strings.CutPrefix(path, paths.AdminOrders+"/")
	_, rid, found := strings.Cut(rest, "/returns/")
	return ok && found && rid != ""
}

var consoleLinks = []consoleLink{
	{paths.Admin, "console.nav.home", "nav-home"},
	{paths.AdminOrders, "console.nav.orders", "nav-orders"},
	{paths.AdminProducts, "console.nav.products", "nav-products"},
	{paths.AdminWarehouses, "console.nav.warehouses", "nav-warehouses"},
	{paths.AdminShipments, "console.nav.shipments", "nav-shipments"},
	{paths.AdminReturns, "console.nav.returns", "nav-returns"},
	{paths.AdminCustomers, "console.nav.customers", "nav-customers"},
	{paths.AdminSubscriptions, "console.nav.subscriptions", "nav-subscriptions"},
	{paths.AdminBilling, "console.nav.billing", "nav-billing"},
	{paths.AdminDrops, "console.nav.drops", "nav-drops"},
	{paths.AdminInvoices, "console.nav.invoices", "nav-invoices"},
	{paths.AdminGiftCards, "console.nav.giftcards", "nav-giftcards"},
	{paths.AdminDiscounts, "console.nav.discounts", "nav-discounts"},
	{paths.AdminShipping, "console.nav.shipping", "nav-shipping"},
	{paths.AdminJobs, "console.nav.jobs", "nav-jobs"},
	{paths.AdminArchive, "console.nav.archive", "nav-archive"},
	{paths.AdminOutbox, "console.nav.outbox", "nav-outbox"},
	{paths.AdminAPIKeys, "console.nav.apikeys", "nav-apikeys"},
	{paths.AdminWebhooks, "console.nav.webhooks", "nav-webhooks"},
}
