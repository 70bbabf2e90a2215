package jobs_test

import (
	"strings"
	"testing"
	"time"

	"shop/jobs"
	"shop/store"
)

// A Korean customer's reminder, receipt, payment-failed and cancelled
// mails are in Korean, subject, text and HTML; an Indonesian customer's
// receipt is in Indonesian with the amount written the Indonesian way. The
// language comes from the subscription (and the receipt copies it): the
// jobs read no customer.
func TestSubscriptionMailsInTheCustomersLanguage(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-03-08")
	ctx := ctxT(t)
	due := day("2026-03-15")
	put := func(lang string, card store.Card, monthly int64, ending bool) store.Subscription {
		t.Helper()
		id := store.NewID()
		s := store.Subscription{
			ID: id, AccountID: "acc" + id, ProductID: "beans", ProductName: "Fika beans", Email: lang + id + "@example.com", Lang: lang,
			MonthlyPrice: eur(monthly), PeriodMonths: 1, PaymentDay: due.Day(), Status: store.SubscriptionActive, Card: card,
			NextPaymentDate: due, NextReminderDate: due.AddDate(0, 0, -7), CreatedAt: due.AddDate(0, -1, 0), Version: 1,
		}
		if ending {
			s.EndsOn, s.NextReminderDate = due, time.Time{}
		}
		if err := b.env.Store.CreateSubscription(ctx, s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	koPays := put("ko", b.good, 990, false)
	koDeclined := put("ko", b.declined, 990, false)
	koEnding := put("ko", b.good, 990, true)
	idPays := put("id", b.good, 1290, false)

	r := b.runner("r")
	if _, err := r.Run(ctx, jobs.JobReminders, day("2026-03-08"), jobs.TriggerSchedule); err != nil {
		t.Fatal(err)
	}
	b.clock.Set(due.Add(12 * time.Hour))
	if _, err := r.Run(ctx, jobs.JobPayments, due, jobs.TriggerSchedule); err != nil {
		t.Fatal(err)
	}

	mailOf := func(kind store.MailKind, s store.Subscription) store.Mail {
		t.Helper()
		for _, m := range mailsOfKind(t, b.env, kind) {
			if m.SubscriptionID == s.ID {
				return m
			}
		}
		t.Fatalf("no %s mail of %s", kind, s.Email)
		return store.Mail{}
	}
	for _, c := range []struct {
		m             store.Mail
		lang, subject string
		holds         []string // in text and HTML both
	}{
		{mailOf(store.MailReminder, koPays), "ko", "2026년 3월 15일 Fika beans 정기 결제 안내", []string{"2026년 3월 15일", "에 Fika beans 요금", "€9.90", "정기 결제 관리"}},
		{mailOf(store.MailReceipt, koPays), "ko", "영수증 ", []string{"2026년 3월 15일~2026년 4월 15일", "결제했습니다"}},
		{mailOf(store.MailPaymentFailed, koDeclined), "ko", "Fika beans 결제가 완료되지 않았습니다", []string{"결제하지 못했습니다", "다시 결제를 시도합니다"}},
		{mailOf(store.MailCancelled, koEnding), "ko", "Fika beans 정기 결제가 종료되었습니다", []string{"요청하신 대로", "다시 신청하실 수 있습니다"}},
		{mailOf(store.MailReceipt, idPays), "id", "Kuitansi ", []string{"Kami telah menagih", "€12,90", "15 Mar 2026 sampai 15 Apr 2026"}},
	} {
		if !strings.HasPrefix(c.m.Subject, c.subject) {
			t.Errorf("%s mail to %s: subject %q, want %q", c.m.Kind, c.m.To, c.m.Subject, c.subject)
		}
		if !strings.Contains(c.m.HTML, `<html lang="`+c.lang+`">`) {
			t.Errorf("%s mail to %s: HTML not marked %s", c.m.Kind, c.m.To, c.lang)
		}
		for _, s := range c.holds {
			// The plain-text part wraps at 72 characters: a phrase may
			// span a line end.
			if !strings.Contains(strings.ReplaceAll(c.m.Text, "\n", " "), s) || !strings.Contains(c.m.HTML, s) {
				t.Errorf("%s mail to %s lacks %q\ntext: %s\nhtml: %s", c.m.Kind, c.m.To, s, c.m.Text, c.m.HTML)
			}
		}
		for _, part := range []string{c.m.Subject, c.m.Text, c.m.HTML} {
			if strings.Contains(part, "⟦") || strings.Contains(part, "Hello") || strings.Contains(part, "We ") {
				t.Errorf("%s mail to %s has a message missing or in English: %q", c.m.Kind, c.m.To, part)
			}
		}
	}
	if rec := mailOf(store.MailReceipt, idPays); strings.Contains(rec.Text, "12.90") {
		t.Errorf("Indonesian receipt writes the amount the English way: %q", rec.Text)
	}
}

// An order's mails follow the language its buyer had at checkout: Korean
// with Korean words and dates, Indonesian money with a decimal comma.
func TestOrderMailsInTheBuyersLanguage(t *testing.T) {
	t.Parallel()
	m := jobs.ShopMail{BaseURL: "https://shop.example/"}
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

// A customer who subscribed in English and then switched the shop to
// Korean gets the next reminder in Korean: the change reached the
// subscription the reminders job reads.
func TestReminderAfterASwitchToKoreanIsKorean(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-03-08")
	ctx := ctxT(t)
	st := b.env.Store
	c, err := st.CreateCustomer(ctx, store.NewCustomer{Email: "minji@example.com", Name: "Kim Minji", PasswordHash: "h", Lang: "en"})
	if err != nil {
		t.Fatal(err)
	}
	due := day("2026-03-15")
	sub := store.Subscription{
		ID: store.NewID(), AccountID: c.ID, ProductID: "beans", ProductName: "Fika beans", Email: c.Email, Lang: c.Lang,
		MonthlyPrice: eur(990), PeriodMonths: 1, PaymentDay: due.Day(), Status: store.SubscriptionActive, Card: b.good,
		NextPaymentDate: due, NextReminderDate: due.AddDate(0, 0, -7), CreatedAt: due.AddDate(0, -1, 0), Version: 1,
	}
	if err := st.CreateSubscription(ctx, sub); err != nil {
		t.Fatal(err)
	}
	if err := st.SetCustomerLanguage(ctx, c.ID, "ko"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.runner("r").Run(ctx, jobs.JobReminders, day("2026-03-08"), jobs.TriggerSchedule); err != nil {
		t.Fatal(err)
	}
	var reminder *store.Mail
	for _, m := range mailsOfKind(t, b.env, store.MailReminder) {
		if m.SubscriptionID == sub.ID {
			reminder = &m
		}
	}
	if reminder == nil {
		t.Fatal("no reminder")
	}
	if want := "2026년 3월 15일 Fika beans 정기 결제 안내"; reminder.Subject != want {
		t.Errorf("reminder after the switch: subject %q, want %q", reminder.Subject, want)
	}
	if !strings.Contains(reminder.HTML, `<html lang="ko">`) || !strings.Contains(reminder.Text, "정기 결제 관리") {
		t.Errorf("reminder after the switch is not Korean:\n%s", reminder.Text)
	}
}

// The order's confirmation shows delivery as a line before the total and
// its zone's estimate, in the buyer's language; free delivery says Free,
// an order without a zone neither.
func TestOrderMailShowsDeliveryAndItsEstimate(t *testing.T) {
	t.Parallel()
	m := jobs.ShopMail{BaseURL: "https://shop.example/"}
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
	m := jobs.ShopMail{BaseURL: "https://shop.example/"}
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
