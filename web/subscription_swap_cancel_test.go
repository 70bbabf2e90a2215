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
	owed, unused, _ := store.UnusedShare(eur(1450), period.PeriodStart, period.PeriodEnd, today)
	wantStatus(t, "cancel now", s.act(t, b, s.current(t, ada, sub.ID), "cancel", url.Values{"when": {"now"}}), http.StatusSeeOther)
	wantText(t, "the flash", b.get("/subscriptions").testid("flash"), "We refunded "+owed.String()+" for the "+itoa(unused)+" unused days")

	paid, back := s.providerLedger(t)
	paid, back = period.Amount.Amount+paid-paid0, back-back0 // Ada's period since subscribing
	usedOld := period.Amount.Amount - q.Credit.Amount
	usedNew := q.NewShare.Amount - owed.Amount
	if paid != period.Amount.Amount+q.Charge.Amount || paid-back != usedOld+usedNew {
		t.Fatalf("the provider took %d and gave back %d (net %d); want %d: %d at the old line + %d at the new", paid, back, paid-back, usedOld+usedNew, usedOld, usedNew)
	}
}
