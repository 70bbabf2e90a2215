package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"shop/store"
	"shop/store/payment"
	"shop/store/rules"
	"shop/views/lang"
	"shop/web/paths"
)

const trialTeaID = "trial-tea"

// trialTea is a subscribable tea at €12.50 a month with a 14-day trial.
func (s *shop) trialTea(t *testing.T) store.Product {
	t.Helper()
	p, err := s.env.Store.CreateProduct(context.Background(), store.Product{
		ID: trialTeaID, Name: "Trial Tea", Description: "Green tea, tried free.", Category: "coffee",
		Price: store.Money{Amount: 1490, Currency: "EUR"}, Subscribable: true, MonthlyPrice: store.Money{Amount: boxPerMon, Currency: "EUR"},
		TrialDays: 14,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Staff give a product a free trial on its form: a number of days that is
// not 0-90 is a 422 at the field and nothing is saved; 14 is saved and
// shown on the staff page and the product's page.
func TestAdminProductTrialDays(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	ctx := context.Background()
	const path = "/admin/products/kt-mug"
	form := func(trial string) url.Values {
		return url.Values{"name": {"Stoneware Mug"}, "category": {"kitchen"}, "price": {"18.90"}, "subscribable": {"1"},
			"monthly_price": {"4.50"}, "trial_days": {trial}}
	}
	wantStatus(t, "mug", b.get(path), http.StatusOK)
	for _, bad := range []string{"-1", "91", "abc", "1.5"} {
		p := b.post(path, form(bad))
		wantStatus(t, "trial "+bad, p, http.StatusUnprocessableEntity)
		wantText(t, "trial "+bad, p.testid("error-trial_days"), "whole number of days from 0 to 90")
		if v := attr(p.testid("field-trial_days"), "value"); v != bad {
			t.Fatalf("the typed trial %q came back as %q", bad, v)
		}
		if got, _ := s.env.Store.Product(ctx, "kt-mug"); got.Subscribable || got.TrialDays != 0 {
			t.Fatalf("a refused form was saved: %+v", got)
		}
	}
	wantStatus(t, "trial 14", b.post(path, form("14")), http.StatusSeeOther)
	if got, err := s.env.Store.Product(ctx, "kt-mug"); err != nil || got.TrialDays != 14 {
		t.Fatalf("stored %+v, %v", got, err)
	}
	prod := b.get(path)
	wantText(t, "staff page", prod.testid("admin-product-trial"), "14-day free trial")
	if v := attr(prod.testid("field-trial_days"), "value"); v != "14" {
		t.Fatalf("the form shows %q days", v)
	}
	shop := s.browser(t).get("/products/kt-mug")
	wantText(t, "product page", shop.testid("subscribe-trial"), "14-day free trial")
	// Blank is no trial.
	wantStatus(t, "no trial", b.post(path, form("")), http.StatusSeeOther)
	if got, _ := s.env.Store.Product(ctx, "kt-mug"); got.TrialDays != 0 {
		t.Fatalf("blank kept %d days", got.TrialDays)
	}
}

// A customer subscribes to tea with a 14-day trial: the form and its
// preview (htmx and without JavaScript) say it is free until the trial
// ends, then the share from that day to the payment day, then whole
// periods; nothing is charged (the card is saved on the provider's page in
// setup mode), and the flash and receipt say the trial. Taking it a second
// time: the form says they had it, quotes from today, and subscribing
// charges as a product without a trial.
func TestSubscribeWithATrialThenTakeItTwice(t *testing.T) {
	t.Parallel()
	s := newShop(t, withoutBackgroundReads)
	s.trialTea(t)
	en := lang.With(context.Background(), lang.English)
	today := s.env.Store.Today()
	payday := today.Day()
	monthly := store.Money{Amount: boxPerMon, Currency: "EUR"}
	plan := store.TrialFirstCharge(today, 14, payday, 1, monthly)
	wantPreview := "Today: nothing to pay. Free until " + day(plan.First.From.AddDate(0, 0, -1)) + "; then " + lang.Money(en, plan.First.Charge) +
		" on " + day(plan.First.From) + " for " + lang.DateRange(en, plan.First.From, plan.First.To) + ", then €12.50 every month on day " + itoa(payday) + "."
	b, ada := s.newCustomer(t, "Ada Trial")

	p := b.get("/products/" + trialTeaID)
	wantText(t, "product page", p.testid("subscribe-trial"), "14-day free trial")
	wantText(t, "form's preview", p.testid("preview-today"), wantPreview)
	preview := paths.SubscribePreview + "?" + url.Values{"product_id": {trialTeaID}, "day": {itoa(payday)}, "period": {"1"}}.Encode()
	wantText(t, "htmx preview", b.get(preview, "HX-Request", "true").testid("preview-today"), wantPreview)
	// In Korean and Indonesian, as each writes days and amounts.
	for _, l := range []lang.Lang{lang.Korean, lang.Indonesian} {
		lc := lang.With(context.Background(), l)
		wantStatus(t, "switch to "+string(l), b.get("/products/"+trialTeaID+"?lang="+string(l)), http.StatusOK)
		got := b.get(preview, "HX-Request", "true").testid("preview-today")
		wantText(t, string(l)+" preview", got, lang.Money(lc, plan.First.Charge))
		wantText(t, string(l)+" preview", got, lang.Date(lc, plan.First.From.AddDate(0, 0, -1)))
		wantText(t, string(l)+" trial", b.get("/products/"+trialTeaID).testid("subscribe-trial"), map[lang.Lang]string{lang.Korean: "14일 무료 체험", lang.Indonesian: "Uji coba gratis 14 hari"}[l])
	}
	wantStatus(t, "back to English", b.get("/products/"+trialTeaID+"?lang=en"), http.StatusOK)

	// A code for one payment is taken off the first charge after the trial.
	s.discountCode(t, store.DiscountCode{Code: "TEA10", Payments: 1})
	withCode := b.get(paths.SubscribePreview+"?"+url.Values{"product_id": {trialTeaID}, "day": {itoa(payday)}, "period": {"1"}, "code": {"TEA10"}}.Encode(),
		"HX-Request", "true")
	gross := plan.First.Charge
	code := &store.Coupon{Kind: store.DiscountPercent, Percent: 10, Left: 1}
	net := store.Money{Amount: gross.Amount - code.RenewalOff(gross).Amount, Currency: "EUR"}
	wantText(t, "preview with a code", withCode.testid("preview-today"), "then "+lang.Money(en, net)+" on "+day(plan.First.From))
	wantText(t, "preview with a code", withCode.testid("preview-coupon"), "TEA10")
	form := b.subscribeForm(trialTeaID, itoa(payday), "1")
	form.Set("preview", "1")
	wantText(t, "preview without JavaScript", b.post("/subscriptions", form).testid("preview-today"), wantPreview)
	form.Del("preview")

	s.env.Counter.Reset()
	p = b.post("/subscriptions", form)
	wantStatus(t, "subscribe", p, http.StatusSeeOther)
	t.Logf("the subscribe's post (to the provider's page in setup mode): %d DynamoDB requests %v", s.env.Counter.Total(), s.env.Counter.Ops())
	s.env.Counter.Reset()
	back := s.payOnPage(t, b, strings.TrimPrefix(p.header.Get("Location"), s.base), payment.CardSucceeds)
	s.deliverEvents(t, nil)
	t.Logf("the page saving the card and its event starting the subscription: %d DynamoDB requests %v", s.env.Counter.Total(), s.env.Counter.Ops())
	list := b.get(back)
	wantText(t, "the subscription's card", list.testid("sub-trial"), "Free trial until "+day(plan.Ends.AddDate(0, 0, -1)))
	wantText(t, "flash", list.testid("flash"), "with a free trial until "+day(plan.Ends.AddDate(0, 0, -1))+": nothing was charged")
	if n, _ := s.cardPayments(t); n != 0 {
		t.Fatalf("the trial charged %d payments", n)
	}
	subs := s.subscriptionsOf(t, ada)
	if len(subs) != 1 || !subs[0].TrialEnds.Equal(plan.Ends) || !subs[0].NextPaymentDate.Equal(plan.First.From) ||
		subs[0].AmountFor(subs[0].NextPaymentDate) != plan.First.Charge {
		t.Fatalf("subscriptions %+v, want the trial to %s and %v then", subs, day(plan.Ends), plan.First.Charge)
	}
	staff := s.staff(t).get(paths.AdminSubscriptionsIn(string(store.SubscriptionActive)))
	wantText(t, "staff's list", staff.doc.Find(`[data-subscription="`+subs[0].ID+`"] [data-testid="subscription-trial"]`),
		"Free trial until "+store.FormatDate(plan.Ends.AddDate(0, 0, -1)))
	// Its mail, written with the receipt: the trial's end, the first
	// charge's amount and day; no "we charged €0.00".
	var started []store.Mail
	for _, m := range s.mailsOf(t, store.MailReceipt) {
		if m.SubscriptionID == subs[0].ID {
			started = append(started, m)
		}
	}
	if len(started) != 1 {
		t.Fatalf("%d mails of the trial's start, want 1: %+v", len(started), started)
	}
	for _, want := range []string{"free until " + plan.Ends.AddDate(0, 0, -1).Format("2 January 2006"),
		"On " + plan.First.From.Format("2 January 2006") + " we will charge your first payment, " + lang.Money(en, plan.First.Charge)} {
		if !strings.Contains(strings.Join(strings.Fields(started[0].Text), " "), want) || !strings.Contains(started[0].HTML, plan.First.From.Format("2 January 2006")) {
			t.Fatalf("the trial's mail does not say %q:\n%s", want, started[0].Text)
		}
	}
	rp := b.get(attr(b.get("/receipts").testid("receipt-link"), "href"))
	wantText(t, "receipt amount", rp.testid("receipt-amount"), "€0.00")
	wantText(t, "receipt kind", rp.testid("receipt-kind"), "Free trial: nothing charged")

	// The second time: no trial, said on the form, charged from today.
	p = b.get("/products/" + trialTeaID)
	wantText(t, "trial had", p.testid("subscribe-trial-taken"), "You have had this product's trial")
	if p.testid("subscribe-trial").Length() != 0 {
		t.Fatal("the trial is offered again")
	}
	first := rules.FirstPeriod(today, payday, 1, monthly)
	wantText(t, "preview without the trial", p.testid("preview-today"), "Today: "+lang.Money(en, first.Charge))
	list = b.subscribe(trialTeaID, itoa(payday), "1")
	if n, total := s.cardPayments(t); n != 1 || total != first.Charge.Amount {
		t.Fatalf("the second subscribe took %d payments of %d, want one of %d", n, total, first.Charge.Amount)
	}
	subs = s.subscriptionsOf(t, ada)
	if len(subs) != 2 {
		t.Fatalf("%d subscriptions, want 2", len(subs))
	}
	trials := 0
	for _, sub := range subs {
		if !sub.TrialEnds.IsZero() {
			trials++
		}
	}
	if trials != 1 {
		t.Fatalf("%d of the subscriptions have a trial, want 1", trials)
	}
	if strings.Contains(text(list.testid("flash")), "free trial") {
		t.Fatalf("the second subscribe's flash speaks of a trial: %s", text(list.testid("flash")))
	}
}
