package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"shop/store"
	"shop/store/rules"
	"shop/views/lang"
	"shop/web/paths"
)

// The subscription, receipt, drop and ticket pages in Korean and in
// Indonesian: their words, the amounts and days as each language writes
// them, and the answers of their forms (flashes, htmx swaps, refusals),
// with a code's and a trial's previews and a swap's.
func TestSubscriptionPagesInKoreanAndIndonesian(t *testing.T) {
	t.Parallel()
	type words struct {
		subscribe, submit, active, day, every2, title2, subscribed, skipped string
		receipts, receiptTitle, amount, drops, claimed, valid, tickets      string
		opensIn, left                                                       string
		swapNothing, swapCredit, swapCharged, codeToday, trialToday         string
	}
	var together sync.WaitGroup
	for _, tc := range []struct {
		l lang.Lang
		w words
	}{
		{lang.Korean, words{
			subscribe: "정기 결제", submit: "정기 결제 신청하고 지금 결제하기", active: "이용 중", day: "매월 %d일", every2: "2개월마다", title2: "2개월마다",
			subscribed: "정기 결제를 시작했습니다", skipped: "이번 결제를 건너뛰었습니다",
			receipts: "영수증", receiptTitle: "영수증 R", amount: "€25.00", drops: "한정 판매", claimed: "응모 완료",
			valid: "유효", tickets: "내 응모권", opensIn: "후 오픈", left: "3장 중 3장 남음",
			swapNothing: "지금은 결제되지 않습니다", swapCredit: "적립", swapCharged: "지금 카드로 결제",
			codeToday: "코드 BOX10로 오늘 €1.25 할인됩니다.", trialToday: "오늘: 결제 없음.",
		}},
		{lang.Indonesian, words{
			subscribe: "Berlangganan", submit: "Berlangganan dan bayar sekarang", active: "Aktif", day: "tanggal %d", every2: "setiap 2 bulan", title2: "Setiap 2 bulan",
			subscribed: "Anda berlangganan", skipped: "Pembayaran dilewati",
			receipts: "Kuitansi", receiptTitle: "Kuitansi R", amount: "€25,00", drops: "Rilis terbatas", claimed: "Berhasil diklaim",
			valid: "berlaku", tickets: "Tiket Anda", opensIn: "Dibuka dalam", left: "Sisa 3 dari 3",
			swapNothing: "Tidak ada tagihan sekarang", swapCredit: "Kredit untuk", swapCharged: "Ditagihkan sekarang",
			codeToday: "Kode BOX10 memotong €1,25 hari ini.", trialToday: "Hari ini: tidak ada yang dibayar.",
		}},
	} {
		sideBySide(t, &together, string(tc.l), func(t *testing.T) {
			s := newShop(t)
			s.coffeeBox(t)
			w := tc.w
			date := func(d time.Time) string { return lang.DateIn(tc.l, d) }
			b, id := s.newCustomer(t, "Lang "+string(tc.l))
			// The link of the switcher: the language stays for the visit.
			wantStatus(t, "switch language", b.get("/subscriptions?lang="+string(tc.l)), http.StatusOK)

			p := b.get("/products/" + boxID)
			if got := attr(p.doc.Find("html"), "lang"); got != string(tc.l) {
				t.Fatalf("product page in lang %q", got)
			}
			wantText(t, "subscribe heading", p.testid("subscribe").Find("h2"), w.subscribe)
			wantText(t, "subscribe button", p.testid("subscribe-submit"), w.submit)
			wantText(t, "every 2 months", p.testid("period-2").Parent(), w.title2+" · "+w.amount)

			// A discount code and a free trial, as the form's preview says
			// them.
			s.discountCode(t, store.DiscountCode{Code: "BOX10", Payments: 2})
			s.trialTea(t)
			payday := itoa(s.env.Store.Today().Day())
			coded := b.get(paths.SubscribePreviewOf(boxID)+"&day="+payday+"&period=1&code=box10", "HX-Request", "true")
			wantText(t, "code preview", coded.testid("preview-code-today"), w.codeToday)
			trial := b.get(paths.SubscribePreviewOf(trialTeaID)+"&day="+payday+"&period=1", "HX-Request", "true")
			wantText(t, "trial preview", trial.testid("preview-today"), w.trialToday)

			// On today's day: a whole period at once (the first days of
			// another day are prorated; see the tests of the preview).
			today := s.env.Store.Today()
			list := b.subscribe(boxID, itoa(today.Day()), "2")
			sub := s.subscriptionsOf(t, id)[0]
			flash := text(list.testid("flash"))
			if !strings.Contains(flash, w.subscribed) || !strings.Contains(flash, w.amount) || !strings.Contains(flash, date(sub.NextPaymentDate)) {
				t.Fatalf("flash %q should say %q, %s and %s", flash, w.subscribed, w.amount, date(sub.NextPaymentDate))
			}
			card := list.testid("subscription")
			wantText(t, "status", card.Find(sel("sub-status")), w.active)
			wantText(t, "amount", card.Find(sel("sub-amount")), w.amount+" "+w.every2)
			wantText(t, "day", card.Find(sel("sub-day")), fmt.Sprintf(w.day, today.Day()))
			wantText(t, "next payment", card.Find(sel("sub-next-payment")), date(sub.NextPaymentDate))
			wantText(t, "skip button", card.Find(sel("sub-skip")), date(sub.NextPaymentDate))

			// An action through htmx answers in the language too.
			skip := b.post("/subscriptions/"+sub.ID+"/skip", url.Values{"version": {itoa(sub.Version)}}, "HX-Request", "true")
			wantStatus(t, "skip", skip, http.StatusOK)
			after := rules.NextBillingDate(sub.NextPaymentDate, 2, today.Day())
			wantText(t, "skipped", skip.testid("sub-notice"), w.skipped)
			wantText(t, "skipped", skip.testid("sub-notice"), date(after))
			// A second skip of a version gone is the stale answer, in words.
			stale := b.post("/subscriptions/"+sub.ID+"/skip", url.Values{"version": {itoa(sub.Version)}}, "HX-Request", "true")
			wantStatus(t, "stale skip", stale, http.StatusConflict)
			if got := text(stale.testid("sub-error")); got == "" || strings.Contains(got, "another tab") {
				t.Fatalf("stale answer %q", got)
			}

			// A change of quantity, previewed as it is chosen (htmx): from
			// the next payment, and now with the unused days credited.
			next := b.get(paths.SubscriptionSwap(sub.ID)+"?product="+boxID+"&quantity=2&when=next", "HX-Request", "true")
			wantStatus(t, "swap preview", next, http.StatusOK)
			wantText(t, "swap preview", next.testid("sub-swap-now"), w.swapNothing)
			swapNow := b.get(paths.SubscriptionSwap(sub.ID)+"?product="+boxID+"&quantity=2&when=now", "HX-Request", "true")
			wantStatus(t, "swap now preview", swapNow, http.StatusOK)
			wantText(t, "swap now credit", swapNow.testid("sub-swap-preview"), w.swapCredit)
			wantText(t, "swap now charge", swapNow.testid("sub-swap-preview"), w.swapCharged)

			r := b.get("/receipts")
			wantText(t, "receipts heading", r.doc.Find("h1"), w.receipts)
			wantText(t, "receipt row", r.testid("receipt-row"), w.amount)
			wantText(t, "receipt row", r.testid("receipt-row"), date(s.env.Store.Today()))
			href := attr(r.testid("receipt-link"), "href")
			rp := b.get(href)
			wantStatus(t, "receipt", rp, http.StatusOK)
			wantText(t, "receipt heading", rp.doc.Find("h1"), w.receiptTitle)
			wantText(t, "receipt amount", rp.testid("receipt-amount"), w.amount)
			wantText(t, "receipt period", rp.testid("receipt-period"), date(s.env.Store.Today()))
			wantText(t, "receipt paid", rp.testid("receipt-paid"), date(s.env.Store.Today()))

			// Drops: one coming in two days, one open; a claim, the tickets.
			now := time.Now()
			later := s.newDrop(t, "Later", 3, now.Add(50*time.Hour), now.Add(60*time.Hour), true)
			open := s.openDrop(t, "Now", 3)
			dl := b.get("/drops")
			wantText(t, "drops heading", dl.doc.Find("h1"), w.drops)
			dp := b.get("/drops/" + open.ID)
			wantText(t, "left", dp.testid("drop-live"), w.left)
			claim := b.press(open.ID, false)
			wantStatus(t, "claim", claim, http.StatusOK)
			wantText(t, "claimed", claim.testid("claim-notice"), w.claimed)
			wantText(t, "ticket status", claim.testid("my-ticket-status"), w.valid)
			tp := b.get("/tickets")
			wantText(t, "tickets heading", tp.doc.Find("h1"), w.tickets)
			wantText(t, "ticket status", tp.testid("ticket-status"), w.valid)
			wantText(t, "countdown", b.get("/drops/"+later.ID).testid("drop-live"), w.opensIn)
		})
	}
	together.Wait()
}
