package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"shop/store"
	"shop/store/demo"
	"shop/store/storetest"
	"shop/web"
	"shop/web/paths"
)

// sessionFault makes the engine refuse the session's own writes while it
// is on, as if it died right after the handler's write and before the
// session's save: everything else the request does goes through.
type sessionFault struct {
	on     atomic.Bool
	failed atomic.Int32 // session writes refused
}

func (f *sessionFault) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("SessionFault",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			if f.on.Load() && sessionWrite(in.Parameters) {
				f.failed.Add(1)
				return middleware.InitializeOutput{}, middleware.Metadata{}, fmt.Errorf("%w: gone under the session's save (test)", store.ErrEngineDown)
			}
			return next.HandleInitialize(ctx, in)
		}), middleware.Before)
}

// sessionWrite reports whether params write a session item.
func sessionWrite(params any) bool {
	var key map[string]types.AttributeValue
	switch in := params.(type) {
	case *dynamodb.PutItemInput:
		key = in.Item
	case *dynamodb.UpdateItemInput:
		key = in.Key
	case *dynamodb.DeleteItemInput:
		key = in.Key
	}
	pk, ok := key["PK"].(*types.AttributeValueMemberS)
	return ok && strings.HasPrefix(pk.Value, "session#")
}

// withSessionFault serves the app from a store whose session writes f can
// refuse; the gateway keeps its ledger through the store it was given.
func withSessionFault(f *sessionFault) appOption {
	return func(env storetest.Env, cfg *web.Config) {
		client, err := store.NewClient(context.Background(), store.ClientConfig{Endpoint: env.Endpoint}, cfg.Metrics)
		if err != nil {
			panic(err)
		}
		faulty := dynamodb.New(client.Options(), func(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, f.middleware) })
		cfg.Store = store.New(faulty, cfg.Store.Table())
	}
}

// Once an order is placed and charged (or a subscription taken, a refund
// given, a return recorded, a ticket claimed), the answer is the page of
// what was done, even when the session cannot be saved after: an error
// page would have the customer place the order again. The failure is
// logged as an error with what was written.
func TestAWriteThatStandsIsTheAnswerWhenTheSessionIsNotSaved(t *testing.T) {
	t.Parallel()
	fault := &sessionFault{}
	s := newShop(t, withSessionFault(fault))
	ctx, st := context.Background(), s.env.Store
	ada := s.customerID(t, demo.CustomerEmail)
	customer := s.browser(t)
	customer.signIn(demo.CustomerEmail, demo.CustomerPassword)
	staff := s.staff(t)
	m := newOrderMaker(t, st)

	// faulty posts with the session's save failing: the answer is still
	// the 303 to the page of what was done, and the log names it.
	faulty := func(what string, b *browser, path string, form url.Values, to string, logged ...string) page {
		t.Helper()
		before := fault.failed.Load()
		fault.on.Store(true)
		p := b.post(path, form)
		fault.on.Store(false)
		if fault.failed.Load() == before {
			t.Fatalf("%s: no session write was refused; the test tests nothing", what)
		}
		wantStatus(t, what+" with the session's save failing", p, http.StatusSeeOther)
		if loc := p.header.Get("Location"); !strings.HasPrefix(loc, to) {
			t.Fatalf("%s: sent to %q, want %s", what, loc, to)
		}
		for _, l := range logged {
			found := false
			for _, line := range strings.Split(s.log.String(), "\n") {
				if strings.Contains(line, "level=ERROR") && strings.Contains(line, "session not saved") && strings.Contains(line, l) {
					found = true
				}
			}
			if !found {
				t.Fatalf("%s: no error logged with %s:\n%s", what, l, s.log.String())
			}
		}
		return p
	}

	// Checkout: the order is held, and the answer is its payment page.
	wantStatus(t, "add to cart", customer.addToCart("cf-grinder", "1"), http.StatusSeeOther)
	form := customer.freshCheckoutForm()
	p := faulty("checkout", customer, "/checkout", form, s.base+"/test-payments/checkout/")
	placed, err := st.OrderForKey(ctx, form.Get("key"), ada)
	if err != nil || placed.Status != store.OrderAwaitingPayment {
		t.Fatalf("held %+v, %v; sent to %s", placed, err, p.header.Get("Location"))
	}
	if !strings.Contains(s.log.String(), "order="+placed.ID) {
		t.Fatalf("the log does not name the order %s:\n%s", placed.ID, s.log.String())
	}

	// A subscription paid at once with the card kept from a first one
	// (a new card is paid on the provider's page, the subscription
	// started by its event), and its receipt refunded by staff.
	s.coffeeBox(t)
	customer.subscribe(boxID, "10", "1")
	var first store.Subscription
	for _, x := range s.subscriptionsOf(t, ada) {
		if x.ProductID == boxID {
			first = x
		}
	}
	had := len(s.subscriptionsOf(t, ada))
	form = customer.subscribeForm(boxID, "10", "1")
	form.Set("card", first.Card.Token)
	faulty("subscribe", customer, "/subscriptions", form, paths.Subscriptions)
	var sub store.Subscription
	for _, x := range s.subscriptionsOf(t, ada) {
		if x.ProductID == boxID && x.ID != first.ID {
			sub = x
		}
	}
	if n := len(s.subscriptionsOf(t, ada)); n != had+1 || sub.ID == "" {
		t.Fatalf("%d subscriptions after subscribing once to %s, had %d", n, boxID, had)
	}
	receiptOf := func() store.Receipt {
		t.Helper()
		recs, err := st.RecentReceipts(ctx, ada, 100, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs.Items {
			if r.SubscriptionID == sub.ID {
				return r
			}
		}
		t.Fatalf("no receipt of the subscription %s", sub.ID)
		return store.Receipt{}
	}
	rec := receiptOf()
	receipt := "/admin/customers/" + ada + "/receipts/" + rec.Number
	key, _ := staff.get(receipt).doc.Find(`[data-testid="refund-form"] input[name="key"]`).Attr("value")
	faulty("receipt refund", staff, receipt+"/refund", url.Values{"amount": {"1.00"}, "reason": {"Late"}, "key": {key}, "confirm": {"yes"}}, receipt, "receipt="+rec.Number)
	if r := receiptOf(); r.Refund == nil || r.Refund.Status != store.ReceiptRefunded {
		t.Fatalf("receipt after its refund: %+v", r.Refund)
	}
	sub = s.current(t, ada, sub.ID)
	customer.get(paths.Subscriptions)
	faulty("cancel the subscription now", customer, "/subscriptions/"+sub.ID+"/cancel", url.Values{"when": {"now"}, "version": {itoa(sub.Version)}}, paths.Subscriptions, "subscription="+sub.ID)
	if now := s.current(t, ada, sub.ID); now.Status != store.SubscriptionCancelled {
		t.Fatalf("subscription after cancelling now: %s", now.Status)
	}

	// Staff refund an order; the customer cancels another.
	shipping := m.place(st, ada, line("kt-mug", 2))
	if _, err := st.CreateShipments(ctx, shipping.ID, "Standard"); err != nil {
		t.Fatal(err)
	}
	faulty("order refund", staff, paths.AdminOrderRefunds(shipping.ID), refundForm(t, staff.get(paths.AdminOrder(shipping.ID)), "amount", "3.80", "reason", "Late"),
		paths.AdminOrder(shipping.ID), "order="+shipping.ID)
	if d, err := st.OrderDetails(ctx, shipping.ID); err != nil || len(d.Refunds) != 1 {
		t.Fatalf("refunds after one: %+v, %v", d.Refunds, err)
	}
	cancelled := m.place(st, ada, line("cf-grinder", 1))
	key, _ = customer.get(paths.OrderCancel(cancelled.ID)).testid("cancel-form").Find(`input[name="key"]`).Attr("value")
	faulty("cancel", customer, paths.OrderCancel(cancelled.ID), url.Values{"key": {key}}, paths.Order(cancelled.ID), "order="+cancelled.ID)
	if d, err := st.OrderDetails(ctx, cancelled.ID); err != nil || d.Order.Status != store.OrderCancelled {
		t.Fatalf("order after cancelling: %s, %v", d.Order.Status, err)
	}

	// A return: asked, received, inspected and refunded.
	delivered := deliveredOrder(t, s, m)
	orderPath := paths.Order(delivered.ID)
	faulty("ask for a return", customer, orderPath+"/returns", returnForm(customer.get(orderPath), "Arrived damaged", map[string]string{"bk-cinnamon": "2"}),
		orderPath, "order="+delivered.ID)
	href, _ := staff.get(paths.AdminOrder(delivered.ID)).testid("order-return-link").Attr("href")
	faulty("receive", staff, href+"/receive", url.Values{"version": {returnVersion(t, staff.get(href), "receive-form")}}, href, "order="+delivered.ID)
	faulty("inspect", staff, href+"/inspect", url.Values{"version": {returnVersion(t, staff.get(href), "inspect-form")}, "verdict-0": {"accepted"}}, href)
	faulty("refund the return", staff, href+"/refund", url.Values{"version": {returnVersion(t, staff.get(href), "refund-form")}, "warehouse": {"sto"}, "confirm": {"yes"}}, href)
	if d, err := st.OrderDetails(ctx, delivered.ID); err != nil || len(d.Returns) != 1 || d.Returns[0].Status != store.ReturnRefunded {
		t.Fatalf("return after its refund: %+v, %v", d.Returns, err)
	}

	// A drop's ticket, claimed with the plain form.
	d := s.openDrop(t, "Claimed while the session fails", 5)
	customer.get(paths.Drop(d.ID))
	faulty("claim", customer, paths.Drop(d.ID)+"/claim", url.Values{}, paths.Drop(d.ID), "drop="+d.ID)
	if _, err := st.Ticket(ctx, d.ID, ada); err != nil {
		t.Fatalf("the claimed ticket: %v", err)
	}
}
