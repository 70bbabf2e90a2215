package paths_test

import (
	"testing"

	"shop/static"
	"shop/web/paths"
)

func TestPathsEscapeIdsAndQueries(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{paths.Product("cf-light"), "/products/cf-light"},
		{paths.Product("a b/c?d#e"), "/products/a%20b%2Fc%3Fd%23e"},
		{paths.AdminOrderShipment("o 1", "s/2"), "/admin/orders/o%201/shipments/s%2F2"},
		{paths.AdminJobRunProgress("payments", "r1"), "/admin/jobs/payments/runs/r1/progress"},
		{paths.Category(""), "/products"},
		{paths.Category("coffee & tea"), "/products?category=coffee+%26+tea"},
		{paths.CatalogueList("", "", 1), "/products"},
		{paths.CatalogueList("", "name", 1), "/products"},
		{paths.CatalogueList("coffee", "price-desc", 3), "/products?category=coffee&page=3&sort=price-desc"},
		{paths.CatalogueList("", "newest", 0), "/products?sort=newest"},
		{paths.AdminOrdersCSV("2031-01-01", ""), "/admin/orders.csv?from=2031-01-01"},
		{paths.WithQuery(paths.AdminOrders, "to", "b", "from", "a", "after", ""), "/admin/orders?from=a&to=b"},
		{paths.LoginThen(""), "/login"},
		{paths.LoginThen("/"), "/login"},
		{paths.LoginThen("/login?next=/cart"), "/login"},
		{paths.LoginThen("/signup"), "/login"},
		{paths.LoginThen("/drops/d1?x=1&y=2"), "/login?next=%2Fdrops%2Fd1%3Fx%3D1%26y%3D2"},
		{paths.Static("css/shop.css"), "/static/css/shop.css?v=" + static.Version("css/shop.css")},
		{paths.Static("css/none.css"), "/static/css/none.css"},
		{paths.More(paths.Orders, ""), ""},
		{paths.More(paths.Orders, "c1/+"), "/orders?after=c1%2F%2B"},
		{paths.More(paths.Catalogue, "c1", "category", "coffee"), "/products?after=c1&category=coffee"},
		{paths.More(paths.Catalogue, "c1", "category", ""), "/products?after=c1"},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
}
