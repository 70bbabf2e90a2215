package store_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/store/demo"
	"shop/store/storetest"
)

// The access-pattern tables (docs/access-patterns.md) promise what each
// row costs in DynamoDB requests. The sixteen AWS patterns and the recurring-payment
// ones are asserted where they are tested; this test holds every other row
// to its figure on the demo shop, so a method that grows a request fails
// here rather than in a bill.
func TestEachAccessPatternCostsWhatTheDocsSay(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	st, ctx := env.Store, ctxT(t)
	if _, err := demo.Load(ctx, st, 4); err != nil {
		t.Fatal(err)
	}
	ada, err := st.CredentialsByEmail(ctx, demo.CustomerEmail)
	if err != nil {
		t.Fatal(err)
	}
	henrik, err := st.CredentialsByEmail(ctx, "henrik@fikafield.example")
	if err != nil {
		t.Fatal(err)
	}
	staff, err := st.CredentialsByEmail(ctx, demo.StaffEmail)
	if err != nil {
		t.Fatal(err)
	}
	owner, err := st.Customer(ctx, staff.CustomerID)
	if err != nil || owner.Role != store.RoleOwner {
		t.Fatalf("the demo's owner: %+v, %v", owner, err)
	}
	now := time.Now().UTC()
	product, err := st.Product(ctx, "cf-light")
	if err != nil {
		t.Fatal(err)
	}
	other, err := st.Product(ctx, "cf-decaf")
	if err != nil {
		t.Fatal(err)
	}
	warehouse, err := st.Warehouse(ctx, "gbg")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateGiftCard(ctx, store.GiftCard{Code: "REQCOUNT", Balance: eur(1000), Initial: eur(1000), CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateDiscountCode(ctx, store.DiscountCode{Code: "REQTEN", Kind: store.DiscountPercent, Percent: 10,
		ExpiresAt: now.Add(24 * time.Hour), UsageLimit: 5, CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	subs, err := st.Subscriptions(ctx, ada.CustomerID)
	if err != nil || len(subs) == 0 {
		t.Fatalf("Ada's demo subscriptions: %v, %v", subs, err)
	}
	run := store.JobRun{ID: "run-1", Job: "payments", Date: now, Trigger: "staff", Replica: "test", StartedAt: now}
	var lease store.Lease
	var home, work string // saved addresses' ids
	var key store.APIKey

	rows := []struct {
		pattern string
		want    int
		fn      func() error
	}{
		// The shop's own patterns.
		{"customers, newest first", 1, func() error { _, err := st.Customers(ctx, 20, ""); return err }},
		// One Query per list shard of each month of the range until the
		// page is full.
		{"all orders in a time range within one month", store.DefaultListShards, func() error {
			_, err := st.OrdersBetween(ctx, now.AddDate(0, 0, 1-now.Day()).Truncate(24*time.Hour), now, 20, "")
			return err
		}},
		// The demo's placed orders are on the queue from its load.
		{"the packing queue", store.DefaultListShards, func() error {
			p, err := st.OrdersToPack(ctx, 20, "")
			if err == nil && (len(p.Items) == 0 || len(p.Items[0].ToPick) == 0) {
				err = fmt.Errorf("the demo's placed orders are not on the packing queue: %+v", p.Items)
			}
			return err
		}},
		{"an order by its number", 1, func() error {
			_, err := st.OrderIDByNumber(ctx, "FF-222222")
			if errors.Is(err, store.ErrNotFound) {
				return nil
			}
			return err
		}},
		{"catalogue of one category", 1, func() error { _, err := st.Catalogue(ctx, "coffee", 12, ""); return err }},
		{"the whole catalogue (the shop window's copy)", 1, func() error { _, err := st.AllProducts(ctx); return err }},
		{"gift card by code", 1, func() error { _, err := st.GiftCard(ctx, "REQCOUNT"); return err }},
		{"gift card list", 1, func() error { _, err := st.GiftCards(ctx, 20, ""); return err }},
		{"discount code by code", 1, func() error { _, err := st.DiscountCode(ctx, "REQTEN"); return err }},
		{"discount code list", 1, func() error { _, err := st.DiscountCodes(ctx, 20, ""); return err }},
		// The adjustment, then the level on or off the low-stock list.
		{"stock adjustment with its reason", 2, func() error {
			_, err := st.AdjustStock(ctx, product, warehouse, 3, "counted again", stocktaker)
			return err
		}},
		{"a warehouse's stock adjustments", 1, func() error { _, err := st.StockAdjustments(ctx, "gbg", 20, ""); return err }},
		// A cart's first line: the update finds no cart, a Query looks
		// for old one-item-per-line carts, then a conditional Put.
		{"a cart's first line", 3, func() error { return st.AddToCart(ctx, "v#visitor-1", product, 1) }},
		{"add a new line to a cart", 1, func() error { return st.AddToCart(ctx, "v#visitor-1", other, 1) }},
		// The new-line update fails its condition, then the line grows.
		{"grow a line already there", 2, func() error { return st.AddToCart(ctx, "v#visitor-1", product, 1) }},
		// Both carts are read, then written in one transaction.
		{"a visitor's cart into the customer's", 3, func() error { _, err := st.MergeCart(ctx, "v#visitor-1", "c#"+ada.CustomerID); return err }},
		// The account page: the address book is one item on the
		// customer's partition; the first address makes it (the update
		// finds none, then a conditional Put).
		{"a customer's first saved address", 2, func() error {
			a, err := st.AddAddress(ctx, ada.CustomerID, store.Address{Name: "Ada", Street: "Storgatan", Number: "1", ZipCode: "11122", City: "Stockholm", Country: "SE"}, false)
			home = a.ID
			return err
		}},
		{"save another address", 1, func() error {
			a, err := st.AddAddress(ctx, ada.CustomerID, store.Address{Name: "Ada", Street: "Vasagatan", Number: "2", ZipCode: "11120", City: "Stockholm", Country: "SE"}, false)
			work = a.ID
			return err
		}},
		{"the address book", 1, func() error { _, err := st.Addresses(ctx, ada.CustomerID); return err }},
		{"edit a saved address", 1, func() error {
			return st.UpdateAddress(ctx, ada.CustomerID, work, store.Address{Name: "Ada", Street: "Vasagatan", Number: "4", ZipCode: "11120", City: "Stockholm", Country: "SE"})
		}},
		{"make an address the default", 1, func() error { return st.SetDefaultAddress(ctx, ada.CustomerID, work) }},
		{"delete an address that is not the default", 1, func() error { return st.DeleteAddress(ctx, ada.CustomerID, home) }},
		// The first try assumes it is not the default; its failed
		// condition answers with the book, and the second removes both.
		{"delete the default address", 2, func() error { return st.DeleteAddress(ctx, ada.CustomerID, work) }},
		{"keep a customer's language (their subscriptions, then the write)", 2, func() error { return st.SetCustomerLanguage(ctx, ada.CustomerID, "ko") }},
		{"rename a customer (customer and email items)", 1, func() error { return st.RenameCustomer(ctx, ada.CustomerID, demo.CustomerEmail, "Ada L.") }},
		{"change a password (customer and email items)", 1, func() error {
			return st.ChangePassword(ctx, ada.CustomerID, demo.CustomerEmail, ada.PasswordHash, ada.PasswordHash)
		}},
		{"save a new session", 1, func() error {
			return st.SaveSession(ctx, store.Session{ID: "sess-1", Data: []byte("x"), ExpiresAt: now.Add(time.Hour)}, true)
		}},
		{"delete a session", 1, func() error { return st.DeleteSession(ctx, "sess-1") }},
		{"save a customer's new session", 1, func() error {
			return st.SaveSession(ctx, store.Session{ID: "sess-ada", Data: []byte("x"), ExpiresAt: now.Add(time.Hour), CustomerID: ada.CustomerID, Device: "Firefox on Linux"}, true)
		}},
		{"save a session again", 1, func() error {
			return st.SaveSession(ctx, store.Session{ID: "sess-ada", Data: []byte("y"), ExpiresAt: now.Add(time.Hour)}, false)
		}},
		{"note a session's last seen", 1, func() error { return st.TouchSession(ctx, store.Session{ID: "sess-ada", CustomerID: ada.CustomerID}) }},
		{"a customer's signed-in sessions", 1, func() error { _, err := st.CustomerSessions(ctx, ada.CustomerID); return err }},
		// The customer's sessions are read to find the one by its handle.
		{"sign out one of a customer's sessions", 2, func() error {
			return st.EndSession(ctx, ada.CustomerID, store.Session{ID: "sess-ada"}.Handle())
		}},
		// A Query, and a BatchWriteItem per 25 sessions.
		{"sign a customer out everywhere", 2, func() error {
			for _, id := range []string{"sess-a1", "sess-a2"} {
				if err := st.SaveSession(ctx, store.Session{ID: id, Data: []byte("x"), ExpiresAt: now.Add(time.Hour), CustomerID: ada.CustomerID}, true); err != nil {
					return err
				}
			}
			env.Counter.Reset()
			_, err := st.EndSessions(ctx, ada.CustomerID, "")
			return err
		}},
		// A consistent read of the account, then one transaction.
		{"make a customer staff", 2, func() error { _, _, err := st.ChangeRole(ctx, henrik.CustomerID, store.RoleStaff, owner); return err }},
		{"deactivate an account", 2, func() error { _, _, err := st.Deactivate(ctx, henrik.CustomerID, owner); return err }},
		{"reactivate an account", 2, func() error { _, _, err := st.Reactivate(ctx, henrik.CustomerID, owner); return err }},
		{"an account's role changes", 1, func() error { _, err := st.RoleChanges(ctx, henrik.CustomerID); return err }},
		{"how many owners", 1, func() error { _, err := st.Owners(ctx); return err }},
		{"count an attempt", 1, func() error { _, err := st.CountAttempt(ctx, "signin", "ada", time.Minute); return err }},
		{"give an attempt back", 1, func() error { return st.ReturnAttempt(ctx, "signin", "ada", time.Minute) }},
		// A consistent read of the count, then a conditional update.
		{"space an attempt", 2, func() error { return st.SpaceAttempt(ctx, "signin-spaced", "ada", time.Hour, 5, time.Minute) }},
		{"record a sign-in", 1, func() error {
			cred, err := st.CredentialsByEmail(ctx, demo.CustomerEmail)
			if err != nil {
				return err
			}
			env.Counter.Reset()
			return st.RecordSignIn(ctx, demo.CustomerEmail, cred, "203.0.113.9")
		}},
		{"mark a one-time step", 1, func() error { return st.Mark(ctx, "request-count") }},
		{"is a step marked", 1, func() error { _, err := st.Marked(ctx, "request-count"); return err }},
		// Recurring payments beyond the guide's seven.
		{"one subscription by id", 1, func() error { _, err := st.Subscription(ctx, ada.CustomerID, subs[0].ID); return err }},
		{"subscriptions by status", 1, func() error {
			_, err := st.SubscriptionsByStatus(ctx, store.SubscriptionActive, 20, "")
			return err
		}},
		{"open payment intents", 1, func() error { _, err := st.OpenIntents(ctx, now, 20); return err }},
		// Refunds on cancelling, price changes.
		{"staff's subscription settings", 1, func() error { _, err := st.SubscriptionSettings(ctx); return err }},
		{"save the subscription settings", 1, func() error {
			_, err := st.SaveSubscriptionSettings(ctx, store.SubscriptionSettings{RefundUnusedOnCancel: true, ChangedBy: "req"})
			return err
		}},
		{"every price change", 1, func() error { _, err := st.PriceChanges(ctx); return err }},
		{"a product's price change", 1, func() error {
			_, err := st.ProductPriceChange(ctx, subs[0].ProductID)
			if errors.Is(err, store.ErrNotFound) {
				return nil
			}
			return err
		}},
		{"a product's subscribers in a status", 1, func() error {
			_, err := st.SubscriptionsOfProduct(ctx, subs[0].ProductID, store.SubscriptionActive, 100, "")
			return err
		}},
		// Due dates: one Query per shard, in parallel.
		{"payments due on or before a day", store.DefaultBillingShards, func() error { _, err := st.PaymentsDue(ctx, now, 20, ""); return err }},
		{"reminders due on or before a day", store.DefaultBillingShards, func() error { _, err := st.RemindersDue(ctx, now, 20, ""); return err }},
		// Receipts and invoices in parallel.
		{"a customer's statement", 2, func() error { _, err := st.Statement(ctx, ada.CustomerID, 20, ""); return err }},
		{"record a gateway charge", 1, func() error {
			_, err := st.RecordGatewayCharge(ctx, store.GatewayCharge{Key: "req-charge", ID: "ch-req", Amount: eur(500), Last4: "4242", At: now, Outcome: "ok"})
			return err
		}},
		{"a gateway charge by key", 1, func() error { _, err := st.GatewayCharge(ctx, "req-charge"); return err }},
		{"save a job run", 1, func() error { return st.SaveRun(ctx, run) }},
		{"a job run", 1, func() error { _, err := st.Run(ctx, "payments", run.ID); return err }},
		{"a job's runs", 1, func() error { _, err := st.Runs(ctx, "payments", 20, ""); return err }},
		{"record a run failure", 1, func() error {
			return st.AddRunFailure(ctx, store.RunFailure{RunID: run.ID, SubscriptionID: "s", AccountID: "a", Reason: "declined", At: now})
		}},
		{"a run's failures", 1, func() error { _, err := st.RunFailures(ctx, run.ID, 20, ""); return err }},
		{"take a job's lease", 1, func() error {
			var err error
			lease, err = st.AcquireLease(ctx, "payments", now, "replica-1", time.Minute)
			return err
		}},
		{"renew a lease", 1, func() error { _, err := st.RenewLease(ctx, lease, time.Minute); return err }},
		{"finish a lease", 1, func() error { return st.FinishLease(ctx, lease) }},
		{"put mail in the outbox", 1, func() error {
			return st.PutMail(ctx, store.Mail{ID: "mail-req", To: "ada@fikafield.example", Kind: store.MailReminder,
				Subject: "s", Text: "t", CustomerID: ada.CustomerID, CreatedAt: now, Status: store.MailPending})
		}},
		{"the outbox", 1, func() error { _, err := st.Outbox(ctx, 20, ""); return err }},
		{"mail waiting for delivery", 1, func() error { _, err := st.PendingMail(ctx, 20); return err }},
		// Drops.
		{"published drops", 1, func() error { _, err := st.PublishedDrops(ctx, 20, ""); return err }},
		{"every drop", 1, func() error { _, err := st.AllDrops(ctx, 20, ""); return err }},
		{"product drops to close", 1, func() error { _, err := st.EndedProductDrops(ctx); return err }},
		{"a customer's tickets", 1, func() error { _, err := st.CustomerTickets(ctx, ada.CustomerID, 20, ""); return err }},
		{"API keys and their integrations", 1, func() error { _, err := st.APIAccess(ctx); return err }},
		{"card refunds waiting for the gateway", 1, func() error { _, err := st.PendingCardRefunds(ctx); return err }},
		// The integration and its first key in one transaction, on
		// condition the name was never taken.
		{"add an integration with its key", 1, func() error { _, k, _, err := st.CreateIntegration(ctx, "partner"); key = k; return err }},
		{"issue another key", 1, func() error { _, _, err := st.IssueAPIKey(ctx, "partner"); return err }},
		// The key read, then its revocation, the new key and the
		// integration's check in one transaction.
		{"rotate a key", 2, func() error { _, _, err := st.RotateAPIKey(ctx, key.ID); return err }},
		{"revoke a key", 1, func() error { return st.RevokeAPIKey(ctx, key.ID) }},
		{"revoke an integration", 1, func() error { return st.RevokeIntegration(ctx, "partner") }},
	}
	for _, r := range rows {
		var err error
		env.Costs(t, r.pattern, r.want, func() { err = r.fn() })
		if err != nil {
			t.Errorf("%s: %v", r.pattern, err)
		}
	}
	// The drop rows need a drop of the demo's.
	drops, err := st.PublishedDrops(ctx, 20, "")
	if err != nil || len(drops.Items) == 0 {
		t.Fatalf("demo drops: %v, %v", drops.Items, err)
	}
	var open store.Drop
	for _, d := range drops.Items {
		if strings.EqualFold(string(d.Status), string(store.DropOpen)) && d.Opens.Before(now) {
			open = d
		}
	}
	if open.ID == "" {
		t.Fatal("the demo has no open drop")
	}
	env.Costs(t, "a drop with its counters", 1, func() { _, err = st.Drop(ctx, open.ID) })
	env.Costs(t, "a claim", 1, func() {
		_, err = st.Claim(ctx, store.ClaimRequest{DropID: open.ID, Client: "c#" + ada.CustomerID, CustomerID: ada.CustomerID, DropTitle: open.Title}, false)
	})
	if err != nil {
		t.Fatalf("claim: %v", err)
	}
	env.Costs(t, "a drop's tickets", 1, func() { _, err = st.DropTickets(ctx, open.ID, 20, "") })
	if err != nil {
		t.Fatal(err)
	}
}
