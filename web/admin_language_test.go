package web_test

import (
	"net/http"
	"regexp"
	"testing"

	"shop/store/demo"
	"shop/web/paths"
)

// The staff console's home, orders, refunds, shipments, warehouses,
// products and invoices speak Korean and Indonesian: words, plurals, form
// errors and flashes from the catalogue, money with each language's marks
// (the shop's euros: €92.70 in Korean as in English, €92,70 in
// Indonesian). Every page rendered is also checked for message ids left
// in place of text.
func TestStaffConsolePart1InKoreanAndIndonesian(t *testing.T) {
	t.Parallel()
	s := newShopWithoutHistory(t)
	m := newOrderMaker(t, s.env.Store)
	ada := s.customerID(t, demo.CustomerEmail)
	o := m.place(s.env.Store, ada, line("kt-mug", 2), line("cf-grinder", 1)) // €37.80 + €54.90

	for _, tc := range []struct {
		lang                                            string
		today, waiting, orders, csv, refundable, toPack string
		reason, dateError, invoiceFind, product, sales  string
		money                                           *regexp.Regexp
	}{
		{
			lang: "ko", today: "오늘", waiting: "배송 대기", orders: "주문", csv: "CSV로 내려받기",
			refundable: "€92.70", toPack: "포장 대기", reason: "사유를 입력하세요", dateError: "YYYY-MM-DD 형식",
			invoiceFind: "청구서 열기", product: "새 상품", sales: "건",
			money: regexp.MustCompile(`^€\d+\.\d\d$`),
		},
		{
			lang: "id", today: "Hari ini", waiting: "Menunggu dikirim", orders: "Pesanan", csv: "Unduh pesanan ini",
			refundable: "€92,70", toPack: "Perlu dikemas", reason: "Tuliskan alasannya", dateError: "misalnya",
			invoiceFind: "Buka faktur", product: "Produk baru", sales: " pesanan",
			money: regexp.MustCompile(`^€\d+,\d\d$`),
		},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			b := s.staff(t)
			home := b.get(paths.Admin + "?lang=" + tc.lang)
			wantStatus(t, "console home", home, http.StatusOK)
			wantText(t, "home's title", home.doc.Find("h1"), tc.today)

			sales := b.get(paths.AdminDashboardBlock("sales"), "HX-Request", "true")
			wantText(t, "orders today", sales.testid("sales-today-orders"), tc.sales)
			toShip := b.get(paths.AdminDashboardBlock("to-ship"), "HX-Request", "true")
			wantText(t, "to-ship block", toShip.doc.Find("h2"), tc.waiting)

			list := b.get(paths.AdminOrders)
			wantStatus(t, "orders", list, http.StatusOK)
			wantText(t, "orders title", list.doc.Find("h1"), tc.orders)
			wantText(t, "csv link", list.testid("orders-csv"), tc.csv)
			wantText(t, "status in the list", list.testid("admin-order-status").First(), tc.waiting)

			bad := b.get(paths.AdminOrders + "?from=yesterday")
			wantStatus(t, "bad date", bad, http.StatusUnprocessableEntity)
			wantText(t, "date error", bad.testid("error-from"), tc.dateError)

			p := b.get(paths.AdminOrder(o.ID))
			wantStatus(t, "order", p, http.StatusOK)
			wantText(t, "order status", p.testid("order-status"), tc.waiting)
			wantText(t, "left to refund", p.testid("refundable"), tc.refundable)
			if got := trim(p.testid("order-total").Text()); !tc.money.MatchString(got) {
				t.Errorf("order total %q is not money as %s writes it", got, tc.lang)
			}
			refused := b.post(paths.AdminOrderRefunds(o.ID), refundForm(t, p, "amount", "5"))
			wantStatus(t, "refund without a reason", refused, http.StatusUnprocessableEntity)
			wantText(t, "reason's error", refused.testid("error-reason"), tc.reason)

			ships := b.get(paths.AdminShipments)
			wantStatus(t, "shipments", ships, http.StatusOK)
			wantText(t, "to-pack tab", ships.testid("tab-to-pack"), tc.toPack)

			wantStatus(t, "warehouses", b.get(paths.AdminWarehouses), http.StatusOK)
			products := b.get(paths.AdminProducts)
			wantText(t, "new product", products.testid("new-product"), tc.product)
			wantStatus(t, "a product", b.get(paths.AdminProduct("kt-mug")), http.StatusOK)
			invoices := b.get(paths.AdminInvoices)
			wantText(t, "find an invoice", invoices.testid("invoice-lookup-submit"), tc.invoiceFind)
		})
	}
}
