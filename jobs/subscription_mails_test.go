package jobs_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"shop/jobs"
	"shop/store"
	"shop/store/payment"
	"shop/store/storetest"
	"shop/store/storetest/paytest"
	"shop/views/mail"
)

// mailsOfKind reads the outbox's mails of one kind.
func mailsOfKind(t *testing.T, env storetest.Env, kind store.MailKind) []store.Mail {
	t.Helper()
	var out []store.Mail
	cursor := ""
	for {
		p, err := env.Store.Outbox(ctxT(t), 100, cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range p.Items {
			if m.Kind == kind {
				out = append(out, m)
			}
		}
		if p.Next == "" {
			return out
		}
		cursor = p.Next
	}
}

// A card that stops paying before the next payment is mailed about with
// that payment's reminder: once per card and payment, not on every run,
// and not for a card that still pays on the day. The mails go out by SMTP.
func TestCardExpiringBeforeThePaymentIsMailedOnce(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-04-24")
	ctx := ctxT(t)
	expiring := paytest.LegacyCard(t, b.env.Store, payment.CardSucceeds, "04/26") // pays until 30 April
	warned := b.seed(t, 2, "2026-05-01", expiring)                                // reminders on 24 April
	b.seed(t, 1, "2026-05-01", b.good)
	b.seed(t, 1, "2026-04-30", expiring) // still pays on its day; reminder on the 23rd, sent late today
	r := b.runner("r")
	run, err := r.Run(ctx, jobs.JobReminders, day("2026-04-24"), jobs.TriggerSchedule)
	if err != nil || run.Counts.Mailed != 4 {
		t.Fatalf("reminders: %+v %v", run.Counts, err)
	}
	got := mailsOfKind(t, b.env, store.MailCardExpiring)
	if len(got) != 2 {
		t.Fatalf("%d card mails, want 2: %+v", len(got), got)
	}
	for _, m := range got {
		if (m.SubscriptionID != warned[0].ID && m.SubscriptionID != warned[1].ID) ||
			!strings.Contains(m.Text, "April 2026") || !strings.Contains(m.Text, "1 May 2026") || !strings.Contains(m.HTML, "Add a new card") {
			t.Errorf("card mail %s: %q", m.SubscriptionID, m.Text)
		}
	}
	for _, d := range []string{"2026-04-24", "2026-04-25"} {
		b.clock.Set(day(d).Add(13 * time.Hour))
		if _, err := r.Run(ctx, jobs.JobReminders, day(d), jobs.TriggerSchedule); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(mailsOfKind(t, b.env, store.MailCardExpiring)); n != 2 {
		t.Fatalf("after two more runs %d card mails, want still 2", n)
	}

	srv := startSMTP(t, "127.0.0.1:0")
	sent, failed, err := newDeliverer(t, b.env.Store, srv.URL()).DeliverPending(ctx)
	if err != nil || sent != 6 || failed != 0 {
		t.Fatalf("delivery: %d sent, %d failed, %v", sent, failed, err)
	}
	cards := 0
	for _, rcv := range srv.Received() {
		p := parseMessage(t, rcv.Data)
		if strings.Contains(p.Subject, "expires before your payment") {
			cards++
			if !strings.Contains(p.HTML, "Add a new card") || !strings.Contains(p.Text, "April 2026") {
				t.Errorf("card mail over SMTP: %q", p.Text)
			}
		}
	}
	if cards != 2 {
		t.Errorf("%d card mails over SMTP, want 2", cards)
	}
}

// A price change scheduled by staff: refused under 30 days ahead; the
// subscribers are told 30 days before it applies, each once; the product's
// price changes on the day; each subscription pays the old price until its
// first payment on or after the day, then the new one.
func TestPriceChangeAnnouncedThirtyDaysAheadAndChargedFromItsDay(t *testing.T) {
	t.Parallel()
	b := newBilling(t, "2026-03-01")
	ctx := ctxT(t)
	st := b.env.Store
	beans := store.Product{ID: "beans", Name: "Fika beans", Category: "coffee", Price: eur(1200), Subscribable: true, MonthlyPrice: eur(990)}
	if err := st.PutProduct(ctx, beans); err != nil {
		t.Fatal(err)
	}
	subs := b.seed(t, 3, "2026-04-15", b.good)
	if _, err := st.SchedulePriceChange(ctx, beans, eur(1190), day("2026-03-30"), "staff"); !errors.Is(err, store.ErrPriceTooSoon) {
		t.Fatalf("29 days ahead: %v", err)
	}
	if _, err := st.SchedulePriceChange(ctx, beans, eur(990), day("2026-05-01"), "staff"); !errors.Is(err, store.ErrPriceSame) {
		t.Fatalf("the same price: %v", err)
	}
	if _, err := st.SchedulePriceChange(ctx, beans, eur(1190), day("2026-04-20"), "staff"); err != nil {
		t.Fatal(err)
	}
	r := b.runner("r")
	runOn := func(d string, job string) store.JobRun {
		t.Helper()
		b.clock.Set(day(d).Add(12 * time.Hour))
		run, err := r.Run(ctx, job, day(d), jobs.TriggerSchedule)
		if err != nil || run.Counts.Failed != 0 {
			t.Fatalf("%s on %s: %+v %v", job, d, run.Counts, err)
		}
		return run
	}
	runOn("2026-03-20", jobs.JobReminders)
	if n := len(mailsOfKind(t, b.env, store.MailPriceChange)); n != 0 {
		t.Fatalf("announced 31 days ahead: %d mails", n)
	}
	runOn("2026-03-21", jobs.JobReminders)
	runOn("2026-03-21", jobs.JobReminders)
	runOn("2026-03-22", jobs.JobReminders)
	mails := mailsOfKind(t, b.env, store.MailPriceChange)
	if len(mails) != 3 {
		t.Fatalf("%d price mails, want one per subscriber (3)", len(mails))
	}
	if !strings.Contains(mails[0].Text, "€11.90") || !strings.Contains(mails[0].Text, "20 April 2026") {
		t.Errorf("price mail: %q", mails[0].Text)
	}
	if pc, err := st.ProductPriceChange(ctx, "beans"); err != nil || store.FormatDate(pc.AnnouncedOn) != "2026-03-21" || pc.Announced != 3 {
		t.Errorf("the change after announcing: %+v %v", pc, err)
	}
	if _, err := st.SchedulePriceChange(ctx, beans, eur(1290), day("2026-06-01"), "staff"); !errors.Is(err, store.ErrPriceAnnounced) {
		t.Errorf("rescheduling an announced change: %v", err)
	}
	if s := b.reread(t, subs[0]); s.NewPrice != eur(1190) || store.FormatDate(s.NewPriceFrom) != "2026-04-20" || s.MonthlyPrice != eur(990) {
		t.Errorf("subscription after the announcement: %+v from %s", s.NewPrice, store.FormatDate(s.NewPriceFrom))
	}

	runOn("2026-04-15", jobs.JobPayments) // before the day: the old price
	runOn("2026-04-20", jobs.JobReminders)
	if p, err := st.Product(ctx, "beans"); err != nil || p.MonthlyPrice != eur(1190) {
		t.Errorf("the product on the day: %v %v", p.MonthlyPrice, err)
	}
	runOn("2026-05-15", jobs.JobPayments) // the first payment on or after it: the new one
	for _, s := range subs {
		now := b.reread(t, s)
		if now.MonthlyPrice != eur(1190) || !now.NewPriceFrom.IsZero() {
			t.Errorf("subscription after paying the new price: %v, from %s", now.MonthlyPrice, store.FormatDate(now.NewPriceFrom))
		}
		recs, err := st.RecentReceipts(ctx, s.AccountID, 10, "")
		if err != nil || len(recs.Items) != 2 {
			t.Fatalf("receipts %+v %v", recs.Items, err)
		}
		if recs.Items[0].Amount != eur(1190) || recs.Items[1].Amount != eur(990) {
			t.Errorf("charged %v on %s and %v on %s; want 9.90 then 11.90", recs.Items[1].Amount, store.FormatDate(recs.Items[1].PeriodStart), recs.Items[0].Amount, store.FormatDate(recs.Items[0].PeriodStart))
		}
	}
}

// The refund mail of a receipt goes out over SMTP with its text and HTML.
func TestReceiptRefundMailOverSMTP(t *testing.T) {
	t.Parallel()
	rec := store.Receipt{Number: "R0000000000AB", AccountID: "c1", SubscriptionID: "s1", ProductName: "Fika beans", Email: "ada@example.com",
		Amount: eur(1299), Card: store.Card{Brand: "Visa", Last4: "4242"},
		Refund: &store.ReceiptRefund{Status: store.ReceiptRefunded, Amount: eur(500), Reason: "stale beans"}}
	m := mail.ReceiptRefund("https://shop.example/", time.Now(), rec)
	env, srv, d := newDelivery(t, *m)
	deliver(t, d, 1, 0)
	got := srv.Received()
	if len(got) != 1 || got[0].To[0] != "ada@example.com" {
		t.Fatalf("received %+v", got)
	}
	p := parseMessage(t, got[0].Data)
	if p.Subject != "Refund of €5.00: receipt R0000000000AB" || !strings.Contains(p.Text, "stale beans") ||
		!strings.Contains(p.HTML, `href="https://shop.example/receipts/R0000000000AB"`) {
		t.Errorf("refund mail: %q\n%q\n%q", p.Subject, p.Text, p.HTML)
	}
	if o := outboxMail(t, env, m.ID); o.Status != store.MailSent || o.Kind != store.MailReceiptRefund {
		t.Errorf("in the outbox: %+v", o)
	}
}
