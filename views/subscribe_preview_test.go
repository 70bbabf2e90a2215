package views

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"shop/store"
	"shop/store/rules"
	"shop/views/lang"
)

// The preview in each language: the example (€12.90 a month on
// day 1, subscribing on 28 November), the free last day of the month, and
// a whole period on the payment day.
func TestSubscribePreviewSaysTodayAndThenInEveryLanguage(t *testing.T) {
	tea := store.Product{ID: "tea", Subscribable: true, MonthlyPrice: store.Money{Amount: 1290, Currency: "EUR"}}
	day := func(s string) time.Time { d, _ := rules.ParseDate(s); return d }
	for _, tc := range []struct {
		l                   lang.Lang
		today               string
		payday, months      int
		wantToday, wantThen string
	}{
		{lang.English, "2026-11-28", 1, 1, "Today: €1.29 for 28–30 Nov 2026, 3 of the period's 30 days.", "Then €12.90 on 1 Dec 2026 and every month after."},
		{lang.Korean, "2026-11-28", 1, 1, "오늘 결제: 2026년 11월 28일–30일 동안 €1.29 (주기 30일 중 3일).", "그다음 2026년 12월 1일에 €12.90, 이후 매월 결제됩니다."},
		{lang.Indonesian, "2026-11-28", 1, 3, "Hari ini: €1,27 untuk 28–30 Nov 2026, 3 dari 91 hari periode ini.", "Lalu €38,70 pada 1 Des 2026 dan selanjutnya setiap 3 bulan."},
		{lang.English, "2026-11-30", 1, 1, "Today: nothing to pay. 30 Nov 2026: free: below the smallest charge (a share of €0.43).", "Then €12.90 on 1 Dec 2026"},
		{lang.Korean, "2026-11-30", 1, 1, "오늘 결제: 없음. 2026년 11월 30일: 무료: 최소 결제 금액 미만(일할 금액 €0.43).", "2026년 12월 1일에 €12.90"},
		{lang.Indonesian, "2026-11-30", 1, 1, "gratis: di bawah tagihan terkecil", "Lalu €12,90 pada 1 Des 2026"},
		{lang.English, "2026-12-01", 1, 6, "Today: €77.40 for 1 Dec 2026 – 31 May 2027, a whole period: today is your payment day.", "Then €77.40 on 1 Jun 2027 and every 6 months after."},
	} {
		q := store.QuoteSubscription(day(tc.today), tea, tc.payday, tc.months, nil)
		f := SubscribeForm{Product: tea, Quote: &q, Ships: true}
		var buf bytes.Buffer
		if err := SubscribePreview(&f).Render(lang.With(context.Background(), tc.l), &buf); err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		text := func(id string) string { return strings.Join(strings.Fields(testid(doc, id).Text()), " ") }
		if got := text("preview-today"); !strings.Contains(got, tc.wantToday) {
			t.Errorf("%s on %s: today %q, want %q", tc.l, tc.today, got, tc.wantToday)
		}
		if got := text("preview-then"); !strings.Contains(got, tc.wantThen) {
			t.Errorf("%s on %s: then %q, want %q", tc.l, tc.today, got, tc.wantThen)
		}
		// A product that ships: the first days pay for no unit, so the
		// first delivery comes with the payment on the payment day.
		if ships := testid(doc, "preview-ships").Length() == 1; ships != (q.First.Units() == 0) {
			t.Errorf("%s on %s: says the delivery comes later %v, units %d", tc.l, tc.today, ships, q.First.Units())
		}
	}
}
