package web_test

import (
	"context"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store/payment"
)

// providerDown is the test provider when it cannot be reached: no page of
// its opens.
type providerDown struct{ *payment.TestProvider }

func (providerDown) StartCheckout(context.Context, payment.CheckoutRequest) (payment.CheckoutSession, error) {
	return payment.CheckoutSession{}, payment.ErrProviderUnavailable
}

// Subscribing with a new card while the provider's page cannot be opened
// brings the form back saying so (a 422), with nothing written: no
// subscription, no receipt, no pending intent, no record of the shop's
// added or taken away. The form carries a new key,
// so trying again is a new attempt.
func TestSubscribeWhileTheProviderIsDownSaysSoAndWritesNothing(t *testing.T) {
	t.Parallel()
	h := newShop(t, subscriptionsThrough(func(p *payment.TestProvider) payment.Provider { return providerDown{p} }))
	h.coffeeBox(t)
	b, id := h.newCustomer(t, "Ada Lovelace")
	form := b.subscribeForm(boxID, strconv.Itoa(time.Now().UTC().Day()), "1")
	form.Del("card_number")
	form.Del("expiry")
	form.Del("cvc")
	before := h.env.Items(t)
	p := b.post("/subscriptions", form)
	wantStatus(t, "subscribe while the provider is down", p, http.StatusUnprocessableEntity)
	wantText(t, "the form's error", p.testid("form-error"), "The payment page could not be opened")
	if again := p.doc.Find(`[data-testid="subscribe-form"] input[name="key"]`).AttrOr("value", ""); again == "" || again == form.Get("key") {
		t.Errorf("the form came back with key %q (posted %q): trying again must be a new attempt", again, form.Get("key"))
	}
	if subs := h.subscriptionsOf(t, id); len(subs) != 0 {
		t.Fatalf("subscriptions after the provider failed: %+v", subs)
	}
	if after := h.env.Items(t); !reflect.DeepEqual(shopKeys(after), shopKeys(before)) {
		t.Errorf("the shop's records changed when the provider failed: added %v, removed %v",
			missing(shopKeys(before), shopKeys(after)), missing(shopKeys(after), shopKeys(before)))
	}
}

// shopKeys are the primary keys of the shop's own items, sorted: the test
// provider's ledger (gw…) is the provider's side, where the customer it
// makes before its page fails is kept for the next try, as Stripe's is.
func shopKeys(items []map[string]types.AttributeValue) []string {
	keys := make([]string, 0, len(items))
	for _, it := range items {
		pk, _ := it["PK"].(*types.AttributeValueMemberS)
		sk, _ := it["SK"].(*types.AttributeValueMemberS)
		if pk != nil && sk != nil && !strings.HasPrefix(pk.Value, "gw") {
			keys = append(keys, pk.Value+" "+sk.Value)
		}
	}
	sort.Strings(keys)
	return keys
}

// missing are the keys of b that a lacks.
func missing(a, b []string) []string {
	had := map[string]bool{}
	for _, k := range a {
		had[k] = true
	}
	var out []string
	for _, k := range b {
		if !had[k] {
			out = append(out, k)
		}
	}
	return out
}
