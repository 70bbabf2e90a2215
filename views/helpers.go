package views

import (
	"strconv"
	"strings"

	"shop/web/paths"
)

func itoa(n int) string { return strconv.Itoa(n) }

func stockWord(n int) string {
	switch {
	case n == 0:
		return "Out of stock"
	case n < 5:
		return "Only " + strconv.Itoa(n) + " left"
	default:
		return strconv.Itoa(n) + " in stock"
	}
}

// errorCount says how many of fields have an error, in words ("" for none).
func errorCount(errs FieldErrors, fields []string) string {
	n := 0
	for _, f := range fields {
		if errs[f] != "" {
			n++
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		return "one field"
	default:
		return strconv.Itoa(n) + " fields"
	}
}

// consoleLink is one link of the console's sidebar.
type consoleLink struct {
	href, label, testid string
}

// current reports whether the page at path is in the section: the console
// home only at /admin, the others at their path and below it.
func (s consoleLink) current(path string) bool {
	path = strings.TrimSuffix(path, "/")
	if s.href == paths.Admin {
		return path == paths.Admin
	}
	return path == s.href || strings.HasPrefix(path, s.href+"/")
}

var consoleLinks = []consoleLink{
	{paths.Admin, "Console", "nav-home"},
	{paths.AdminOrders, "Orders", "nav-orders"},
	{paths.AdminProducts, "Products", "nav-products"},
	{paths.AdminWarehouses, "Warehouses", "nav-warehouses"},
	{paths.AdminShipments, "Shipments", "nav-shipments"},
	{paths.AdminReturns, "Returns", "nav-returns"},
	{paths.AdminCustomers, "Customers", "nav-customers"},
	{paths.AdminSubscriptions, "Subscriptions", "nav-subscriptions"},
	{paths.AdminDrops, "Drops", "nav-drops"},
	{paths.AdminInvoices, "Invoices", "nav-invoices"},
	{paths.AdminGiftCards, "Gift cards", "nav-giftcards"},
	{paths.AdminDiscounts, "Discounts", "nav-discounts"},
	{paths.AdminJobs, "Jobs", "nav-jobs"},
	{paths.AdminArchive, "Archive", "nav-archive"},
	{paths.AdminOutbox, "Outbox", "nav-outbox"},
	{paths.AdminAPIKeys, "API keys", "nav-apikeys"},
}
