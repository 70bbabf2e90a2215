package store_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"shop/store"
)

// Refunds done at the same moment on many orders each take a credit
// note's number of the series: distinct, consecutive from the first, no
// gap; a refund's number is given once, however often it is finished
// again; and the series is its own ("CN"), apart from invoices'.
//
// Not parallel: a race of transactions on one counter beside other tests'
// writes makes DynamoDB Local time out its lock waits.
func TestCreditNotesAreGaplessUnderARace(t *testing.T) {
	const n = 12
	f := newFixture(t, map[string][2]int{"p": {n, 0}}, 1000)
	ctx, st := ctxT(t), f.env.Store
	orders := make([]store.Order, n)
	for i := range orders {
		orders[i] = f.checkoutInOneTransaction(t, request(fmt.Sprintf("cn-place-%02d", i), fmt.Sprintf("cust-%02d", i), store.CheckoutLine{ProductID: "p", Quantity: 1})).Order
	}
	notes := make([]string, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, o := range orders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			rf, err := st.RefundOrder(ctx, store.OrderRefundRequest{OrderID: o.ID, Key: "cn-refund", Reason: "Returned", By: refunder, Amount: eur(1000)}, f.pay.Refunds())
			if err != nil {
				t.Errorf("refund of order %d: %v", i, err)
				return
			}
			notes[i] = rf.CreditNote
		}()
	}
	close(start)
	wg.Wait()
	if t.Failed() {
		return
	}
	year := time.Now().Year()
	got := slices.Clone(notes)
	slices.Sort(got)
	for i, note := range got {
		if want := fmt.Sprintf("CN%d-%06d", year, i+1); note != want {
			t.Fatalf("credit notes %v: number %d is %q, want %s", got, i+1, note, want)
		}
	}
	// Finished again (the same key), each keeps its number and none is
	// taken; the order's read shows it.
	for i, o := range orders {
		rf, err := st.RefundOrder(ctx, store.OrderRefundRequest{OrderID: o.ID, Key: "cn-refund", Reason: "Returned", By: refunder, Amount: eur(1000)}, f.pay.Refunds())
		if err != nil || rf.CreditNote != notes[i] {
			t.Fatalf("order %d's refund again: credit note %q (was %q), %v", i, rf.CreditNote, notes[i], err)
		}
		d := must(st.OrderDetails(ctx, o.ID))
		if len(d.Refunds) != 1 || d.Refunds[0].CreditNote != notes[i] || d.Refunds[0].CreditNoteAt.IsZero() {
			t.Fatalf("order %d's page reads refunds %+v", i, d.Refunds)
		}
		if inv, _ := d.Invoice(); strings.HasPrefix(inv.ID, "CN") {
			t.Fatalf("the invoice took a credit note's number: %s", inv.ID)
		}
	}
}
