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
