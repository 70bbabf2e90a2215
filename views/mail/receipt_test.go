package mail_test

import (
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/views/mail"
)

func eur(n int64) store.Money { return store.Money{Amount: n, Currency: "EUR"} }

// A receipt's mail names the discount code its payment took, in the
// customer's language, in both parts; a receipt without one says nothing of
// codes.
func TestReceiptMailNamesTheCode(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, lang, code string
		off              int64
		want             string // "" : no line of a code
	}{
		{"English", "en", "BOX10", 125, "Code BOX10 took €1.25 off the price."},
		{"Korean", "ko", "BOX10", 125, "코드 BOX10 적용으로"},
		{"Indonesian", "id", "BOX10", 125, "Kode BOX10 memotong"},
		{"no code", "en", "", 0, ""},
		{"a code that took nothing", "en", "BOX10", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := store.Receipt{Number: "r1", SubscriptionID: "s1", Email: "ada@example.com", Lang: tc.lang, ProductName: "Fika beans",
				Amount: eur(1250 - tc.off), PeriodStart: at, PeriodEnd: at.AddDate(0, 1, 0), DiscountCode: tc.code, Discount: eur(tc.off)}
			m := mail.Receipt("https://shop.example", at, rec)
			for part, body := range map[string]string{"text": m.Text, "html": m.HTML} {
				has := strings.Contains(body, "BOX10")
				if tc.want == "" && has {
					t.Errorf("%s part names a code:\n%s", part, body)
				}
				if tc.want != "" && !strings.Contains(body, tc.want) {
					t.Errorf("%s part does not say %q:\n%s", part, tc.want, body)
				}
			}
		})
	}
}

// A cancellation's refund from two receipts is one mail, the one whose
// refund names the other's part: the total, and each part with its
// receipt and card; the other part's refund sends none. A top-up's mail
// says what came back of the payment in all.
func TestReceiptRefundMailOfTwoParts(t *testing.T) {
	t.Parallel()
	rec := store.Receipt{Number: "R0000000000AB", BookNumber: "R2026-000010", AccountID: "c1", SubscriptionID: "s1", ProductName: "Fika beans",
		Email: "ada@example.com", Amount: eur(1299), Card: store.Card{Brand: "Visa", Last4: "4242"},
		Refund: &store.ReceiptRefund{Status: store.ReceiptRefunded, Amount: eur(800), Reason: "cancelled",
			With: &store.RefundPart{Number: "R2026-000011", Amount: eur(193), Card: "Mastercard •••• 4444"}}}
	m := mail.ReceiptRefund("https://shop.example/", time.Now(), rec)
	for _, want := range []string{"We refunded €9.93 in all for Fika beans (cancelled)", "€8.00 of receipt R2026-000010 to your Visa •••• 4242",
		"€1.93 of receipt R2026-000011 to your Mastercard •••• 4444"} {
		if !strings.Contains(strings.Join(strings.Fields(m.Text), " "), want) || !strings.Contains(m.HTML, want) {
			t.Errorf("the mail does not say %q:\n%s\n%s", want, m.Text, m.HTML)
		}
	}
	if m.Subject != "Refund of €9.93: receipts R2026-000010 and R2026-000011" {
		t.Errorf("subject %q", m.Subject)
	}
	other := rec
	other.Refund = &store.ReceiptRefund{Status: store.ReceiptRefunded, Amount: eur(193), Reason: "cancelled", MailedWith: "R0000000000AB"}
	if m := mail.ReceiptRefund("https://shop.example/", time.Now(), other); m != nil {
		t.Errorf("the part told of in the other's mail mails too: %+v", m)
	}
	topUp := rec
	topUp.Refund, topUp.RefundedBefore = &store.ReceiptRefund{Status: store.ReceiptRefunded, Amount: eur(483), Reason: "cancelled"}, eur(725)
	m = mail.ReceiptRefund("https://shop.example/", time.Now(), topUp)
	if want := "With the €7.25 refunded before, you have had €12.08 in all back of your payment of €12.99."; !strings.Contains(strings.Join(strings.Fields(m.Text), " "), want) || !strings.Contains(m.HTML, want) {
		t.Errorf("the top-up's mail does not say %q:\n%s", want, m.Text)
	}
}
