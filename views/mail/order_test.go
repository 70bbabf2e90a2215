package mail_test

import (
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/store/rules"
	"shop/views/mail"
)

func day(s string) time.Time {
	d, err := rules.ParseDate(s)
	if err != nil {
		panic(s)
	}
	return d
}

// An order's mails follow the language its buyer had at checkout: Korean
// with Korean words and dates, Indonesian money with a decimal comma.
func TestOrderMailsInTheBuyersLanguage(t *testing.T) {
	t.Parallel()
	m := mail.Links{BaseURL: "https://shop.example/"}
	o := store.Order{ID: "o1", Number: "FF-7K3Q92", CustomerID: "c1", Buyer: store.Buyer{Name: "지민", Email: "j@example.com", Lang: "ko"},
		Total: eur(2400), Discount: eur(0), ShipTo: store.Address{Name: "지민", Street: "Storgatan", Number: "1", ZipCode: "111 22", City: "Stockholm", Country: "SE"}}
	items := []store.OrderItem{{ProductName: "Kaffe", Quantity: 2, Price: eur(1200)}}
	placed := m.OrderPlaced(o, items, store.Invoice{})
	delivered := m.ShipmentStep(o, store.Shipment{ID: "sh1", Version: 3, Status: store.ShipmentDelivered, DeliveredAt: day("2026-11-22")})
	for _, c := range []struct {
		m     store.Mail
		holds []string
	}{
		{placed, []string{"주문 FF-7K3Q92", "지민님, 안녕하세요.", "합계", "€24.00"}},
		{*delivered, []string{"배송 완료", "2026년 11월 22일"}},
	} {
		for _, s := range c.holds {
			if !strings.Contains(c.m.Subject+c.m.Text, s) {
				t.Errorf("%s mail lacks %q: %q %q", c.m.Kind, s, c.m.Subject, c.m.Text)
			}
		}
		if strings.Contains(c.m.Text+c.m.HTML, "⟦") || !strings.Contains(c.m.HTML, `lang="ko"`) {
			t.Errorf("%s mail: %q", c.m.Kind, c.m.HTML)
		}
	}
	o.Buyer.Lang = "id"
	if p := m.OrderPlaced(o, items, store.Invoice{}); !strings.Contains(p.Text, "Terima kasih") || !strings.Contains(p.Text, "€24,00") || !strings.Contains(p.HTML, "€24,00") {
		t.Errorf("Indonesian order mail: %q", p.Text)
	}
}

// The order's confirmation shows delivery as a line before the total and
// its zone's estimate, in the buyer's language; free delivery says Free,
// an order without a zone neither.
func TestOrderMailShowsDeliveryAndItsEstimate(t *testing.T) {
	t.Parallel()
	m := mail.Links{BaseURL: "https://shop.example/"}
	o := store.Order{ID: "o1", Number: "FF-7K3Q92", CustomerID: "c1", Buyer: store.Buyer{Name: "Ada", Email: "a@example.com"},
		Subtotal: eur(1990), Shipping: eur(490), Total: eur(2480), ShippingDaysMin: 1, ShippingDaysMax: 3,
		ShipTo: store.Address{Name: "Ada", Street: "Storgatan", Number: "1", ZipCode: "50330", City: "Borås", Country: "SE"}}
	items := []store.OrderItem{{ProductName: "Fjord", Quantity: 1, Price: eur(1990)}}
	for _, c := range []struct {
		lang  string
		holds []string
	}{
		{"en", []string{"Delivery  €4.90\n  Total  €24.80", "It arrives in 1–3 days once it ships."}},
		{"ko", []string{"배송비  €4.90", "발송 후 1–3일 이내에 도착합니다."}},
		{"id", []string{"Ongkos kirim  €4,90", "Tiba dalam 1–3 hari setelah dikirim."}},
	} {
		o.Buyer.Lang = c.lang
		p := m.OrderPlaced(o, items, store.Invoice{})
		for _, s := range c.holds {
			if !strings.Contains(p.Text, s) || !strings.Contains(p.HTML, strings.TrimSpace(strings.Split(s, "  ")[0])) {
				t.Errorf("%s: the confirmation lacks %q:\n%s", c.lang, s, p.Text)
			}
		}
	}
	o.Buyer.Lang, o.Shipping, o.Total = "en", eur(0), eur(1990)
	if p := m.OrderPlaced(o, items, store.Invoice{}); !strings.Contains(p.Text, "Delivery  Free") {
		t.Errorf("free delivery: %q", p.Text)
	}
	o.ShippingDaysMin, o.ShippingDaysMax = 0, 0
	if p := m.OrderPlaced(o, items, store.Invoice{}); strings.Contains(p.Text, "Delivery") || strings.Contains(p.Text, "arrives") {
		t.Errorf("an order without a zone speaks of delivery: %q", p.Text)
	}
}

// The order's confirmation says how it was paid, from the invoice its
// transaction writes: the code with what it took off, the gift card's
// part and the card's (brand, last four), in text and HTML, in the
// buyer's language.
func TestOrderMailSaysHowItWasPaid(t *testing.T) {
	t.Parallel()
	m := mail.Links{BaseURL: "https://shop.example/"}
	o := store.Order{ID: "o1", Number: "FF-7K3Q92", CustomerID: "c1", Buyer: store.Buyer{Name: "Ada", Email: "a@example.com"},
		Subtotal: eur(4000), Discount: eur(400), Total: eur(3600),
		ShipTo: store.Address{Name: "Ada", Street: "Storgatan", Number: "1", ZipCode: "50330", City: "Borås", Country: "SE"}}
	items := []store.OrderItem{{ProductName: "Fjord", Quantity: 2, Price: eur(2000)}}
	inv := store.Invoice{DiscountCode: "WELCOME10", Discount: eur(400), Amount: eur(3600), Payments: []store.Payment{
		{Type: "GiftCard", Amount: eur(1000), Reference: "gift card ••••FT20"},
		{Type: "Visa", Amount: eur(2600), Reference: "pi_123 · ••••4242", Provider: "test"},
	}}
	for _, c := range []struct {
		lang       string
		text, html []string
	}{
		{"en", []string{"Discount, code WELCOME10  −€4.00", "Paid with\n  Gift card ending FT20  €10.00\n  Visa ending in 4242  €26.00\n"},
			[]string{"Discount, code WELCOME10", "Paid with", "Gift card ending FT20", "€10.00", "Visa ending in 4242", "€26.00"}},
		{"ko", []string{"할인 (코드 WELCOME10)  −€4.00", "결제 수단\n  기프트 카드 (끝자리 FT20)  €10.00\n  Visa (끝자리 4242)  €26.00\n"},
			[]string{"할인 (코드 WELCOME10)", "결제 수단", "기프트 카드 (끝자리 FT20)", "Visa (끝자리 4242)", "€26.00"}},
		{"id", []string{"Diskon, kode WELCOME10  −€4,00", "Dibayar dengan\n  Kartu hadiah berakhiran FT20  €10,00\n  Visa berakhiran 4242  €26,00\n"},
			[]string{"Diskon, kode WELCOME10", "Dibayar dengan", "Kartu hadiah berakhiran FT20", "Visa berakhiran 4242", "€26,00"}},
	} {
		o.Buyer.Lang = c.lang
		p := m.OrderPlaced(o, items, inv)
		for _, s := range c.text {
			if !strings.Contains(p.Text, s) {
				t.Errorf("%s: the confirmation's text lacks %q:\n%s", c.lang, s, p.Text)
			}
		}
		for _, s := range c.html {
			if !strings.Contains(p.HTML, s) {
				t.Errorf("%s: the confirmation's HTML lacks %q:\n%s", c.lang, s, p.HTML)
			}
		}
		if strings.Contains(p.Text+p.HTML, "⟦") || strings.Contains(p.Text+p.HTML, "pi_123") {
			t.Errorf("%s: a message missing or the provider's reference shown:\n%s", c.lang, p.Text)
		}
	}
	// Without a code or a payment (an order the code paid whole), neither.
	o.Buyer.Lang = "en"
	if p := m.OrderPlaced(o, items, store.Invoice{}); strings.Contains(p.Text, "Paid with") || !strings.Contains(p.Text, "  Discount  −€4.00") {
		t.Errorf("no payments: %q", p.Text)
	}
}
