package web_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"shop/jobs"
	"shop/store"
)

// A run its replica left running (no lease holds it any more) is closed by
// the reconcile check; its page then says interrupted, and why.
func TestAdminJobsShowsAStalledRunInterrupted(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	run := recordRun(t, s.env.Store, store.JobRun{
		Job: jobs.JobPayments, Date: s.env.Store.Today().AddDate(0, 0, -1), Trigger: jobs.TriggerSchedule, Replica: "killed",
		StartedAt: time.Now().UTC().Add(-time.Hour), Outcome: store.RunRunning, Counts: store.RunCounts{Due: 12, Charged: 5, Mailed: 5},
	})
	// The killed replica's heartbeat is older than the checker's lease life.
	runner := jobs.NewRunner(s.env.Store, nil, jobs.Config{Replica: "checker", LeaseTTL: 50 * time.Millisecond})
	time.Sleep(100 * time.Millisecond)
	if n, err := runner.CloseStalledRuns(ctx, jobs.JobPayments); err != nil || n != 1 {
		t.Fatalf("CloseStalledRuns = %d, %v; want 1", n, err)
	}
	p := s.staff(t).get("/admin/jobs/payments/runs/" + run.ID)
	wantStatus(t, "run page", p, http.StatusOK)
	wantText(t, "outcome", p.testid("run-page-outcome"), "interrupted")
	wantText(t, "why", p.testid("run-page-why"), "stopped without recording its end")
	wantText(t, "charged kept", p.testid("count-charged"), "5")
	if p.testid("run-stalled").Length() != 0 {
		t.Error("a closed run is still shown stalled")
	}
}

// The outbox shows each mail's tries and, for one refused, when it is
// tried next; one given up says so.
func TestAdminOutboxShowsTriesAndNextTry(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	refused := store.Mail{
		ID: "receipt-sub9-R0009", To: "bea@example.org", Kind: store.MailReceipt, Subject: "Your receipt R0009", Text: "Thank you.",
		CreatedAt: now.Add(-10 * time.Minute), Status: store.MailFailed, Attempts: 3, LastError: "550 mailbox unavailable",
		NextAttemptAt: now.Add(4 * time.Minute),
	}
	gone := store.Mail{
		ID: "reminder-sub9-2026-01-01", To: "gone@example.org", Kind: store.MailReminder, Subject: "Your next delivery", Text: "Soon.",
		CreatedAt: now.Add(-25 * time.Hour), Status: store.MailFailedForGood, Attempts: 30, LastError: "550 mailbox unavailable",
	}
	for _, m := range []store.Mail{refused, gone} {
		if err := s.env.Store.PutMail(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	staff := s.staff(t)
	p := staff.get("/admin/outbox")
	wantStatus(t, "outbox", p, http.StatusOK)
	row := p.doc.Find(`[data-testid="mail-row"][data-mail="` + refused.ID + `"]`)
	wantText(t, "refused tries", row.Find(`[data-testid="mail-attempts"]`), "3")
	if got := squash(row.Find(`[data-testid="mail-next-try"]`).Text()); got == "" || got == "—" {
		t.Errorf("refused mail's next try %q, want its time", got)
	}
	row = p.doc.Find(`[data-testid="mail-row"][data-mail="` + gone.ID + `"]`)
	wantText(t, "given up", row.Find(`[data-testid="mail-status"]`), "Given up")
	if got := squash(row.Find(`[data-testid="mail-next-try"]`).Text()); got != "" {
		t.Errorf("a mail given up has a next try %q", got)
	}
	m := staff.get("/admin/outbox/" + refused.ID)
	wantStatus(t, "mail page", m, http.StatusOK)
	if m.testid("mail-page-next-try").Length() != 1 {
		t.Error("the refused mail's page does not say when it is tried next")
	}
}
