package jobs_test

import (
	"strings"
	"testing"

	"shop/jobs"
	"shop/store"
	"shop/store/rules"
)

// Three days before a free trial ends, the reminders job mails its
// subscriber in their language: free until the trial's last day, then the
// first payment's share on the trial's end. Once: a day early nothing is
// sent, and a rerun sends nothing more.
func TestTrialEndingIsMailedOnceThreeDaysBefore(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-12-09")
	ctx := ctxT(t)
	st := b.env.Store
	ends := day("2026-12-12")
	subs := map[string]store.Subscription{}
	for _, l := range []string{"en", "ko", "id"} {
		sub := store.Subscription{
			ID: store.NewID(), AccountID: "c-" + l, ProductID: "tea", ProductName: "Fika tea", Email: l + "@example.com", Lang: l,
			MonthlyPrice: eur(1290), PeriodMonths: 1, PaymentDay: 1, Status: store.SubscriptionActive, Card: b.good,
			TrialEnds: ends, NextPaymentDate: ends, NextReminderDate: rules.ReminderDate(ends, day("2026-11-28"), store.TrialReminderDays),
			CreatedAt: day("2026-11-28"), Version: 1,
		}
		if err := st.CreateSubscription(ctx, sub); err != nil {
			t.Fatal(err)
		}
		subs[l] = sub
	}
	r := b.runner("r")
	if run, err := r.Run(ctx, jobs.JobReminders, day("2026-12-08"), jobs.TriggerSchedule); err != nil || run.Counts.Mailed != 0 {
		t.Fatalf("four days before: %+v, %v", run.Counts, err)
	}
	run, err := r.Run(ctx, jobs.JobReminders, day("2026-12-09"), jobs.TriggerSchedule)
	if err != nil || run.Counts.Mailed != 3 {
		t.Fatalf("three days before: %+v, %v", run.Counts, err)
	}
	if again, err := r.Run(ctx, jobs.JobReminders, day("2026-12-09"), jobs.TriggerStaff); err != nil || again.Counts.Mailed != 0 {
		t.Fatalf("a second run: %+v, %v", again.Counts, err)
	}
	want := map[string][]string{
		"en": {"Your free trial of Fika tea ends on 11 December 2026", "free until 11 December 2026", "On 12 December 2026 we will charge €8.32"},
		"ko": {"Fika tea 무료 체험이", "무료 체험", "€8.32"},
		"id": {"Uji coba gratis Fika tea berakhir pada", "gratis sampai", "€8,32"},
	}
	mails := mailsOfKind(t, b.env, store.MailReminder)
	if len(mails) != 3 {
		t.Fatalf("%d reminders in the outbox, want 3", len(mails))
	}
	for _, m := range mails {
		var l string
		for lang, sub := range subs {
			if sub.ID == m.SubscriptionID {
				l = lang
			}
		}
		all := m.Subject + "\n" + strings.ReplaceAll(m.Text, "\n", " ") + "\n" + m.HTML // the text wraps at 72
		for _, w := range want[l] {
			if !strings.Contains(all, w) {
				t.Errorf("the %s trial mail lacks %q:\n%s\n%s", l, w, m.Subject, m.Text)
			}
		}
	}
}
