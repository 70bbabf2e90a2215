package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"shop/store/demo"
)

// The staff console's customers, subscriptions, drops, jobs, archive,
// outbox, codes and API keys read in Korean and Indonesian: their words
// come from the catalogue and money is written as each language writes it
// (every page is also checked for a message id shown instead of its text).
func TestStaffConsolePartTwoInKoreanAndIndonesian(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ada := s.customerID(t, demo.CustomerEmail)

	for _, tc := range []struct {
		lang  string
		words map[string]map[string]string // path → data-testid → text it starts with
		money map[string]map[string]string // path → data-testid → an amount it holds
	}{
		{
			lang: "ko",
			words: map[string]map[string]string{
				"/admin/customers":              {"customer-find-submit": "찾기"},
				"/admin/customers/" + ada:       {"customer-state": "활성", "customer-orders": "이 고객의 주문"},
				"/admin/subscriptions":          {"tab-due": "날짜별 예정", "tab-past_due": "연체"},
				"/admin/subscriptions/due":      {"due-date-submit": "보기"},
				"/admin/subscriptions/prices":   {"price-submit": "예약"},
				"/admin/subscriptions/settings": {"settings-submit": "저장"},
				"/admin/drops":                  {"drop-submit": "한정 판매 만들기"},
				"/admin/jobs":                   {"run-now-payments": "지금 실행", "job-next-run": "없음"},
				"/admin/archive":                {"archive-run-now": "마감된 달 지금 보관"},
				"/admin/outbox":                 {"outbox": "생성"},
				"/admin/giftcards":              {"giftcard-submit": "기프트 카드 발행"},
				"/admin/discounts":              {"discount-submit": "할인 코드 만들기"},
				"/admin/api-keys":               {"apikey-submit": "연동 추가하고 첫 키 만들기"},
			},
			money: map[string]map[string]string{
				"/admin/giftcards": {"giftcard-balance": "€50.00"},
				"/admin/discounts": {"discount-value": "€5.00"},
			},
		},
		{
			lang: "id",
			words: map[string]map[string]string{
				"/admin/customers":              {"customer-find-submit": "Cari"},
				"/admin/customers/" + ada:       {"customer-state": "aktif", "customer-orders": "Pesanannya"},
				"/admin/subscriptions":          {"tab-due": "Jatuh tempo per hari", "tab-past_due": "Terlambat bayar"},
				"/admin/subscriptions/due":      {"due-date-submit": "Tampilkan"},
				"/admin/subscriptions/prices":   {"price-submit": "Jadwalkan"},
				"/admin/subscriptions/settings": {"settings-submit": "Simpan"},
				"/admin/drops":                  {"drop-submit": "Buat rilis terbatas"},
				"/admin/jobs":                   {"run-now-payments": "Jalankan", "job-next-run": "tidak ada"},
				"/admin/archive":                {"archive-run-now": "Arsipkan bulan yang ditutup sekarang"},
				"/admin/outbox":                 {"outbox": "Dibuat"},
				"/admin/giftcards":              {"giftcard-submit": "Terbitkan kartu hadiah"},
				"/admin/discounts":              {"discount-submit": "Buat kode diskon"},
				"/admin/api-keys":               {"apikey-submit": "Tambah integrasi dan buat kunci pertamanya"},
			},
			money: map[string]map[string]string{
				"/admin/giftcards": {"giftcard-balance": "€50,00"},
				"/admin/discounts": {"discount-value": "€5,00"},
			},
		},
	} {
		b := s.staff(t)
		first := b.get("/admin/customers?lang=" + tc.lang)
		wantStatus(t, tc.lang+" customers", first, http.StatusOK)
		for path, want := range tc.words {
			p := b.get(path)
			wantStatus(t, tc.lang+" "+path, p, http.StatusOK)
			if got, _ := p.doc.Find("html").Attr("lang"); got != tc.lang {
				t.Errorf("%s %s: <html lang=%q>", tc.lang, path, got)
			}
			for id, text := range want {
				if got := trim(p.testid(id).First().Text()); !strings.HasPrefix(got, text) {
					t.Errorf("%s %s: %s reads %q, want it to start with %q", tc.lang, path, id, got, text)
				}
			}
		}
		for path, want := range tc.money {
			p := b.get(path)
			for id, amount := range want {
				found := false
				p.testid(id).Each(func(_ int, sel *goquerySelection) {
					found = found || strings.Contains(sel.Text(), amount)
				})
				if !found {
					t.Errorf("%s %s: no %s holds %s", tc.lang, path, id, amount)
				}
			}
		}
		// A form error and a flash message come in the page's language too.
		p := b.post("/admin/giftcards", map[string][]string{"amount": {"ten"}})
		wantStatus(t, tc.lang+" bad gift card", p, http.StatusUnprocessableEntity)
		if got := trim(p.testid("error-amount").Text()); !strings.Contains(got, map[string]string{"ko": "금액", "id": "Masukkan jumlah"}[tc.lang]) {
			t.Errorf("%s: gift card amount error %q", tc.lang, got)
		}
		wantStatus(t, tc.lang+" issue a gift card", b.post("/admin/giftcards", map[string][]string{"amount": {"1234.5"}}), http.StatusSeeOther)
		g := b.get("/admin/giftcards")
		flash := trim(g.testid("flash").Text())
		wantAmount := map[string]string{"ko": "€1,234.50", "id": "€1.234,50"}[tc.lang]
		wantWord := map[string]string{"ko": "발행했습니다", "id": "diterbitkan"}[tc.lang]
		if !strings.Contains(flash, wantAmount) || !strings.Contains(flash, wantWord) {
			t.Errorf("%s: flash %q, want %q and %q", tc.lang, flash, wantAmount, wantWord)
		}
		// A bad field the store names (a drop closing before it opens)
		// is said in the page's language too, not in the store's English.
		b.get("/admin/drops")
		opens := time.Now().Add(time.Hour).In(s.env.Store.Location())
		p = b.post("/admin/drops", map[string][]string{"title": {"Spring"}, "quantity": {"10"},
			"opens": {opens.Format("2006-01-02T15:04")}, "closes": {opens.Add(-30 * time.Minute).Format("2006-01-02T15:04")}})
		wantStatus(t, tc.lang+" drop closing before it opens", p, http.StatusUnprocessableEntity)
		if got := trim(p.testid("error-closes").Text()); !strings.Contains(got, map[string]string{"ko": "종료 시각은 시작 시각보다 뒤여야", "id": "harus ditutup setelah dibuka"}[tc.lang]) {
			t.Errorf("%s: drop closes error %q", tc.lang, got)
		}
	}
}
