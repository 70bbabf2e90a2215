package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/store/payment"
)

// soakLedger is the test provider's payments and refunds since the start.
type soakLedger struct {
	payments []store.TestPayIntent
	byID     map[string]store.TestPayIntent
	refunds  map[string]store.TestPayRefund // by id
	refunded map[string]int64               // payment id: its succeeded refunds
}

func (r *soakRun) readLedger(t *testing.T, start time.Time) soakLedger {
	t.Helper()
	ctx := context.Background()
	l := soakLedger{byID: map[string]store.TestPayIntent{}, refunds: map[string]store.TestPayRefund{}, refunded: map[string]int64{}}
	for _, pk := range soakScan(t, r.cl, "testPayIntent", "CreatedAt", start) {
		pi, err := r.cl.st.TestPayIntent(ctx, strings.TrimPrefix(pk, "gwintent#"))
		if err != nil {
			t.Fatal(err)
		}
		l.payments = append(l.payments, pi)
		l.byID[pi.ID] = pi
	}
	for _, pk := range soakScan(t, r.cl, "testPayRefund", "At", start) {
		rf, err := r.cl.st.TestPayRefund(ctx, strings.TrimPrefix(pk, "gwrefund#"))
		if err != nil {
			t.Fatal(err)
		}
		l.refunds[rf.ID] = rf
		if rf.Status == payment.RefundSucceeded {
			l.refunded[rf.PaymentRef] += rf.Amount.Amount
		}
	}
	return l
}

// checkProvider checks the test provider's books against the shop's:
// every payment it took since the start placed its order (the order's
// hold names it) or paid a receipt, or came too late for its order and is
// refunded (or its refund is pending); none gave back more than it took,
// and what it gave back is its refunds; every refund it made is one the
// shop recorded on that order or receipt, for as much, and every card
// refund the shop says is done was made there. No period of a
// subscription was paid twice, and the old gateway charged nothing.
func (r *soakRun) checkProvider(t *testing.T, start time.Time, o soakOrders, receipts map[string]store.Receipt) []string {
	t.Helper()
	l := r.readLedger(t, start)
	var paid, byOrder, byReceipt, late, declined int
	var taken, back int64
	periods := map[string]int{}
	for _, pi := range l.payments {
		if pi.Status != payment.PaymentSucceeded {
			declined++ // declined, or never confirmed: nothing taken
			continue
		}
		paid++
		taken += pi.Amount.Amount
		back += pi.Refunded.Amount
		if pi.Refunded.Amount > pi.Amount.Amount || pi.Refunded.Amount != l.refunded[pi.ID] {
			t.Errorf("payment %s of %s gave back %s; its refunds come to %d", pi.ID, pi.Amount, pi.Refunded, l.refunded[pi.ID])
		}
		if sub, period := pi.Metadata[payment.MetaSubscription], pi.Metadata[payment.MetaPeriod]; sub != "" && period != "" {
			periods[sub+" "+period]++
		}
		switch orderID := pi.Metadata[payment.MetaOrder]; {
		case orderID != "":
			d, ok := o.details[orderID]
			switch {
			case !ok:
				t.Errorf("payment %s pays order %s, which the books do not hold", pi.ID, orderID)
			case d.Order.Hold != nil && d.Order.Hold.PaymentRef == pi.ID && d.Order.Status != store.OrderExpired && d.Order.Status != store.OrderAwaitingPayment:
				byOrder++
				if pi.Amount != d.Order.Hold.Card {
					t.Errorf("payment %s of %s placed order %s, whose card was to pay %s", pi.ID, pi.Amount, orderID, d.Order.Hold.Card)
				}
			case soakLateRefund(d, pi):
				late++
			default:
				t.Errorf("payment %s of %s did not place order %s (%s) and is not refunded", pi.ID, pi.Amount, orderID, d.Order.Status)
			}
		case payment.ForSubscription(pi.Metadata):
			rc, ok := receipts[pi.ID]
			if !ok {
				t.Errorf("payment %s of %s for a subscription (%v) has no receipt", pi.ID, pi.Amount, pi.Metadata)
				continue
			}
			byReceipt++
			if pi.Amount != rc.Amount {
				t.Errorf("payment %s of %s, its receipt %s says %s", pi.ID, pi.Amount, rc.Number, rc.Amount)
			}
		default:
			t.Errorf("payment %s of %s belongs to no order or subscription (%v)", pi.ID, pi.Amount, pi.Metadata)
		}
	}
	for k, n := range periods {
		if n > 1 {
			t.Errorf("subscription period %s: paid %d times at the provider", k, n)
		}
	}
	refunds := r.checkRefunds(t, o, receipts, l)
	if n := len(soakScan(t, r.cl, "gatewayCharge", "At", start)); n > 0 {
		t.Errorf("the old test gateway took %d charges: every card payment goes through the provider", n)
	}
	return []string{
		fmt.Sprintf("test provider: %d payments of %s (%d declined or unconfirmed besides): %d placed their orders, %d paid receipts, %d came too late and are refunded; %s given back, each payment's refunds its own, none above it",
			paid, store.Money{Amount: taken, Currency: "EUR"}, declined, byOrder, byReceipt, late, store.Money{Amount: back, Currency: "EUR"}),
		refunds,
		"old test gateway: no charge since the start",
	}
}

// soakLateRefund says whether the order holds the refund of a payment
// that could not place it (the hold released before it came, or another
// payment placed it): the whole payment, keyed by it.
func soakLateRefund(d store.OrderDetails, pi store.TestPayIntent) bool {
	for _, rf := range d.Refunds {
		if strings.HasPrefix(rf.ID, "late-") && rf.Card == pi.Amount {
			return true
		}
	}
	return false
}

// checkRefunds: each refund the provider made is one of the shop's (an
// order's refund, or a receipt's) for as much and of that order's or
// receipt's payment; each card refund the shop says is done was made at
// the provider.
func (r *soakRun) checkRefunds(t *testing.T, o soakOrders, receipts map[string]store.Receipt, l soakLedger) string {
	t.Helper()
	var ofOrders, ofReceipts, pending int
	for _, rf := range l.refunds {
		if rf.Status != payment.RefundSucceeded {
			pending++
			continue
		}
		switch orderID, key := rf.Metadata[store.RefundMetaOrder], rf.Metadata[store.RefundMetaRefund]; {
		case orderID != "":
			ofOrders++
			d, ok := o.details[orderID]
			var shop *store.Refund
			for i := range d.Refunds {
				if d.Refunds[i].ID == key {
					shop = &d.Refunds[i]
				}
			}
			if !ok || shop == nil || shop.Card != rf.Amount || l.byID[rf.PaymentRef].Metadata[payment.MetaOrder] != orderID {
				t.Errorf("the provider's refund %s of %s (order %s, refund %s) is not the shop's (%+v)", rf.ID, rf.Amount, orderID, key, shop)
			}
		case rf.Metadata[store.RefundMetaReceipt] != "":
			ofReceipts++
			rc, ok := receipts[rf.PaymentRef]
			if !ok || rc.Refund == nil || rc.Refund.Amount != rf.Amount {
				t.Errorf("the provider's refund %s of %s (payment %s) is not its receipt's (%+v)", rf.ID, rf.Amount, rf.PaymentRef, rc.Refund)
			}
		default:
			t.Errorf("the provider's refund %s of %s names no order or receipt (%v)", rf.ID, rf.Amount, rf.Metadata)
		}
	}
	done := 0
	for id, d := range o.details {
		for _, rf := range d.Refunds {
			if rf.Card.Amount == 0 || rf.Status != store.RefundDone {
				continue
			}
			done++
			if at, ok := l.refunds[rf.GatewayRefundID]; !ok || at.Amount != rf.Card || at.Status != payment.RefundSucceeded {
				t.Errorf("order %s's card refund %s of %s is done, but the provider's refund %q is %+v", id, rf.ID, rf.Card, rf.GatewayRefundID, at)
			}
		}
	}
	for _, rc := range receipts {
		if rc.Refund != nil && rc.Refund.Status == store.ReceiptRefunded {
			if at, ok := l.refunds[rc.Refund.GatewayID]; !ok || at.Amount != rc.Refund.Amount || at.PaymentRef != rc.ChargeID {
				t.Errorf("receipt %s's refund of %s is done, but the provider's refund %q is %+v", rc.Number, rc.Refund.Amount, rc.Refund.GatewayID, at)
			}
		}
	}
	return fmt.Sprintf("test provider refunds: %d of orders' refunds, %d of receipts' (%d not succeeded yet), each the shop's for as much; the shop's %d card refunds of orders done are each one of them",
		ofOrders, ofReceipts, pending, done)
}
