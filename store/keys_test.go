package store

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// pair shows a key range as one string.
func pair(lo, hi string) string { return lo + " .. " + hi }

func TestKeyBuilders(t *testing.T) {
	at := time.Date(2025, 3, 5, 12, 30, 0, 0, time.UTC)
	for _, tc := range []struct{ got, want string }{
		{customerKey("12345"), "c#12345"},
		{productKey("99887"), "p#99887"},
		{warehouseKey("12376"), "w#12376"},
		{emailKey(" Ada@Example.COM "), "email#ada@example.com"},
		{sessionKey("s1"), "session#s1"},
		{categoryKey("books"), "cat#books"},
		{catalogueSortKey("The Book", "99887"), "p#the book#99887"},
		{limitKey("login-ip", "127.0.0.1"), "limit#login-ip#127.0.0.1"},
		{trimPrefix("p#99887", prefixProduct), "99887"},
		{trimPrefix("w#99887", prefixProduct), ""},
		{limitWindowKey(at), "1741177800"},
		{markerKey("demo"), "marker#demo"},
		{orderItemSortKey("99887", ""), "p#99887"},
		{orderItemSortKey("99887", "d1"), "p#99887#drop#d1"},
		{productOfOrderItemKey("p#99887#drop#d1"), "99887"},
		{productOfOrderItemKey("p#99887"), "99887"},
		{ordersMonthKey(at), "orders#2025-03"},
		{shardKey(ordersMonthKey(at), 7), "orders#2025-03#7"},
		{receiptSortKey(at, "sku1"), "REC#2025-03-05T12:30:00.000Z#SKU#sku1"},
		{receiptAtPrefix(at), "REC#2025-03-05T12:30:00.000Z#SKU#"},
		{receiptSKU("REC#2025-03-05T12:30:00.000Z#SKU#sku1"), "sku1"},
		{receiptSKU("REC#2025-03-05"), ""},
		{subscribeKey("c1", "f1"), "sub-c1-f1"},
		{subscriptionChargeKey("s1", at, 2), "sub-s1-2025-03-05-a2"},
		{dueUpTo(at), "2025-03-05#~"},
		{pair(dayRange("i#", "2025-03-01", "2025-03-05")), "i#2025-03-01 .. i#2025-03-05~"},
		{pair(timeRange(at, at.Add(time.Hour))), "2025-03-05T12:30:00.000Z .. 2025-03-05T13:30:00.000Z~"},
		{pair(sinceRange("i#", at)), "i#2025-03-05T12:30:00.000Z .. i#~"},
		{pair(receiptRange(at)), "REC#2025-03-05T12:30:00.000Z .. REC#~"},
		{InvoiceID("i#01jd8k"), "01jd8k"},
		{InvoiceID("01jd8k"), "01jd8k"},
		{dropCounterKey(7), "counter#007"},
		{closesKey(at, "d1"), "closes#2025-03-05T12:30:00.000Z#d1"},
		{closedBy(at), "closes#2025-03-05T12:30:00.000Z#~"},
		{ticketPartition("d1"), "subject#d1#ticket"},
		{dropClaimsKey("d1"), "subject#d1#claims"},
		{integrationDropsKey("partner"), "drops-of#partner"},
		{apiIdempotencyKey("k1", "abc"), "apiidem#k1#abc"},
		{testPaySessionKey("cs_test_1"), "gwsession#cs_test_1"},
		{testPayIdemKey("checkout-k1"), "gwkey#checkout-k1"},
		{testPayDueKey("evt_test_1", 1), "testpay-due#0"},
		{VisitorOwner("v1"), "v#v1"},
		{CustomerOwner("c1"), "c#c1"},
		{awaitingPaymentKey(3), "awaiting-payment#3"},
		{heldUntilKey(at, "o1"), "2025-03-05T12:30:00.000Z#o1"},
		{expiredOrderKey(at), "xo#2025-03-05T12:30:00.000Z"},
		{paymentEventKey("stripe", "evt_1"), "event#stripe#evt_1"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// A payment refunded because it could not place its order has one refund
// key, whichever event reports it; the key is a refund key like any other.
func TestLateRefundKey(t *testing.T) {
	k := lateRefundKey("stripe", "pi_1")
	if k != lateRefundKey("stripe", "pi_1") || k == lateRefundKey("test", "pi_1") || k == lateRefundKey("stripe", "pi_2") ||
		!strings.HasPrefix(k, prefixLateRefund) || !ValidID(k) || len(k) > 36 {
		t.Fatalf("late refund key %q", k)
	}
	if !strings.HasPrefix(expiredOrderKey(time.Now()), "xo#") || strings.HasPrefix(expiredOrderKey(time.Now()), prefixOrder) {
		t.Fatal("an expired order's key must sort outside the customer's orders (o#)")
	}
}

func TestKeyReaders(t *testing.T) {
	if n, ok := dropCounterOf(dropCounterKey(7)); n != 7 || !ok {
		t.Errorf("dropCounterOf(counter#007) = %d, %v", n, ok)
	}
	if _, ok := dropCounterOf("info"); ok {
		t.Error("dropCounterOf(info) reads a counter")
	}
	if !isVisitorOwner(VisitorOwner("v1")) || isVisitorOwner(CustomerOwner("c1")) {
		t.Error("isVisitorOwner mistakes an owner")
	}
}

func TestOrdersMonthKeys(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		from, to time.Time
		want     []string
	}{
		{day(2025, 3, 1), day(2025, 3, 31), []string{"orders#2025-03"}},
		{day(2024, 12, 31), day(2025, 2, 1), []string{"orders#2025-02", "orders#2025-01", "orders#2024-12"}},
		{day(2025, 3, 2), day(2025, 3, 1), nil},
	} {
		if got := ordersMonthKeys(tc.from, tc.to); !slices.Equal(got, tc.want) {
			t.Errorf("ordersMonthKeys(%s, %s) = %v, want %v", FormatDate(tc.from), FormatDate(tc.to), got, tc.want)
		}
	}
}

func TestSubscriptionKeys(t *testing.T) {
	for _, tc := range []struct {
		pk, sk           string
		account, id, sku string
		ok               bool
	}{
		{"ACC#a1", "SUB#s1#SKU#p1", "a1", "s1", "p1", true},
		{"ACC#a1", "SUB#s1", "a1", "s1", "", false},
		{"c#a1", "SUB#s1#SKU#p1", "", "s1", "p1", false},
	} {
		account, id, sku, ok := subscriptionKeys(tc.pk, tc.sk)
		if account != tc.account || id != tc.id || sku != tc.sku || ok != tc.ok {
			t.Errorf("subscriptionKeys(%q, %q) = %q %q %q %v", tc.pk, tc.sk, account, id, sku, ok)
		}
	}
}
