package jobs_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"shop/jobs"
	"shop/store"
	"shop/store/storetest/paytest"
)

// stoppingBeforeCreditNotes is a store over b's table whose process
// "stops" at the transaction that numbers a credit note: that request
// never reaches DynamoDB, as when the process dies between marking a
// refund done and numbering it.
func stoppingBeforeCreditNotes(b *billing) *store.Store {
	o := b.env.Client.Options()
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("stop-before-credit-note",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				if tx, ok := in.Parameters.(*dynamodb.TransactWriteItemsInput); ok && numbersCreditNote(tx) {
					return middleware.InitializeOutput{}, middleware.Metadata{}, errors.New("the process stopped (test)")
				}
				return next.HandleInitialize(ctx, in)
			}), middleware.After)
	})
	return store.New(dynamodb.New(o), b.env.Table, store.WithClock(b.clock.Now))
}

func numbersCreditNote(tx *dynamodb.TransactWriteItemsInput) bool {
	for _, it := range tx.TransactItems {
		if it.Update == nil {
			continue
		}
		if pk, ok := it.Update.Key["PK"].(*types.AttributeValueMemberS); ok && strings.HasPrefix(pk.Value, "books#creditnote") {
			return true
		}
	}
	return false
}

// A refund whose process stopped after marking it done and before giving
// its credit note a number is numbered by the card refunds job, which runs
// every 15 minutes, without waiting for the same refund or its event to
// come again: not while the request that did it may still number it, then
// once.
func TestCardRefundsJobNumbersACreditNoteAStopLeft(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-05-18")
	ctx, st := ctxT(t), b.env.Store
	w := store.Warehouse{ID: "w1", Name: "Main", Address: store.Address{City: "Boras", Country: "Sweden"}}
	p := store.Product{ID: "tea", Name: "Tea", Category: "coffee", Price: eur(2000)}
	if err := st.PutWarehouse(ctx, w); err != nil {
		t.Fatal(err)
	}
	if err := st.PutProduct(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AdjustStock(ctx, p, w, 5, "delivery", store.Customer{ID: "staff"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateGiftCard(ctx, store.GiftCard{Code: "GIFT-STOP-0001", Balance: eur(5000)}); err != nil {
		t.Fatal(err)
	}
	o, err := st.HoldCheckout(ctx, store.CheckoutRequest{Key: "gift-1", CustomerID: "ada", Buyer: store.Buyer{Name: "Ada", Email: "ada@example.com"},
		Lines: []store.CheckoutLine{{ProductID: "tea", Quantity: 1}}, GiftCardCode: "GIFT-STOP-0001", HoldFor: 30 * time.Minute,
		ShipTo: store.Address{Street: "Main", Number: "1", ZipCode: "11111", City: "Boras", Country: "Sweden"}})
	if err != nil || o.Status != store.OrderPlaced {
		t.Fatalf("an order the gift card pays whole: %+v %v", o, err)
	}
	pay := paytest.New(t, st)
	// Back to the gift card: done at once, then its number, where the
	// process stops.
	if _, err := stoppingBeforeCreditNotes(b).RefundOrder(ctx, store.OrderRefundRequest{OrderID: o.ID, Key: "rf-stop", Reason: "Broken", By: store.Customer{ID: "staff"},
		Amount: eur(800)}, pay.Refunds()); err == nil {
		t.Fatal("the refund reported its credit note numbered by a process that stopped first")
	}
	if rf := must(st.OrderRefund(ctx, o.ID, "rf-stop")); rf.Status != store.RefundDone || rf.CreditNote != "" {
		t.Fatalf("after the stop the refund is %s with note %q, want done without one", rf.Status, rf.CreditNote)
	}
	r := jobs.NewRunner(st, b.gateway, jobs.Config{Replica: "r1", Refunds: pay.Refunds()})
	run := func(after time.Duration) {
		t.Helper()
		b.clock.Set(b.clock.Now().Add(after))
		got, err := jobs.RunLeased(ctx, r, st, jobs.JobCardRefunds, st.Today(), jobs.TriggerSchedule, nil)
		if err != nil || got.Outcome != store.RunCompleted {
			t.Fatalf("run: %+v, %v", got, err)
		}
	}
	run(0) // the request that made it may still number it: left to it
	if rf := must(st.OrderRefund(ctx, o.ID, "rf-stop")); rf.CreditNote != "" {
		t.Fatalf("numbered within its request's grace: %q", rf.CreditNote)
	}
	run(15 * time.Minute)
	rf := must(st.OrderRefund(ctx, o.ID, "rf-stop"))
	if rf.CreditNote != "CN2026-000001" || rf.CreditNoteAt.IsZero() {
		t.Fatalf("after the job's next run the refund's credit note is %q, want CN2026-000001", rf.CreditNote)
	}
	run(15 * time.Minute)
	if again := must(st.OrderRefund(ctx, o.ID, "rf-stop")); again.CreditNote != rf.CreditNote || !again.CreditNoteAt.Equal(rf.CreditNoteAt) {
		t.Fatalf("numbered again: %q at %v", again.CreditNote, again.CreditNoteAt)
	}
	if n, err := st.NumberDueCreditNotes(ctx); err != nil || n != 0 {
		t.Fatalf("still due after it was numbered: %d %v", n, err)
	}
}
