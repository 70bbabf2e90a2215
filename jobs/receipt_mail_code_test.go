package jobs

import (
	"strings"
	"testing"
	"time"

	"shop/store"
)

// A receipt's mail names the discount code its payment took, in the
// customer's language, in both parts; a receipt without one says nothing of
// codes.
func TestReceiptMailNamesTheCode(t *testing.T) {
	t.Parallel()
	eur := func(n int64) store.Money { return store.Money{Amount: n, Currency: "EUR"} }
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
			m := receiptMail("https://shop.example", at, rec)
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
