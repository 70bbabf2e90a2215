package store_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/payment"
)

// chargedAtStripe makes a receipt's charge Stripe's, as the renewals do
// once they charge through the provider: its Provider and payment.
func chargedAtStripe(t *testing.T, f billingFixture, rec store.Receipt) {
	t.Helper()
	for _, item := range f.env.Items(t) {
		if n, ok := item["Number"].(*types.AttributeValueMemberS); !ok || n.Value != rec.Number {
			continue
		}
		_, err := f.env.Client.UpdateItem(ctxT(t), &dynamodb.UpdateItemInput{TableName: aws.String(f.env.Table),
			Key:              map[string]types.AttributeValue{"PK": item["PK"], "SK": item["SK"]},
			UpdateExpression: aws.String("SET #p = :p, ChargeID = :c"), ExpressionAttributeNames: map[string]string{"#p": "Provider"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: payment.ProviderStripe},
				":c": &types.AttributeValueMemberS{Value: "pi_receipt"}}})
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("no receipt %s", rec.Number)
}

// A receipt's refund goes to Stripe when Stripe took its charge; answered
// pending, it waits on the receipt (listed, not counted in the totals, no
// mail) until its refund.updated completes it, once, with its mail, however
// often the event comes at once. A failed one is let go, and the next
// refund of the receipt is a new refund at Stripe under the next key.
func TestReceiptRefundAtStripeConfirmedOnceByItsEvent(t *testing.T) {
	t.Parallel()
	f := newBillingFixture(t, time.Date(2026, 5, 18, 9, 0, 0, 0, time.UTC))
	ctx, st := ctxT(t), f.env.Store
	f.subscribe(t, "ada", 18, 1)
	rec := firstReceipt(t, f, "ada")
	chargedAtStripe(t, f, rec)
	fs := newFakeStripe(t)
	refunds := payment.NewCardRefunds(payment.NewProviders(fs.provider(t)), f.gateway)

	got, err := st.RefundReceipt(ctx, store.RefundRequest{CustomerID: "ada", Number: rec.Number, Amount: eur(500), Reason: "stale", By: "staff@x", Key: "k1"}, refunds, refundMail)
	if err != nil || got.Refund == nil || got.Refund.Status != store.ReceiptRefundPending || got.Refund.GatewayID != "re_fake_1" || fs.creates.Load() != 1 {
		t.Fatalf("refund at Stripe: %+v, %v", got.Refund, err)
	}
	fs.mu.Lock()
	first := fs.metadata
	fs.mu.Unlock()
	if first[store.RefundMetaCustomer] != "ada" || first[store.RefundMetaReceipt] != rec.Number || len(refundMails(t, st)) != 0 {
		t.Fatalf("metadata %v, %d mails", first, len(refundMails(t, st)))
	}
	// Failed: let go, once.
	failed := store.RefundEvent{Provider: payment.ProviderStripe, EventID: "evt_r_failed", RefundRef: "re_fake_1", Status: payment.RefundFailed, Metadata: first}
	if out, err := st.ApplyRefundEvent(ctx, failed); err != nil || out != store.RefundEventFailed {
		t.Fatalf("failed: %s, %v", out, err)
	}
	if out, err := st.ApplyRefundEvent(ctx, failed); err != nil || out != store.RefundEventDuplicate {
		t.Fatalf("failed again: %s, %v", out, err)
	}
	if r := must(st.Receipt(ctx, "ada", rec.Number)); r.Refund != nil {
		t.Fatalf("a failed refund kept: %+v", r.Refund)
	}
	// Refunded again: a new refund under the next key, confirmed by ten
	// deliveries of its event at once.
	if _, err := st.RefundReceipt(ctx, store.RefundRequest{CustomerID: "ada", Number: rec.Number, Amount: eur(400), Reason: "stale", By: "staff@x", Key: "k2"}, refunds, refundMail); err != nil {
		t.Fatal(err)
	}
	fs.mu.Lock()
	second := fs.metadata
	fs.mu.Unlock()
	if fs.creates.Load() != 2 || second[store.RefundMetaKey] == first[store.RefundMetaKey] {
		t.Fatalf("keys %q then %q", first[store.RefundMetaKey], second[store.RefundMetaKey])
	}
	ok := store.RefundEvent{Provider: payment.ProviderStripe, EventID: "evt_r_ok", RefundRef: "re_fake_1", Status: payment.RefundSucceeded,
		Metadata: second, ReceiptMail: refundMail}
	var confirmed atomic.Int32
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := st.ApplyRefundEvent(ctx, ok)
			if err != nil && !errors.Is(err, store.ErrConflict) {
				t.Errorf("event: %v", err)
			}
			if out == store.RefundEventConfirmed {
				confirmed.Add(1)
			}
		}()
	}
	wg.Wait()
	r := must(st.Receipt(ctx, "ada", rec.Number))
	if r.Refunded() != eur(400) || confirmed.Load() < 1 || len(refundMails(t, st)) != 1 {
		t.Fatalf("after the event: %+v, confirmed %d times, %d mails", r.Refund, confirmed.Load(), len(refundMails(t, st)))
	}
	if list := must(st.PendingCardRefunds(ctx)); len(list) != 0 {
		t.Fatalf("still listed: %+v", list)
	}
}
