package store_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/rules"
	"shop/store/storetest"
)

func importModel(t *testing.T, env storetest.Env, file string) store.ImportReport {
	t.Helper()
	f, err := os.Open("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := env.Store.ImportWorkbench(ctxT(t), f)
	if err != nil {
		t.Fatalf("import %s: %v", file, err)
	}
	return rep
}

// After importing the AWS model into an empty table, each of the 16 access
// patterns answers the sample's questions in one request.
func TestWorkbenchImportAnswersTheSixteenPatterns(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"AnOnlineShop_14.json", "AnOnlineShop_13.json"} {
		t.Run(file, func(t *testing.T) {
			env := storetest.New(t)
			ctx := ctxT(t)
			rep := importModel(t, env, file)
			if len(rep.Written) != 19 || len(rep.Skipped) != 0 {
				t.Fatalf("import wrote %d, skipped %v", len(rep.Written), rep.Skipped)
			}
			again := importModel(t, env, file)
			if len(again.Written) != 19 || env.CountEntities(t, "orderItem") != 2 || env.CountEntities(t, "customer") != 3 {
				t.Fatal("importing twice is not idempotent")
			}

			env.Once(t, "1 customer", func() {
				c, err := env.Store.Customer(ctx, "12345")
				if err != nil || c.Name != "Samaneh" || c.Email != "samaneh@example.com" {
					t.Errorf("customer = %+v, %v", c, err)
				}
			})
			env.Once(t, "2 product", func() {
				p, err := env.Store.Product(ctx, "99887")
				if err != nil || p.Name != "The Book" || p.Price.Amount != 4000 {
					t.Errorf("product = %+v, %v", p, err)
				}
			})
			env.Once(t, "3 warehouse", func() {
				w, err := env.Store.Warehouse(ctx, "12376")
				if err != nil || w.Address.City != "Boras" || w.Address.ZipCode != "11111" {
					t.Errorf("warehouse = %+v, %v", w, err)
				}
			})
			env.Once(t, "4 product inventory", func() {
				st, err := env.Store.ProductStock(ctx, "99887")
				if err != nil || len(st) != 2 || st[0].Quantity != 4 || st[1].Quantity != 4 {
					t.Errorf("stock = %+v, %v", st, err)
				}
			})
			env.Once(t, "5 order details", func() {
				d, err := env.Store.OrderDetails(ctx, "12345")
				if err != nil {
					t.Fatal(err)
				}
				items := 0
				for _, sh := range d.Shipments {
					items += len(sh.Items)
				}
				inv, _ := d.Invoice()
				if len(d.Items) != 2 || len(d.Invoices) != 1 || inv.Amount.Amount != 40000 || len(d.Shipments) != 2 || items != 3 {
					t.Errorf("order 12345: %d items, %d invoices (%v), %d shipments, %d shipment items", len(d.Items), len(d.Invoices), inv.Amount, len(d.Shipments), items)
				}
				if d.Order.CustomerID != "12345" || d.Order.Total.Amount != 40000 || d.Order.ShipTo.City != "Goteborg" {
					t.Errorf("order = %+v", d.Order)
				}
			})
			env.Once(t, "6 products of an order", func() {
				items, err := env.Store.OrderItems(ctx, "12345")
				if err != nil || len(items) != 2 || items[1].ProductID != "99887" || items[1].Quantity != 5 || items[1].Price.Amount != 4000 {
					t.Errorf("order items = %+v, %v", items, err)
				}
			})
			env.Once(t, "7 invoice of an order", func() {
				invs, err := env.Store.OrderInvoices(ctx, "12345")
				if err != nil || len(invs) != 1 || invs[0].ID != "55443" {
					t.Errorf("invoices = %+v, %v", invs, err)
				}
			})
			env.Once(t, "8 shipments of an order", func() {
				shs, err := env.Store.OrderShipments(ctx, "12345")
				if err != nil || len(shs) != 2 {
					t.Errorf("shipments = %+v, %v", shs, err)
				}
			})
			env.Once(t, "9 orders of a product in a date range", func() {
				page, err := env.Store.ProductOrders(ctx, "99887", dayStartUTC("2020-06-01"), dayEndUTC("2020-06-30"), 10, "")
				if err != nil || len(page.Items) != 1 || page.Items[0].OrderID != "12345" {
					t.Errorf("product orders = %+v, %v", page, err)
				}
			})
			if page, err := env.Store.ProductOrders(ctx, "99887", dayStartUTC("2020-07-01"), dayEndUTC("2020-07-31"), 10, ""); err != nil || len(page.Items) != 0 {
				t.Errorf("product orders outside the range = %+v, %v", page, err)
			}
			env.Once(t, "10-11 invoice and its payments by id", func() {
				inv, err := env.Store.Invoice(ctx, "55443")
				if err != nil || len(inv.Payments) != 2 {
					t.Fatalf("invoice = %+v, %v", inv, err)
				}
				if inv.Payments[0].Type != "GiftCard" || inv.Payments[0].Amount.Amount != 10000 ||
					inv.Payments[1].Type != "MasterCard" || inv.Payments[1].Amount.Amount != 30000 {
					t.Errorf("payments = %+v", inv.Payments)
				}
			})
			env.Once(t, "12 shipment details", func() {
				sh, err := env.Store.Shipment(ctx, "98765")
				if err != nil || sh.WarehouseID != "12345" || len(sh.Items) != 2 || sh.Type != "Express" {
					t.Errorf("shipment = %+v, %v", sh, err)
				}
			})
			env.Once(t, "13 shipments of a warehouse", func() {
				page, err := env.Store.WarehouseShipments(ctx, "12376", 10, "")
				if err != nil || len(page.Items) != 1 || page.Items[0].ID != "88899" {
					t.Errorf("warehouse shipments = %+v, %v", page, err)
				}
			})
			env.Once(t, "14 inventory of a warehouse", func() {
				page, err := env.Store.WarehouseStock(ctx, "12376", 10, "")
				if err != nil || len(page.Items) != 1 || page.Items[0].ProductID != "99887" {
					t.Errorf("warehouse w#12376 holds %+v, %v; want p#99887 (the repaired item)", page, err)
				}
			})
			env.Once(t, "15 invoices of a customer in a date range", func() {
				page, err := env.Store.CustomerInvoices(ctx, "12345", dayStartUTC("2020-06-21"), dayEndUTC("2020-06-21"), 10, "")
				if err != nil || len(page.Items) != 1 || page.Items[0].Amount.Amount != 40000 {
					t.Errorf("customer invoices = %+v, %v", page, err)
				}
			})
			env.Once(t, "16 products a customer ordered in a date range", func() {
				page, err := env.Store.CustomerProducts(ctx, "12345", dayStartUTC("2020-06-01"), dayEndUTC("2020-06-30"), 10, "")
				if err != nil || len(page.Items) != 2 {
					t.Errorf("customer products = %+v, %v", page, err)
				}
			})
			if page, err := env.Store.CustomerProducts(ctx, "12345", dayStartUTC("2021-01-01"), dayEndUTC("2021-12-31"), 10, ""); err != nil || len(page.Items) != 0 {
				t.Errorf("customer products outside the range = %+v, %v", page, err)
			}
			env.Once(t, "a customer's orders", func() {
				page, err := env.Store.CustomerOrders(ctx, "12345", 10, "")
				if err != nil || len(page.Items) != 1 || page.Items[0].ID != "12345" {
					t.Errorf("customer orders = %+v, %v", page, err)
				}
			})
		})
	}
}

// The AWS recurring-payments model: its subscription is imported into the
// billing-due indexes and answers the guide's questions; its card number is
// not kept; its receipt, from 2023, is past the six months receipts are kept.
func TestWorkbenchImportRecurringPayments(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := ctxT(t)
	const file = "RecurringPaymentsSchema.json"
	rep := importModel(t, env, file)
	wantLine(t, "written", rep.Written, "subscription ACC#123/SUB#123#SKU#999")
	wantLine(t, "written", rep.Written, "customer c#123/c#123")
	wantLine(t, "written", rep.Written, "product p#999/p#999")
	if len(rep.Skipped) != 1 {
		t.Fatalf("skipped %q, want the receipt only", rep.Skipped)
	}
	wantLine(t, "skipped", rep.Skipped, "receipt ACC#123/REC#12023-05-28T14:15:39.24#SKU#999")
	wantLine(t, "skipped", rep.Skipped, "REC#2023-05-28T14:15:39.247Z#SKU#999")
	wantLine(t, "skipped", rep.Skipped, "more than 6 months ago")

	again := importModel(t, env, file)
	wantLine(t, "written again", again.Written, "subscription ACC#123/SUB#123#SKU#999")
	if len(again.Skipped) != 1 || env.CountEntities(t, "subscription") != 1 || env.CountEntities(t, "customer") != 1 ||
		env.CountEntities(t, "product") != 1 || env.CountEntities(t, "receipt") != 0 {
		t.Fatalf("importing twice is not idempotent: %+v", again)
	}

	want := func(what string, subs []store.Subscription) {
		t.Helper()
		if len(subs) != 1 {
			t.Fatalf("%s: %d subscriptions, want the imported one", what, len(subs))
		}
		s := subs[0]
		if s.ID != "123" || s.AccountID != "123" || s.ProductID != "999" || s.Email != "s@s.com" ||
			s.MonthlyPrice != (store.Money{Amount: 1299, Currency: "EUR"}) || s.Amount().Amount != 1299 ||
			s.PeriodMonths != 1 || s.PaymentDay != 28 || s.Status != store.SubscriptionActive || s.Version != 1 {
			t.Errorf("%s: %+v", what, s)
		}
		for name, got := range map[string]time.Time{
			"2023-06-28": s.NextPaymentDate, "2023-06-21": s.NextReminderDate,
			"2023-05-18": s.LastPaymentDate, "2023-05-21": s.LastReminderDate,
		} {
			if store.FormatDate(got) != name {
				t.Errorf("%s: a date is %s, want %s", what, store.FormatDate(got), name)
			}
		}
		if !s.CreatedAt.Equal(time.Date(2023, 5, 18, 9, 41, 25, 856e6, time.UTC)) {
			t.Errorf("%s: created %v", what, s.CreatedAt)
		}
		if s.Card != (store.Card{Brand: "Invalid card", Last4: "1234"}) {
			t.Errorf("%s: card %+v, want an invalid card ending 1234 without a token", what, s.Card)
		}
	}
	pay, err := env.Store.PaymentsDueOn(ctx, rules.Date(2023, 6, 28), 10, "")
	if err != nil {
		t.Fatal(err)
	}
	want("payments due on 2023-06-28", pay.Items)
	rem, err := env.Store.RemindersDueOn(ctx, rules.Date(2023, 6, 21), 10, "")
	if err != nil {
		t.Fatal(err)
	}
	want("reminders due on 2023-06-21", rem.Items)
	for _, day := range []time.Time{rules.Date(2023, 6, 27), rules.Date(2023, 6, 29)} {
		if p, err := env.Store.PaymentsDueOn(ctx, day, 10, ""); err != nil || len(p.Items) != 0 {
			t.Errorf("payments due on %s: %+v, %v", store.FormatDate(day), p.Items, err)
		}
	}
	env.Once(t, "subscriptions of account 123", func() {
		subs, err := env.Store.Subscriptions(ctx, "123")
		if err != nil {
			t.Fatal(err)
		}
		want("subscriptions of account 123", subs)
	})
	env.Once(t, "active subscriptions", func() {
		page, err := env.Store.SubscriptionsByStatus(ctx, store.SubscriptionActive, 10, "")
		if err != nil {
			t.Fatal(err)
		}
		want("active subscriptions", page.Items)
	})

	// The card number is nowhere in the item.
	out, err := env.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(env.Table), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "ACC#123"}, "SK": &types.AttributeValueMemberS{Value: "SUB#123#SKU#999"},
	}})
	if err != nil || out.Item == nil {
		t.Fatalf("subscription item: %v", err)
	}
	if raw := fmt.Sprintf("%#v", out.Item); strings.Contains(raw, "1234123412341234") || strings.Contains(raw, "Bridge Street") {
		t.Fatal("the model's card number or address was stored")
	}
	if v, ok := out.Item["CardToken"].(*types.AttributeValueMemberS); !ok || v.Value != "" {
		t.Fatalf("card token %#v, want empty", out.Item["CardToken"])
	}

	// The account's customer and the product were made for it.
	c, err := env.Store.Customer(ctx, "123")
	if err != nil || c.Email != "s@s.com" {
		t.Fatalf("customer 123 = %+v, %v", c, err)
	}
	if cred, err := env.Store.CredentialsByEmail(ctx, "s@s.com"); err != nil || cred.CustomerID != "123" || cred.PasswordHash != "" {
		t.Fatalf("credentials of s@s.com = %+v, %v", cred, err)
	}
	p, err := env.Store.Product(ctx, "999")
	if err != nil || !p.Subscribable || p.MonthlyPrice.Amount != 1299 || p.Category != "imported" {
		t.Fatalf("product 999 = %+v, %v", p, err)
	}
}

// Imported within six months of its processing, the model's receipt is
// kept, under the sort key its ProcessedDate makes and with a TTL of six
// months and a day (not the model's).
func TestWorkbenchImportRecentReceipt(t *testing.T) {
	t.Parallel()
	now := time.Date(2023, 6, 1, 12, 0, 0, 0, time.UTC)
	env := storetest.New(t, store.WithClock(func() time.Time { return now }))
	ctx := ctxT(t)
	for range 2 {
		rep := importModel(t, env, "RecurringPaymentsSchema.json")
		if len(rep.Skipped) != 0 {
			t.Fatalf("skipped %q", rep.Skipped)
		}
		wantLine(t, "written", rep.Written, "written as REC#2023-05-28T14:15:39.247Z#SKU#999")
	}
	if n := env.CountEntities(t, "receipt"); n != 1 {
		t.Fatalf("%d receipts after two imports, want 1", n)
	}
	page, err := env.Store.RecentReceipts(ctx, "123", 10, "")
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("recent receipts = %+v, %v", page, err)
	}
	r := page.Items[0]
	at := time.Date(2023, 5, 28, 14, 15, 39, 247e6, time.UTC)
	if !r.ProcessedAt.Equal(at) || r.Amount != (store.Money{Amount: 1299, Currency: "EUR"}) || r.SubscriptionID != "123" ||
		r.ProductID != "999" || r.Card.Last4 != "1234" || !r.ExpiresAt.Equal(at.AddDate(0, 6, 1).Truncate(time.Second)) || r.Number != store.ReceiptNumber(at, "999") {
		t.Fatalf("receipt = %+v", r)
	}
	if got, err := env.Store.Receipt(ctx, "123", r.Number); err != nil || got.Number != r.Number {
		t.Fatalf("receipt by number = %+v, %v", got, err)
	}
}

func wantLine(t *testing.T, what string, lines []string, part string) {
	t.Helper()
	for _, l := range lines {
		if strings.Contains(l, part) {
			return
		}
	}
	t.Fatalf("%s: no line says %q in %q", what, part, lines)
}

// dayStartUTC and dayEndUTC are the first and last instants of a UTC day
// (YYYY-MM-DD), for the queries by range of instants.
func dayStartUTC(day string) time.Time {
	t, err := time.Parse("2006-01-02", day)
	if err != nil {
		panic(err)
	}
	return t
}

func dayEndUTC(day string) time.Time { return dayStartUTC(day).AddDate(0, 0, 1).Add(-time.Millisecond) }
