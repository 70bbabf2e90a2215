package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"shop/store"
	"shop/store/rules"
	"shop/views/lang"
)

// inKorean checks that the page is Korean and shows no message id in
// place of words.
func (j journey) inKorean(step string) {
	j.t.Helper()
	got, err := chromedp.Run(j.ctx, chromedp.Evaluate[[]string](`[document.documentElement.lang, document.body.innerText]`))
	if err != nil {
		j.t.Fatalf("%s: %v", j.step(step), err)
	}
	if got[0] != "ko" {
		j.t.Fatalf("%s: <html lang=%q>, want ko", j.step(step), got[0])
	}
	if i := strings.Index(got[1], "⟦"); i >= 0 {
		j.t.Fatalf("%s: the page shows a message id: %q", j.step(step), got[1][i:min(len(got[1]), i+60)])
	}
}

// A visitor chooses 한국어 in the footer's switcher on the first page,
// signs up, subscribes and reads the receipt: every step in Korean, the
// amount and the days written the Korean way; on a 360 px phone the
// subscription page does not scroll sideways.
func TestBrowserJourneyKoreanSubscription(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	s.coffeeBox(t)
	today := s.env.Store.Today()
	j := newJourney(t, s.base)
	card := func(testid string) string { return `[data-testid="subscription"] ` + sel(testid) }

	j.do("open sign-up", chromedp.Navigate(s.base+"/signup"), chromedp.WaitVisible(sel("signup-form")))
	j.do("choose 한국어", chromedp.Click(sel("lang-ko")), chromedp.WaitVisible(`html[lang="ko"] `+sel("signup-form")))
	j.inKorean("sign-up page")
	j.shot("k1-signup")
	j.do("sign up",
		chromedp.SendKeys(sel("field-email"), "minji@example.com"),
		chromedp.SendKeys(sel("field-name"), "Minji"),
		chromedp.SendKeys(sel("field-password"), "a much longer password"),
		chromedp.Click(sel("signup-submit")),
		chromedp.WaitVisible(sel("viewer-name")),
	)
	j.inKorean("signed up")

	j.do("product page", chromedp.Navigate(s.base+"/products/"+boxID), chromedp.WaitVisible(sel("subscribe-form")))
	j.inKorean("product page")
	if got := j.text(sel("subscribe") + " h2"); got != "정기 결제" {
		t.Fatalf("subscribe heading %q", got)
	}
	if got := j.text(sel("subscribe-submit")); got != "정기 결제 신청하고 지금 결제하기" {
		t.Fatalf("subscribe button %q", got)
	}
	// The preview follows the day as it is typed (htmx): ten days ahead
	// the first days' share, then on today's day a whole period.
	ahead := today.AddDate(0, 0, 10)
	share := rules.FirstPeriod(today, ahead.Day(), 1, store.Money{Amount: boxPerMon, Currency: "EUR"})
	j.do("type a payment day ten days ahead", chromedp.SetValue(sel("field-day"), ""), chromedp.SendKeys(sel("field-day"), itoa(ahead.Day())))
	j.waitText("the first days' share", sel("preview-today"), lang.MoneyIn(lang.Korean, share.Charge)+" (주기 "+itoa(share.Of)+"일 중 10일)")
	j.waitText("then a whole period", sel("preview-then"), lang.DateIn(lang.Korean, ahead)+"에 €12.50")
	j.do("type today's day", chromedp.SetValue(sel("field-day"), ""), chromedp.SendKeys(sel("field-day"), itoa(today.Day())))
	j.waitText("a whole period today", sel("preview-today"), "오늘이 결제일입니다")
	j.shot("k2-subscribe-form")
	// The card is typed on the test payment page, in Korean too.
	j.do("subscribe", chromedp.Click(sel("subscribe-submit")), chromedp.WaitVisible(sel("test-payment-form")))
	j.inKorean("test payment page")
	j.payOnTestPage("Minji", "flash")
	s.deliverEvents(t, nil)
	j.do("refresh", chromedp.Reload(), chromedp.WaitVisible(sel("subscription")))
	j.inKorean("subscriptions")
	if flash := j.text(sel("flash")); !strings.Contains(flash, "정기 결제를 시작했습니다") || !strings.Contains(flash, "€12.50") || !strings.Contains(flash, "영수증 번호는 R") {
		t.Fatalf("flash after subscribing: %q", flash)
	}
	if got := j.text(card("sub-status")); got != "이용 중" {
		t.Fatalf("status %q", got)
	}
	if got := j.text(card("sub-day")); !strings.HasPrefix(got, "매월 "+itoa(today.Day())+"일") {
		t.Fatalf("payment day %q", got)
	}
	if got := j.text(card("sub-next-payment")); !strings.HasPrefix(got, "20") || !strings.Contains(got, "년 ") || !strings.HasSuffix(got, "일") {
		t.Fatalf("next payment %q is not a Korean date", got)
	}
	j.shot("k3-subscribed")

	j.openMenu()
	j.do("receipts", chromedp.Click(sel("nav-receipts")), chromedp.WaitVisible(sel("receipt-row")))
	j.inKorean("receipts")
	if got := j.text("main h1"); got != "영수증" {
		t.Fatalf("receipts heading %q", got)
	}
	j.do("receipt", chromedp.Click(sel("receipt-link")), chromedp.WaitVisible(sel("receipt-number")))
	j.inKorean("receipt")
	if got := j.text("main h1"); !strings.HasPrefix(got, "영수증 R") {
		t.Fatalf("receipt heading %q", got)
	}
	if got := j.text(sel("receipt-amount")); got != "€12.50" {
		t.Fatalf("receipt amount %q", got)
	}
	if got, want := j.text(sel("receipt-period")), lang.DateIn(lang.Korean, today); !strings.HasPrefix(got, want) {
		t.Fatalf("receipt period %q, want it from %s", got, want)
	}
	if got := j.text(sel("receipt-paid")); !strings.Contains(got, lang.DateIn(lang.Korean, today)) {
		t.Fatalf("paid %q, want %s in it", got, lang.DateIn(lang.Korean, today))
	}
	j.shot("k4-receipt")

	j.phone()
	j.noSidewaysScroll("/subscriptions", "/receipts", "/products/"+boxID)
	j.inKorean("subscriptions on a phone")
	j.shot("k5-phone-product")
}
