package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/payment"
	"shop/store/rules"
)

// providerLedger is what the test provider took (succeeded payments) and
// gave back (succeeded refunds), in minor units.
func (s *shop) providerLedger(t *testing.T) (paid, back int64) {
	t.Helper()
	for _, it := range s.env.Items(t) {
		pk, _ := it["PK"].(*types.AttributeValueMemberS)
		if pk == nil || !strings.HasPrefix(pk.Value, "gwintent#") && !strings.HasPrefix(pk.Value, "gwrefund#") {
			continue
		}
		var p providerPayment
		if err := attributevalue.UnmarshalMap(it, &p); err != nil {
			t.Fatal(err)
		}
		switch {
		case p.Status != "succeeded":
		case strings.HasPrefix(pk.Value, "gwrefund#"):
			back += p.Amount
		default:
			paid += p.Amount
		}
	}
	return paid, back
}

// Cancelling now after a swap now that charged the difference gives back
// the unused days at the new line, not the old receipt's: what the
// customer paid minus what came back is the old line's days up to the
// swap plus the new line's days since, to the cent (each share rounded
// down, as UnusedShare does).
func TestCancelNowAfterASwapNowGivesBackTheNewLinesDays(t *testing.T) {
	t.Parallel()
	s, b, ada, sub := subscribedShop(t, "")
	ctx := context.Background()
	staff := s.staff(t)
	wantStatus(t, "settings", staff.get("/admin/subscriptions/settings"), http.StatusOK)
	wantStatus(t, "refunds on cancelling", staff.post("/admin/subscriptions/settings", url.Values{"version": {"0"}, "refund_unused": {"yes"}}), http.StatusSeeOther)
	tea := store.Product{ID: "sub-green-tea", Name: "Green Tea Tin", Description: "Sencha.", Category: "coffee", Price: eur(990), Subscribable: true, MonthlyPrice: eur(1450)}
	if _, err := s.env.Store.CreateProduct(ctx, tea); err != nil {
		t.Fatal(err)
	}
	period := s.receiptOf(t, ada)
	q := s.swapNowQuote(t, ada, 1450, 1)
	if q.Charge.Amount <= 0 {
		t.Fatalf("quote %+v: want a charge", q)
	}
	paid0, back0 := s.providerLedger(t) // the shop's demo data, Ada's subscribing
	wantStatus(t, "swap now", s.act(t, b, sub, "swap", url.Values{"product": {tea.ID}, "quantity": {"1"}, "when": {"now"}}), http.StatusSeeOther)

	today := s.env.Store.Today()
	owed, unused, _ := rules.UnusedShare(eur(1450), period.PeriodStart, period.PeriodEnd, today)
	wantStatus(t, "cancel now", s.act(t, b, s.current(t, ada, sub.ID), "cancel", url.Values{"when": {"now"}}), http.StatusSeeOther)
	wantText(t, "the flash", b.get("/subscriptions").testid("flash"), "We refunded "+owed.String()+" for the "+itoa(unused)+" unused days")

	paid, back := s.providerLedger(t)
	paid, back = period.Amount.Amount+paid-paid0, back-back0 // Ada's period since subscribing
	usedOld := period.Amount.Amount - q.Credit.Amount
	usedNew := q.NewShare.Amount - owed.Amount
	if paid != period.Amount.Amount+q.Charge.Amount || paid-back != usedOld+usedNew {
		t.Fatalf("the provider took %d and gave back %d (net %d); want %d: %d at the old line + %d at the new", paid, back, paid-back, usedOld+usedNew, usedOld, usedNew)
	}
	// Given back from two receipts, told in one mail: the total, and what
	// went back to which card from which receipt.
	if r, err := s.env.Store.CurrentReceipt(ctx, s.current(t, ada, sub.ID)); err != nil || r.Refund == nil || r.Refund.With == nil ||
		r.Refund.Amount.Amount+r.Refund.With.Amount.Amount != owed.Amount {
		t.Fatalf("the period's refund %+v (%v): want the change's part named on it", r.Refund, err)
	}
	mails := s.refundMailsOf(t, sub.ID)
	if len(mails) != 1 || !strings.Contains(mails[0].Text, "We refunded "+owed.String()+" in all") || !strings.Contains(mails[0].Text, period.NumberInBooks()) {
		t.Fatalf("%d refund mails for one cancellation, want one telling of %v in all:\n%+v", len(mails), owed, mails)
	}
}

// refundMailsOf are the receipt refund mails of subscription id.
func (s *shop) refundMailsOf(t *testing.T, id string) []store.Mail {
	t.Helper()
	var out []store.Mail
	for _, m := range s.mailsOf(t, store.MailReceiptRefund) {
		if m.SubscriptionID == id {
			out = append(out, m)
		}
	}
	return out
}

// A period paid with a discount code: the credit is what was paid, and the
// new line's days are priced with the same code, not at full price.
func TestSwapNowPricesTheNewLineWithThePeriodsCode(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	s.coffeeBox(t)
	s.discountCode(t, store.DiscountCode{Code: "BOX10", Payments: 2})
	if _, err := s.env.Store.CreateProduct(context.Background(), store.Product{ID: "sub-green-tea", Name: "Green Tea Tin", Description: "Sencha.",
		Category: "coffee", Price: eur(990), Subscribable: true, MonthlyPrice: eur(1450)}); err != nil {
		t.Fatal(err)
	}
	b, ada := s.newCustomer(t, "Ada Test")
	form := b.subscribeForm(boxID, itoa(s.env.Store.Today().Day()), "1")
	form.Set("code", "BOX10")
	b.subscribePaying(form, payment.CardSucceeds)
	sub := s.subscriptionsOf(t, ada)[0]
	period := s.receiptOf(t, ada)
	if period.DiscountCode != "BOX10" {
		t.Fatalf("the period's receipt %+v: want BOX10's discount", period)
	}
	// 10 % off €14.50: the new line's days at €13.05 a month.
	q := store.QuoteSwapNow(period.Amount, eur(1305), period.PeriodStart, period.PeriodEnd, s.env.Store.Today())
	p := s.act(t, b, sub, "swap", url.Values{"product": {"sub-green-tea"}, "quantity": {"1"}, "when": {"now"}, "preview": {"1"}})
	wantText(t, "share with the code", subCard(p, sub.ID).Find(sel("sub-swap-share")), "Green Tea Tin for those days: "+q.NewShare.String())
	wantStatus(t, "swap now", s.act(t, b, sub, "swap", url.Values{"product": {"sub-green-tea"}, "quantity": {"1"}, "when": {"now"}}), http.StatusSeeOther)
	if r := s.receiptOf(t, ada); r.Kind != store.ReceiptChange || r.Amount != q.Charge {
		t.Fatalf("the change's receipt %+v, want %v charged", r, q.Charge)
	}
}

// Cancelling now after a swap now that refunded the difference gives back
// the rest of the period at the new line, as a top-up of the period's
// receipt (which the swap's refund took): what the customer paid minus
// all that came back is the old line's days up to the swap plus the new
// line's since, to the cent.
func TestCancelNowAfterASwapNowRefundGivesBackTheRest(t *testing.T) {
	t.Parallel()
	s, b, ada, sub := subscribedShop(t, "")
	ctx := context.Background()
	staff := s.staff(t)
	wantStatus(t, "settings", staff.get("/admin/subscriptions/settings"), http.StatusOK)
	wantStatus(t, "refunds on cancelling", staff.post("/admin/subscriptions/settings", url.Values{"version": {"0"}, "refund_unused": {"yes"}}), http.StatusSeeOther)
	small := store.Product{ID: "sub-small-tea", Name: "Small Tea", Description: "A little.", Category: "coffee", Price: eur(490), Subscribable: true, MonthlyPrice: eur(500)}
	if _, err := s.env.Store.CreateProduct(ctx, small); err != nil {
		t.Fatal(err)
	}
	period := s.receiptOf(t, ada)
	q := s.swapNowQuote(t, ada, 500, 1)
	if q.Refund.Amount <= 0 {
		t.Fatalf("quote %+v: want a refund", q)
	}
	paid0, back0 := s.providerLedger(t)
	wantStatus(t, "swap now", s.act(t, b, sub, "swap", url.Values{"product": {small.ID}, "quantity": {"1"}, "when": {"now"}}), http.StatusSeeOther)

	today := s.env.Store.Today()
	owed, unused, _ := rules.UnusedShare(eur(500), period.PeriodStart, period.PeriodEnd, today)
	if owed.Amount <= 0 {
		t.Fatalf("nothing left to give back today (%d unused days)", unused)
	}
	wantStatus(t, "cancel now", s.act(t, b, s.current(t, ada, sub.ID), "cancel", url.Values{"when": {"now"}}), http.StatusSeeOther)
	wantText(t, "the flash", b.get("/subscriptions").testid("flash"), "We refunded "+owed.String()+" for the "+itoa(unused)+" unused days")

	paid, back := s.providerLedger(t)
	paid, back = period.Amount.Amount+paid-paid0, back-back0
	usedOld := period.Amount.Amount - q.Credit.Amount
	usedNew := q.NewShare.Amount - owed.Amount
	if paid != period.Amount.Amount || back != q.Refund.Amount+owed.Amount || paid-back != usedOld+usedNew {
		t.Fatalf("the provider took %d and gave back %d (net %d); want %d back, net %d: %d at the old line + %d at the new",
			paid, back, paid-back, q.Refund.Amount+owed.Amount, usedOld+usedNew, usedOld, usedNew)
	}
	r, err := s.env.Store.CurrentReceipt(ctx, s.current(t, ada, sub.ID))
	if err != nil {
		t.Fatal(err)
	}
	if r.Number != period.Number || r.Refunded().Amount != q.Refund.Amount+owed.Amount || r.Refund.By != "cancellation" {
		t.Fatalf("the period's receipt %s: refunded %v (%+v), want %d in all", r.Number, r.Refunded(), r.Refund, q.Refund.Amount+owed.Amount)
	}
	// Each refund is a credit note of its own: the swap's kept when the
	// cancellation's topped it up.
	if notes := r.CreditNotes(); len(notes) != 2 || notes[0].Amount.Amount != q.Refund.Amount || notes[1].Amount != owed || notes[0].Number == notes[1].Number {
		t.Fatalf("the period's receipt's credit notes %+v, want the swap's (%d) and the cancellation's (%v)", notes, q.Refund.Amount, owed)
	}
	// The swap's refund had its mail; the cancellation's says what came
	// back of the payment in all.
	inAll := eur(q.Refund.Amount + owed.Amount).String()
	if mails := s.refundMailsOf(t, sub.ID); len(mails) != 2 || !strings.Contains(mails[0].Text, "We refunded "+owed.String()) || !strings.Contains(mails[0].Text, inAll+" in all") {
		t.Fatalf("refund mails %+v, want the swap's and the cancellation's, saying %s in all", mails, inAll)
	}
}
