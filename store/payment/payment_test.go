package payment

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

func TestParseCardNumber(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"4242 4242 4242 4242", "4242424242424242", true},
		{"4242-4242-4242-4242", "4242424242424242", true},
		{"5555555555554444", "5555555555554444", true},
		{"4242424242424241", "", false}, // Luhn
		{"4242", "", false},
		{"4242a24242424242", "", false},
		{"", "", false},
		{"42424242424242424242", "", false},
	} {
		got, err := ParseCardNumber(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseCardNumber(%q) = %q, %v", tc.in, got, err)
		}
	}
}

func TestParseExpiry(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"12/30", time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{"1/2029", time.Date(2029, 2, 1, 0, 0, 0, 0, time.UTC), true},
		{" 06 / 27 ", time.Date(2027, 7, 1, 0, 0, 0, 0, time.UTC), true},
		{"13/30", time.Time{}, false}, {"00/30", time.Time{}, false}, {"12-30", time.Time{}, false},
		{"12/3", time.Time{}, false}, {"ab/cd", time.Time{}, false}, {"+1/30", time.Time{}, false}, {"", time.Time{}, false},
		{"1/0000", time.Time{}, false}, {"12/1999", time.Time{}, false}, {"12/2100", time.Time{}, false},
		{"12/2099", time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC), true},
	} {
		got, err := ParseExpiry(tc.in)
		if (err == nil) != tc.ok || !got.Equal(tc.want) {
			t.Errorf("ParseExpiry(%q) = %v, %v", tc.in, got, err)
		}
	}
}

func FuzzParseExpiry(f *testing.F) {
	for _, s := range []string{"12/30", "1/2029", "13/30", "", "/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		end, err := ParseExpiry(s)
		if err == nil && (end.Day() != 1 || end.Year() < 2000) {
			t.Fatalf("ParseExpiry(%q) = %v", s, end)
		}
	})
}

func FuzzParseCardNumber(f *testing.F) {
	for _, s := range []string{CardSucceeds, "4242 4242", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseCardNumber(s)
		if err == nil && (len(d) < 13 || len(d) > 19 || !store.Luhn(d)) {
			t.Fatalf("ParseCardNumber(%q) = %q", s, d)
		}
	})
}

// gatewayCard keeps a typed card in the gateway's ledger as the test
// gateway tokenised cards before the test provider took them on its page:
// the cards of older subscriptions, which renewals still charge.
func gatewayCard(t *testing.T, g *TestGateway, number, expiry string) Card {
	t.Helper()
	typed, err := readCard(number, expiry, "123", g.Now())
	if err != nil {
		t.Fatal(err)
	}
	c := store.GatewayCard{Token: randomID("tok_"), Brand: typed.Brand, Last4: typed.Last4, Outcome: typed.Outcome, Expires: typed.Expires}
	if err := g.ledger.PutGatewayCard(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	return Card{Token: c.Token, Brand: c.Brand, Last4: c.Last4}
}

func TestTestGatewayBehavesByCard(t *testing.T) {
	t.Parallel()
	g := NewTestGateway(storetest.New(t).Store)
	g.Now = func() time.Time { return time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC) }
	ctx := context.Background()
	eur := func(c int64) store.Money { return store.Money{Amount: c, Currency: "EUR"} }
	for _, tc := range []struct {
		number string
		want   error
	}{
		{CardSucceeds, nil}, {CardSucceedsMC, nil}, {CardDeclined, ErrDeclined},
		{CardInsufficientFunds, ErrInsufficientFunds}, {CardProcessingError, ErrProcessing},
	} {
		card := gatewayCard(t, g, tc.number, "12/30")
		if card.Last4 != tc.number[12:] || card.Token == "" {
			t.Fatalf("card %+v", card)
		}
		if _, err := g.ChargeAt(ctx, card.Token, eur(100), "k-"+tc.number); !errors.Is(err, tc.want) {
			t.Errorf("charge %s: %v, want %v", tc.number, err, tc.want)
		}
	}
	if _, err := readCard(CardSucceeds, "10/26", "123", g.Now()); !errors.Is(err, ErrExpired) {
		t.Errorf("expired card: %v", err)
	}
	if _, err := readCard(CardSucceeds, "12/30", "12", g.Now()); !errors.Is(err, ErrInvalidCVC) {
		t.Errorf("short CVC: %v", err)
	}
}

// Many charges with one key charge once.
func TestTestGatewayChargesOncePerKey(t *testing.T) {
	t.Parallel()
	g := NewTestGateway(storetest.New(t).Store)
	ctx := context.Background()
	card := gatewayCard(t, g, CardSucceeds, "12/99")
	amount := store.Money{Amount: 500, Currency: "EUR"}
	var wg sync.WaitGroup
	ids := make([]string, 10)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, _ := g.ChargeAt(ctx, card.Token, amount, "same-key")
			ids[i] = c.ID
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] || id == "" {
			t.Fatalf("charge ids differ: %v", ids)
		}
	}
	if n, total, attempts := g.Captured(); n != 1 || total != 500 || attempts != 1 {
		t.Fatalf("captured %d charges, %d cents, %d attempts", n, total, attempts)
	}
	if again, err := g.ChargeAt(ctx, card.Token, amount, "same-key"); err != nil || again.ID != ids[0] {
		t.Fatalf("charging the key again: %+v, %v", again, err)
	}
	if _, err := g.ChargeAt(ctx, card.Token, store.Money{Amount: 1, Currency: "EUR"}, "same-key"); !errors.Is(err, ErrKeyReused) {
		t.Fatalf("reusing a key for another amount: %v", err)
	}
}

// Refunds racing on one charge: one key refunds once, and refunds with
// different keys never sum past the charge, in the ledger.
func TestTestGatewayRefundsWithinTheCharge(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	g := NewTestGateway(env.Store)
	ctx := context.Background()
	eur := func(c int64) store.Money { return store.Money{Amount: c, Currency: "EUR"} }
	card := gatewayCard(t, g, CardSucceeds, "12/99")
	charge, err := g.ChargeAt(ctx, card.Token, eur(1000), "charge-key")
	if err != nil {
		t.Fatal(err)
	}
	chargeID := charge.ID
	// Ten twins of one key: one refund.
	var wg sync.WaitGroup
	ids := make([]string, 10)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i], _ = g.Refund(ctx, chargeID, eur(300), "refund-same")
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] || id == "" {
			t.Fatalf("refund ids differ: %v", ids)
		}
	}
	if _, err := g.Refund(ctx, chargeID, eur(299), "refund-same"); !errors.Is(err, ErrKeyReused) {
		t.Fatalf("reusing a refund key for another amount: %v", err)
	}
	// Twenty refunds of 100 with their own keys: 700 is left, so 7 pass.
	var mu sync.Mutex
	passed, exceeded := 0, 0
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := g.Refund(ctx, chargeID, eur(100), "refund-"+string(rune('a'+i)))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				passed++
			case errors.Is(err, store.ErrRefundExceedsCharge):
				exceeded++
			default:
				t.Errorf("refund: %v", err)
			}
		}()
	}
	wg.Wait()
	if passed != 7 || exceeded != 13 {
		t.Fatalf("%d refunds passed, %d exceeded; want 7 and 13", passed, exceeded)
	}
	c, err := env.Store.GatewayChargeByID(ctx, chargeID)
	if err != nil {
		t.Fatal(err)
	}
	if c.Refunded != eur(1000) {
		t.Fatalf("ledger refunded %v, want all of €10.00", c.Refunded)
	}
	if _, total, _ := g.Captured(); total != 0 {
		t.Fatalf("captured %d cents after refunding all", total)
	}
	if _, err := g.Refund(ctx, chargeID, eur(1), "refund-more"); !errors.Is(err, store.ErrRefundExceedsCharge) {
		t.Fatalf("refund past the charge: %v", err)
	}
	if _, err := g.Refund(ctx, chargeID, eur(0), "refund-zero"); !errors.Is(err, store.ErrBadRefund) {
		t.Fatalf("refund of nothing: %v", err)
	}
}
