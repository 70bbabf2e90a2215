package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/demo"
)

// rawID is what an id looks like (store.NewID): 20 characters of its
// base32 alphabet, which has no i, l, o or u.
var rawID = regexp.MustCompile(`\b[0-9a-hjkmnp-tv-z]{20}\b`)

// noRawIDs fails when a page's title or visible text shows an id: people
// read numbers and names, not ids. A mail's own words (its text and HTML
// source, in <pre>) are left out: they hold the links mailed.
func noRawIDs(t *testing.T, what string, p page) {
	t.Helper()
	if p.status != http.StatusOK {
		t.Fatalf("%s: status %d", what, p.status)
	}
	body := p.doc.Find("body").Clone()
	body.Find("script, style, template, pre").Remove()
	text := p.doc.Find("title").Text() + " " + body.Text()
	if ids := rawID.FindAllString(text, 3); len(ids) > 0 {
		t.Errorf("%s shows ids %v:\n%s", what, ids, trim(text))
	}
}

var shipmentNumber = regexp.MustCompile(`^SH-[2-9A-Z]{6}$`)

// A shipment is named by its number wherever staff or the customer read
// of it: the staff order page, the shipment's page, its confirm page, the
// list by status, the warehouse's shipments, the packing slip, the
// customer's order page and the shipped mail, whose outbox page names the
// customer. No page shows an id. A shipment from before numbers is named
// by its warehouse (staff) or its place among the order's (customer).
func TestShipmentsAreNamedByTheirNumbers(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	o, path, sid := shippingOrder(t, s, b)

	op := b.get(path)
	num := trim(op.testid("order-shipment-link").First().Text())
	if !shipmentNumber.MatchString(num) {
		t.Fatalf("the order page names its shipment %q", num)
	}
	if title := op.doc.Find("title").Text(); !strings.Contains(title, o.Number) {
		t.Errorf("the staff order page's title %q lacks %s", title, o.Number)
	}
	noRawIDs(t, "staff order page", op)

	sp := b.get("/admin/shipments/" + sid)
	wantText(t, "shipment heading", sp.testid("shipment-name"), "Shipment "+num)
	wantText(t, "shipment's order", sp.testid("shipment-order"), o.Number)
	noRawIDs(t, "staff shipment page", sp)

	form := url.Values{"status": {"shipped"}, "carrier": {"ups"}, "tracking": {"1Z999AA10123456784"}, "version": {shipmentVersion(b, sid)}}
	confirm := b.post(path+"/shipments/"+sid, form)
	if got := trim(confirm.testid("confirm-what").Text()); !strings.HasPrefix(got, "Shipment "+num+" is") {
		t.Errorf("the confirm page says %q", got)
	}
	noRawIDs(t, "confirm page", confirm)
	wantStatus(t, "ship", b.post(path+"/shipments/"+sid, hiddenFields(confirm, "confirm-form")), http.StatusSeeOther)
	shipped := b.get("/admin/shipments/" + sid)
	if flash := trim(shipped.testid("flash").Text()); !strings.Contains(flash, num) {
		t.Errorf("the flash %q does not name %s", flash, num)
	}
	noRawIDs(t, "shipment page after shipping", shipped)

	list := b.get("/admin/shipments?status=shipped")
	row := list.doc.Find(`[data-testid="shipments-row"][data-shipment="` + sid + `"]`)
	wantText(t, "list's shipment", row.Find(`[data-testid="shipments-link"]`), num)
	wantText(t, "list's order", row.Find(`[data-testid="shipments-order"]`), o.Number)
	noRawIDs(t, "shipments shipped", list)
	whHref, _ := sp.testid("shipment-warehouse").Attr("href")
	noRawIDs(t, "warehouse's shipments", b.get(whHref+"/shipments"))
	slipHref, _ := sp.testid("packing-slip-link").Attr("href")
	slip := b.get(slipHref)
	wantText(t, "slip's shipment", slip.testid("slip-shipment"), num)
	noRawIDs(t, "packing slip", slip)

	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	mine := ada.get("/orders/" + o.ID)
	wantText(t, "customer's shipment", mine.testid("shipment-name"), "Shipment "+num)
	noRawIDs(t, "customer's order page", mine)

	mail := b.get("/admin/outbox/" + store.MailID("shipped", sid, "v2"))
	wantStatus(t, "the shipped mail", mail, http.StatusOK)
	if text := mail.testid("mail-text").Text(); !strings.Contains(text, "Your parcel "+num+" (") {
		t.Errorf("the shipped mail does not name %s:\n%s", num, text)
	}
	wantText(t, "mail's customer", mail.testid("mail-customer"), "Ada Lindqvist ("+demo.CustomerEmail+")")
	noRawIDs(t, "outbox mail page", mail)

	// In Korean and Indonesian too.
	wantText(t, "ko shipment heading", b.get("/admin/shipments/"+sid+"?lang=ko").testid("shipment-name"), "배송 "+num)
	wantText(t, "id customer's shipment", ada.get("/orders/"+o.ID+"?lang=id").testid("shipment-name"), "Pengiriman "+num)
	noRawIDs(t, "ko shipments shipped", b.get("/admin/shipments?status=shipped"))
	b.get("/admin/orders?lang=en")
	ada.get("/orders?lang=en")

	// A shipment from before numbers: its order's number is read, and it
	// is named by where it leaves from, or its place in the order.
	_, err := s.env.Client.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName: aws.String(s.env.Table),
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "o#" + o.ID}, "SK": &types.AttributeValueMemberS{Value: "sh#" + sid}},
		UpdateExpression:         aws.String("REMOVE #n, OrderNumber"),
		ExpressionAttributeNames: map[string]string{"#n": "Number"},
	})
	if err != nil {
		t.Fatal(err)
	}
	old := b.get("/admin/shipments/" + sid)
	warehouse := trim(old.testid("shipment-warehouse").Text())
	wantText(t, "an old shipment's heading", old.testid("shipment-name"), "Shipment from "+warehouse)
	wantText(t, "an old shipment's order", old.testid("shipment-order"), o.Number)
	noRawIDs(t, "an old shipment's page", old)
	list = b.get("/admin/shipments?status=shipped")
	row = list.doc.Find(`[data-testid="shipments-row"][data-shipment="` + sid + `"]`)
	wantText(t, "an old shipment in the list", row.Find(`[data-testid="shipments-link"]`), "no number")
	wantText(t, "an old shipment's order in the list", row.Find(`[data-testid="shipments-order"]`), "its order")
	noRawIDs(t, "shipments with an old one", list)
	mine = ada.get("/orders/" + o.ID)
	wantText(t, "an old shipment for the customer", mine.testid("shipment-name"), "Shipment 1 of 1")
	noRawIDs(t, "customer's order page with an old shipment", mine)
	noRawIDs(t, "staff order page with an old shipment", b.get(path))
}

// The staff customer page names the orders of its invoices and products
// by their numbers (one BatchGetItem a page), in English and Korean.
func TestStaffCustomerPageNamesOrdersByNumber(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	ada := s.customerID(t, demo.CustomerEmail)
	for _, lang := range []string{"en", "ko"} {
		p := b.get("/admin/customers/" + ada + "?lang=" + lang)
		orders := p.testid("customer-invoice-order").AddSelection(p.testid("customer-product-order"))
		if orders.Length() < 2 {
			t.Fatalf("%s: Ada's page names %d orders", lang, orders.Length())
		}
		orders.Each(func(_ int, a *goquerySelection) {
			if n := trim(a.Text()); !strings.HasPrefix(n, "FF-") {
				t.Errorf("%s: an order named %q", lang, n)
			}
		})
		noRawIDs(t, lang+" staff customer page", p)
	}
}

// A product drop is made by picking its product from the catalogue (an id
// typed into the form anyway is still checked), and its page names the
// product, the warehouses its quantity was set aside from, its holders
// (name and email) and the staff member who made it; a drop from before
// its maker was kept says the shop's staff made it.
func TestStaffDropPageNamesProductWarehousesHoldersAndMaker(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	staff := s.staff(t)
	p := staff.get("/admin/drops")
	picker := p.doc.Find(`select[name="product_id"]`)
	if picker.Length() != 1 || p.doc.Find(`input[name="product_id"]`).Length() != 0 {
		t.Fatal("the new-drop form has no product picker")
	}
	if got := trim(picker.Find(`option[value="cf-grinder"]`).Text()); got != "Hand Grinder" {
		t.Fatalf("the picker names cf-grinder %q", got)
	}
	loc := s.env.Store.Location()
	at := func(d time.Duration) string { return time.Now().Add(d).In(loc).Format("2006-01-02T15:04:05") }
	form := func(product string) url.Values {
		return url.Values{"title": {"Grinder drop"}, "quantity": {"2"}, "opens": {at(-10 * time.Second)}, "closes": {at(24 * time.Hour)},
			"published": {"on"}, "product_id": {product}, "price": {"40"}, "redeem_hours": {"48"}}
	}
	p = staff.post("/admin/drops", form("no-such-product"))
	wantStatus(t, "a typed unknown product", p, http.StatusUnprocessableEntity)
	if p.testid("error-product_id").Length() != 1 {
		t.Fatalf("an unknown product is not refused at its field:\n%s", trim(p.testid("drop-form").Text()))
	}
	p = staff.post("/admin/drops", form("cf-grinder"))
	wantStatus(t, "create a product drop", p, http.StatusSeeOther)
	dropID := strings.TrimPrefix(p.header.Get("Location"), "/admin/drops/")
	holder, holderID := s.newCustomer(t, "Ada Drops")
	wantStatus(t, "claim", holder.claim(dropID, false), http.StatusOK)

	ws, err := s.env.Store.Warehouses(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range ws {
		names = append(names, w.Name)
	}
	for _, lang := range []string{"en", "id"} {
		p = staff.get("/admin/drops/" + dropID + "?lang=" + lang)
		wantText(t, lang+" product", p.testid("admin-drop-product-name"), "Hand Grinder")
		setAside := trim(p.testid("admin-drop-set-aside").Text())
		if !slices.ContainsFunc(names, func(n string) bool { return strings.Contains(setAside, n) }) {
			t.Errorf("%s: %q names no warehouse of %v", lang, setAside, names)
		}
		wantText(t, lang+" holder", p.testid("admin-ticket-holder"), "Ada Drops (ada.drops@example.com)")
		if href, _ := p.testid("admin-ticket-holder").Attr("href"); href != "/admin/customers/"+holderID {
			t.Errorf("%s: the holder links to %q", lang, href)
		}
		noRawIDs(t, lang+" staff drop page", p)
	}
	wantText(t, "maker", p.testid("admin-drop-created-by"), "dibuat oleh Sam Staff")
	staff.get("/admin/drops?lang=en")

	old := s.openDrop(t, "An old drop", 5)
	p = staff.get("/admin/drops/" + old.ID)
	wantText(t, "an old drop's maker", p.testid("admin-drop-created-by"), "made by the shop's staff")
	noRawIDs(t, "an old drop's page", p)
}

// An order from before order numbers is named by a short reference its id
// holds (store.Order.Label), on the staff and customer pages alike: the
// lists, the order pages and their titles; no page shows its id.
func TestOrdersFromBeforeNumbersAreNamedWithoutTheirIDs(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	adaID := s.customerID(t, demo.CustomerEmail)
	o := newOrderMaker(t, s.env.Store).place(s.env.Store, adaID, line("kt-mug", 1))
	_, err := s.env.Client.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName: aws.String(s.env.Table),
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "o#" + o.ID}, "SK": &types.AttributeValueMemberS{Value: "c#" + adaID}},
		UpdateExpression:         aws.String("REMOVE #n"),
		ConditionExpression:      aws.String("attribute_exists(#n)"),
		ExpressionAttributeNames: map[string]string{"#n": "Number"},
	})
	if err != nil {
		t.Fatal(err)
	}
	ref := "#" + strings.ToUpper(o.ID[13:19])

	b := s.staff(t)
	staff := b.get("/admin/orders/" + o.ID)
	if title := staff.doc.Find("title").Text(); !strings.Contains(title, ref) {
		t.Errorf("the staff order page's title %q does not name the order %s", title, ref)
	}
	noRawIDs(t, "staff order page", staff)
	noRawIDs(t, "staff to-pack queue", b.get("/admin/shipments"))

	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	mine := ada.get("/orders/" + o.ID)
	wantText(t, "customer's order heading", mine.testid("order-number"), ref)
	noRawIDs(t, "customer's order page", mine)
	list := ada.get("/orders")
	wantText(t, "customer's orders", list.doc.Find(`[data-testid="order-number"][href="/orders/`+o.ID+`"]`), ref)
	noRawIDs(t, "customer's orders", list)
}
