package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/crypto/bcrypt"

	"shop/store"
	"shop/store/demo"
	"shop/store/rules"
)

func centsEUR(cents int64) store.Money { return store.Money{Amount: cents, Currency: "EUR"} }

// seedSubscription writes a subscription straight through the store; mod
// sets what the test needs.
func seedSubscription(t *testing.T, st *store.Store, customerID string, mod func(*store.Subscription), receipts ...func(store.Subscription) store.Receipt) store.Subscription {
	t.Helper()
	sub := store.Subscription{
		ID: store.NewID(), AccountID: customerID, ProductID: "cf-light", ProductName: "Archipelago Light Roast 500 g",
		Email: "seeded@fikafield.example", MonthlyPrice: centsEUR(1290), PeriodMonths: 1, PaymentDay: 15,
		Status: store.SubscriptionActive, Card: store.Card{Brand: "Visa", Last4: "4242"}, CreatedAt: time.Now().UTC(), Version: 1,
		NextPaymentDate: rules.Date(2031, 1, 15), NextReminderDate: rules.Date(2031, 1, 8),
	}
	if mod != nil {
		mod(&sub)
	}
	var rs []store.Receipt
	for _, r := range receipts {
		rs = append(rs, r(sub))
	}
	if err := st.SeedSubscription(context.Background(), sub, rs); err != nil {
		t.Fatalf("seed subscription: %v", err)
	}
	return sub
}

// follow loads every "Show more" page of a list with htmx, from the first
// page, and returns the rows' data-subscription (or receipt number) values.
func followShowMore(t *testing.T, b *browser, first page, rowID, moreID, attr string) []string {
	t.Helper()
	var out []string
	collect := func(p page) {
		p.testid(rowID).Each(func(_ int, r *goquerySelection) {
			if attr == "" {
				out = append(out, strings.TrimSpace(r.Text()))
				return
			}
			v, _ := r.Attr(attr)
			out = append(out, v)
		})
	}
	collect(first)
	more, _ := first.testid(moreID).Attr("hx-get")
	for more != "" {
		p := b.get(more, "HX-Request", "true")
		wantStatus(t, "next page of "+rowID, p, http.StatusOK)
		if strings.Contains(p.body, "<html") {
			t.Fatalf("htmx's next page of %s came as a whole page", rowID)
		}
		collect(p)
		more, _ = p.testid(moreID).Attr("hx-get")
	}
	return out
}

func distinctCount(xs []string) int {
	seen := map[string]bool{}
	for _, x := range xs {
		seen[x] = true
	}
	return len(seen)
}

func TestAdminProductSubscribable(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	ctx := context.Background()

	// The list shows which products can be subscribed to (the demo's beans).
	list := b.get("/admin/products?category=coffee")
	wantStatus(t, "coffee products", list, http.StatusOK)
	row := func(p page, id string) *goquerySelection {
		return p.doc.Find(`[data-testid="admin-product-row"]:has(a[href="/admin/products/` + id + `"])`)
	}
	wantText(t, "dark roast", row(list, "cf-gbg-dark").Find(`[data-testid="admin-product-monthly"]`), "€11.90")
	if row(list, "cf-grinder").Find(`[data-testid="admin-product-monthly"]`).Length() != 0 {
		t.Fatal("the grinder is listed as subscribable")
	}

	const path = "/admin/products/kt-mug"
	prod := b.get(path)
	wantStatus(t, "mug", prod, http.StatusOK)
	if _, on := prod.testid("field-subscribable").Attr("checked"); on || prod.testid("admin-product-monthly").Length() != 0 {
		t.Fatal("the mug shows as subscribable")
	}
	form := func(subscribable bool, monthly string) url.Values {
		v := url.Values{"name": {"Stoneware Mug"}, "category": {"kitchen"}, "price": {"18.90"}, "monthly_price": {monthly}}
		if subscribable {
			v.Set("subscribable", "1")
		}
		return v
	}

	// Subscribable needs a monthly price above zero: 422 at the field.
	for monthly, msg := range map[string]string{"": "Enter the monthly price", "4,50": "two decimals", "0": "above zero", "-3": "two decimals"} {
		p := b.post(path, form(true, monthly))
		wantStatus(t, "monthly price "+monthly, p, http.StatusUnprocessableEntity)
		wantText(t, "monthly price "+monthly, p.testid("error-monthly_price"), msg)
	}
	p := b.post(path, form(true, "ten"), "HX-Request", "true")
	wantStatus(t, "bad monthly price with htmx", p, http.StatusUnprocessableEntity)
	if strings.Contains(p.body, "<html") || p.testid("product-form").Length() != 1 {
		t.Fatal("htmx did not get the form alone")
	}
	if _, on := p.testid("field-subscribable").Attr("checked"); !on {
		t.Fatal("the ticked box came back unticked")
	}
	if v, _ := p.testid("field-monthly_price").Attr("value"); v != "ten" {
		t.Fatalf("the typed monthly price is lost: %q", v)
	}
	if got, _ := s.env.Store.Product(ctx, "kt-mug"); got.Subscribable {
		t.Fatal("a refused form was saved")
	}

	// A good one saves; the page and the form show it.
	p = b.post(path, form(true, "4.5"))
	wantStatus(t, "subscribable mug", p, http.StatusSeeOther)
	got, err := s.env.Store.Product(ctx, "kt-mug")
	if err != nil || !got.Subscribable || got.MonthlyPrice != centsEUR(450) || got.Price != centsEUR(1890) {
		t.Fatalf("stored %+v, %v", got, err)
	}
	prod = b.get(path)
	wantText(t, "monthly", prod.testid("admin-product-monthly"), "€4.50 a month")
	if _, on := prod.testid("field-subscribable").Attr("checked"); !on {
		t.Fatal("the box is not ticked")
	}
	if v, _ := prod.testid("field-monthly_price").Attr("value"); v != "4.50" {
		t.Fatalf("monthly price field shows %q", v)
	}

	// Unticked, the monthly price typed is not needed and not saved; the
	// item then has no MonthlyPrice, and the next edit's condition says so.
	p = b.post(path, form(false, "not a price"))
	wantStatus(t, "not subscribable", p, http.StatusSeeOther)
	if got, _ := s.env.Store.Product(ctx, "kt-mug"); got.Subscribable || got.MonthlyPrice.Amount != 0 {
		t.Fatalf("stored %+v", got)
	}
	out, err := s.env.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.env.Table), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "p#kt-mug"}, "SK": &types.AttributeValueMemberS{Value: "p#kt-mug"},
	}})
	if err != nil || out.Item["MonthlyPrice"] != nil {
		t.Fatalf("item keeps MonthlyPrice %v (%v)", out.Item["MonthlyPrice"], err)
	}
	wantStatus(t, "edit again", b.post(path, form(true, "5")), http.StatusSeeOther)
	wantStatus(t, "and again", b.post(path, form(true, "6")), http.StatusSeeOther)
	if got, _ := s.env.Store.Product(ctx, "kt-mug"); got.MonthlyPrice != centsEUR(600) {
		t.Fatalf("stored %+v", got)
	}

	// A new product can be subscribable from the start.
	p = b.post("/admin/products", url.Values{"name": {"Tea Leaves"}, "category": {"kitchen"}, "price": {"7"}, "subscribable": {"1"}})
	wantStatus(t, "new without monthly price", p, http.StatusUnprocessableEntity)
	wantText(t, "new without monthly price", p.testid("error-monthly_price"), "monthly price")
	p = b.post("/admin/products", url.Values{"name": {"Tea Leaves"}, "category": {"kitchen"}, "price": {"7"}, "subscribable": {"1"}, "monthly_price": {"6.50"}})
	wantStatus(t, "new subscribable", p, http.StatusSeeOther)
	created, err := s.env.Store.Product(ctx, strings.TrimPrefix(p.header.Get("Location"), "/admin/products/"))
	if err != nil || !created.Subscribable || created.MonthlyPrice != centsEUR(650) {
		t.Fatalf("created %+v, %v", created, err)
	}
}

// The demo's subscriptions are in every status tab, each row linking to its
// customer; the active list pages with htmx; a bad status or a cursor of
// another list is a 400.
func TestAdminSubscriptionsByStatus(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	ada, henrik, samaneh := s.customerID(t, demo.CustomerEmail), s.customerID(t, "henrik@fikafield.example"), s.customerID(t, "samaneh@fikafield.example")
	for range 30 {
		seedSubscription(t, s.env.Store, henrik, nil)
	}

	first := b.get("/admin/subscriptions")
	wantStatus(t, "subscriptions", first, http.StatusOK)
	if href, _ := first.testid("nav-subscriptions").Attr("href"); href != "/admin/subscriptions" {
		t.Fatalf("admin navigation links subscriptions to %q", href)
	}
	if _, current := first.testid("tab-active").Attr("aria-current"); !current {
		t.Fatal("the active tab is not the current one")
	}
	if n := first.testid("subscription-row").Length(); n != 25 {
		t.Fatalf("first page has %d rows, want 25", n)
	}
	ids := followShowMore(t, b, first, "subscription-row", "subscriptions-more", "data-subscription")
	if len(ids) != 34 || distinctCount(ids) != 34 {
		t.Fatalf("active pages list %d rows, %d distinct; want the demo's 4 and 30 more", len(ids), distinctCount(ids))
	}

	for status, want := range map[string]struct {
		customer, product, state string
	}{
		"past_due":  {henrik, "Paper Filters 02", "retry on " + time.Now().UTC().Format("2006-01-02")},
		"paused":    {ada, "Midnight Decaf", "paused since"},
		"cancelled": {samaneh, "Göteborg Dark Roast", "cancelled on"},
	} {
		p := b.get("/admin/subscriptions?status=" + status)
		wantStatus(t, status, p, http.StatusOK)
		rows := p.testid("subscription-row")
		if rows.Length() != 1 {
			t.Fatalf("%s: %d rows, want the demo's one", status, rows.Length())
		}
		if href, _ := rows.Find(`[data-testid="subscription-customer"]`).Attr("href"); href != "/admin/customers/"+want.customer {
			t.Errorf("%s: row links to %q, want the customer %s", status, href, want.customer)
		}
		wantText(t, status+" product", rows.Find(`[data-testid="subscription-product"]`), want.product)
		wantText(t, status+" state", rows.Find(`[data-testid="subscription-state"]`), want.state)
		if _, current := p.testid("tab-" + status).Attr("aria-current"); !current {
			t.Errorf("%s: its tab is not the current one", status)
		}
	}

	wantStatus(t, "unknown status", b.get("/admin/subscriptions?status=expired"), http.StatusBadRequest)
	more, _ := first.testid("subscriptions-more").Attr("hx-get")
	u, _ := url.Parse(more)
	cursor := u.Query().Get("after")
	wantStatus(t, "active cursor on the paused list", b.get("/admin/subscriptions?status=paused&after="+url.QueryEscape(cursor)), http.StatusBadRequest)
	wantStatus(t, "garbage cursor", b.get("/admin/subscriptions?after=bm90IGEgY3Vyc29y"), http.StatusBadRequest)
}

// What falls due on a day: today by default (the demo's reminder and two
// payments), any day by the form, each table paged with htmx; a bad day is
// a 422 at the field, a foreign cursor a 400.
func TestAdminSubscriptionsDueOnADay(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	henrik, samaneh := s.customerID(t, "henrik@fikafield.example"), s.customerID(t, "samaneh@fikafield.example")
	today := time.Now().UTC().Format("2006-01-02")

	p := b.get("/admin/subscriptions/due")
	wantStatus(t, "due today", p, http.StatusOK)
	if v, _ := p.testid("field-date").Attr("value"); v != today {
		t.Fatalf("the day is %q, want today %s", v, today)
	}
	rem := p.testid("reminder-due-row")
	if rem.Length() != 1 {
		t.Fatalf("%d reminders due today, want the demo's one", rem.Length())
	}
	if href, _ := rem.Find(`[data-testid="subscription-customer"]`).Attr("href"); href != "/admin/customers/"+samaneh {
		t.Fatalf("the reminder links to %q", href)
	}
	pay := p.testid("payment-due-row")
	if pay.Length() != 2 {
		t.Fatalf("%d payments due today, want the demo's two", pay.Length())
	}
	actions := pay.Find(`[data-testid="payment-due-action"]`).Text()
	if !strings.Contains(actions, "charge €12.90") || !strings.Contains(actions, "retry €4.50") {
		t.Fatalf("the job will %q", actions)
	}
	pay.Find(`[data-testid="subscription-customer"]`).Each(func(_ int, a *goquerySelection) {
		if href, _ := a.Attr("href"); href != "/admin/customers/"+henrik {
			t.Errorf("a payment links to %q, want Henrik", href)
		}
	})

	// 27 payments on one day (reminders a week before), one more a day
	// later: each day's tables page through exactly their own.
	for range 27 {
		seedSubscription(t, s.env.Store, henrik, nil)
	}
	seedSubscription(t, s.env.Store, henrik, func(sub *store.Subscription) {
		sub.NextPaymentDate, sub.NextReminderDate = rules.Date(2031, 1, 16), rules.Date(2031, 1, 9)
	})
	day := b.get("/admin/subscriptions/due?date=2031-01-15")
	wantStatus(t, "due on 2031-01-15", day, http.StatusOK)
	if n := day.testid("reminder-due-row").Length(); n != 0 {
		t.Fatalf("%d reminders on the payment day", n)
	}
	payments := followShowMore(t, b, day, "payment-due-row", "payments-more", "data-subscription")
	if len(payments) != 27 || distinctCount(payments) != 27 {
		t.Fatalf("payments due on 2031-01-15: %d rows, %d distinct, want 27", len(payments), distinctCount(payments))
	}
	week := b.get("/admin/subscriptions/due?date=2031-01-08", "HX-Request", "true")
	wantStatus(t, "reminders on 2031-01-08 with htmx", week, http.StatusOK)
	if strings.Contains(week.body, "<html") || week.testid("subscriptions-due").Length() != 1 {
		t.Fatal("htmx's date form did not get the section alone")
	}
	reminders := followShowMore(t, b, week, "reminder-due-row", "reminders-more", "data-subscription")
	if len(reminders) != 27 || distinctCount(reminders) != 27 || week.testid("payments-due-empty").Length() != 1 {
		t.Fatalf("reminders due on 2031-01-08: %d rows, %d distinct, want 27 and no payments", len(reminders), distinctCount(reminders))
	}

	// Bad days come back at the field; cursors of another list are refused.
	for _, bad := range []string{"2031-02-30", "15/01/2031", "tomorrow", "2031-1-5"} {
		p := b.get("/admin/subscriptions/due?date=" + url.QueryEscape(bad))
		wantStatus(t, "day "+bad, p, http.StatusUnprocessableEntity)
		wantText(t, "day "+bad, p.testid("error-date"), "YYYY-MM-DD")
	}
	p = b.get("/admin/subscriptions/due?date=nope", "HX-Request", "true")
	wantStatus(t, "bad day with htmx", p, http.StatusUnprocessableEntity)
	if strings.Contains(p.body, "<html") || p.testid("error-date").Length() != 1 {
		t.Fatal("htmx did not get the section with its error")
	}
	cursorOf := func(p page, moreID, param string) string {
		more, _ := p.testid(moreID).Attr("hx-get")
		u, _ := url.Parse(more)
		return u.Query().Get(param)
	}
	payCursor := cursorOf(day, "payments-more", "payments_after")
	remCursor := cursorOf(week, "reminders-more", "reminders_after")
	if payCursor == "" || remCursor == "" {
		t.Fatal("no cursors")
	}
	for what, path := range map[string]string{
		"payments cursor as reminders": "/admin/subscriptions/due?date=2031-01-15&reminders_after=" + url.QueryEscape(payCursor),
		"reminders cursor as payments": "/admin/subscriptions/due?date=2031-01-08&payments_after=" + url.QueryEscape(remCursor),
		"cursor of another day":        "/admin/subscriptions/due?date=2031-01-16&payments_after=" + url.QueryEscape(payCursor),
		"garbage cursor":               "/admin/subscriptions/due?payments_after=e30",
		"cursor with a bad day":        "/admin/subscriptions/due?date=nope&payments_after=" + url.QueryEscape(payCursor),
	} {
		wantStatus(t, what, b.get(path, "HX-Request", "true"), http.StatusBadRequest)
	}
}

// A customer's page shows their subscriptions and their receipts of the last
// six months, paged with htmx.
func TestAdminCustomerSubscriptionsAndReceipts(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	ctx := context.Background()
	ada, henrik := s.customerID(t, demo.CustomerEmail), s.customerID(t, "henrik@fikafield.example")

	p := b.get("/admin/customers/" + ada)
	wantStatus(t, "Ada", p, http.StatusOK)
	subs := p.testid("customer-subscription-row")
	if subs.Length() != 3 {
		t.Fatalf("Ada has %d subscriptions, want the demo's 3", subs.Length())
	}
	statuses := map[string]int{}
	subs.Each(func(_ int, r *goquerySelection) { st, _ := r.Attr("data-status"); statuses[st]++ })
	if statuses["active"] != 2 || statuses["paused"] != 1 {
		t.Fatalf("Ada's subscriptions are %v", statuses)
	}
	wantText(t, "quarterly", subs, "every 3 months")
	want, err := s.env.Store.RecentReceipts(ctx, ada, 100, "")
	if err != nil || len(want.Items) < 8 {
		t.Fatalf("Ada's demo receipts: %d, %v", len(want.Items), err)
	}
	if n := p.testid("customer-receipt-row").Length(); n != len(want.Items) {
		t.Fatalf("the page lists %d receipts, the store %d", n, len(want.Items))
	}
	wantText(t, "newest receipt", p.testid("customer-receipt-row").First(), want.Items[0].Number)

	// Henrik's demo receipts and 25 more page through with htmx.
	seedSubscription(t, s.env.Store, henrik, func(sub *store.Subscription) { sub.ProductID, sub.ProductName = "cf-decaf", "Midnight Decaf 250 g" },
		func() []func(store.Subscription) store.Receipt {
			var rs []func(store.Subscription) store.Receipt
			for i := range 25 {
				rs = append(rs, func(sub store.Subscription) store.Receipt {
					at := time.Now().UTC().Truncate(time.Millisecond).AddDate(0, 0, -(i + 1))
					day := rules.Date(at.Year(), at.Month(), at.Day())
					return store.NewReceipt(sub, store.GatewayCharge{ID: "ch_test", Amount: sub.Amount(), At: at}, day, day.AddDate(0, 1, 0))
				})
			}
			return rs
		}()...)
	all, err := s.env.Store.RecentReceipts(ctx, henrik, 100, "")
	if err != nil || len(all.Items) <= 25 {
		t.Fatalf("Henrik's receipts: %d, %v", len(all.Items), err)
	}
	p = b.get("/admin/customers/" + henrik)
	wantStatus(t, "Henrik", p, http.StatusOK)
	if n := p.testid("customer-subscription-row").Length(); n != 3 {
		t.Fatalf("Henrik has %d subscriptions, want 3", n)
	}
	numbers := followShowMore(t, b, p, "customer-receipt-number", "customer-receipts-more", "")
	if len(numbers) != len(all.Items) || distinctCount(numbers) != len(all.Items) {
		t.Fatalf("receipt pages list %d, %d distinct; want %d", len(numbers), distinctCount(numbers), len(all.Items))
	}
	wantStatus(t, "bad receipts cursor", b.get("/admin/customers/"+henrik+"?receipts_after=e30", "HX-Request", "true"), http.StatusBadRequest)

	// Staff have no subscriptions.
	staff := s.customerID(t, demo.StaffEmail)
	p = b.get("/admin/customers/" + staff)
	if p.testid("customer-subscriptions-empty").Length() != 1 || p.testid("customer-receipts-empty").Length() != 1 {
		t.Fatal("a customer without subscriptions does not say so")
	}
}

// The demo's subscriptions load once: loading again writes nothing, and a
// table that has the shop but not yet the subscriptions gets them (and its
// beans made subscribable again) without doubling any.
func TestDemoSubscriptionsLoadOnce(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	if n := s.env.CountEntities(t, "subscription"); n != 7 {
		t.Fatalf("the demo has %d subscriptions, want 7", n)
	}
	receipts := s.env.CountEntities(t, "receipt")
	if loaded, err := demo.Load(ctx, s.env.Store, bcrypt.MinCost); err != nil || loaded {
		t.Fatalf("second load: %v, %v", loaded, err)
	}
	p, _ := s.env.Store.Product(ctx, "cf-gbg-dark")
	p.Subscribable = false
	if err := s.env.Store.UpdateProduct(ctx, p); err != nil {
		t.Fatal(err)
	}
	_, err := s.env.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.env.Table), Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "meta"}, "SK": &types.AttributeValueMemberS{Value: "marker#demo-subscriptions-v1"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if loaded, err := demo.Load(ctx, s.env.Store, bcrypt.MinCost); err != nil || !loaded {
		t.Fatalf("load onto a table without the subscriptions: %v, %v", loaded, err)
	}
	if n := s.env.CountEntities(t, "subscription"); n != 7 || s.env.CountEntities(t, "receipt") != receipts {
		t.Fatalf("after loading again: %d subscriptions, %d receipts", n, s.env.CountEntities(t, "receipt"))
	}
	if p, _ := s.env.Store.Product(ctx, "cf-gbg-dark"); !p.Subscribable || p.MonthlyPrice != centsEUR(1190) {
		t.Fatalf("dark roast = %+v", p)
	}
}
