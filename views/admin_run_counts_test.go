package views

import (
	"strings"
	"testing"
	"time"

	"shop/store"
)

// A run's page shows the counts its job keeps: a reminders run mails
// reminders and charges nothing, the archive counts months; a run that
// has not found its due yet says so rather than "0 of 0 due done", and
// has no failures "so far" rather than "the run finished".
func TestRunPagesShowTheirJobsCounts(t *testing.T) {
	at := time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)
	run := func(job, outcome string, c store.RunCounts) AdminRunPage {
		return AdminRunPage{Progress: AdminRunProgress{Run: store.JobRun{ID: "r1", Job: job, Date: at, StartedAt: at, Outcome: outcome, Counts: c, Trigger: "start-up", Replica: "one"}},
			Chart: AdminRunChart{Job: job}}
	}
	// A run staff started names them.
	staffRun := func(p AdminRunPage) AdminRunPage {
		p.Progress.Run.Trigger, p.Progress.Run.StartedBy = "staff", "Sam Staff"
		return p
	}
	for _, c := range []struct {
		name        string
		page        AdminRunPage
		want, not   []string // count-KEY test ids
		progress    string   // the progress line's text, in part
		failures    string
		wantTrigger string
	}{
		{"payments under way, due not found yet", run("payments", store.RunRunning, store.RunCounts{}),
			[]string{"due", "charged", "declined", "mailed"}, []string{"refunded", "archived"}, "Finding what is due", "None so far.", "the shop at start-up"},
		{"payments under way", run("payments", store.RunRunning, store.RunCounts{Due: 10, Charged: 4, Mailed: 4}),
			[]string{"charged"}, nil, "4 of 10 due done", "None so far.", ""},
		{"reminders", run("reminders", store.RunCompleted, store.RunCounts{Due: 5, Mailed: 4, Skipped: 1}),
			[]string{"due", "mailed", "skipped", "failed"}, []string{"charged", "declined", "cancelled", "attention"}, "", "None: the run finished everything it found due.", ""},
		{"card refunds", staffRun(run("card-refunds", store.RunCompleted, store.RunCounts{Due: 2, Refunded: 2, Mailed: 2})),
			[]string{"refunded", "mailed"}, []string{"charged", "declined", "skipped"}, "", "", "started by Sam Staff"},
		{"ticket stock", run("ticket-stock", store.RunCompleted, store.RunCounts{Due: 3, Returned: 2, Skipped: 1}),
			[]string{"returned", "skipped", "failed"}, []string{"charged", "mailed", "refunded"}, "", "", ""},
		{"archive", run("archive", store.RunCompleted, store.RunCounts{Due: 3, Archived: 3}),
			[]string{"archived"}, []string{"charged", "mailed", "skipped"}, "", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := render(t, AdminRunView(Layout{}, c.page))
			for _, k := range c.want {
				if doc.Find(`[data-testid="count-`+k+`"]`).Length() != 1 {
					t.Errorf("no %s count on the page", k)
				}
			}
			for _, k := range c.not {
				if doc.Find(`[data-testid="count-`+k+`"]`).Length() != 0 {
					t.Errorf("a %s count on a %s run's page", k, c.page.Progress.Run.Job)
				}
			}
			if c.progress != "" {
				if got := doc.Find(`[data-testid="run-progress-text"]`).Text(); !strings.Contains(got, c.progress) {
					t.Errorf("progress %q, want %q in it", strings.Join(strings.Fields(got), " "), c.progress)
				}
			}
			if c.failures != "" {
				if got := strings.TrimSpace(doc.Find(`[data-testid="failures-empty"]`).Text()); got != c.failures {
					t.Errorf("failures %q, want %q", got, c.failures)
				}
			}
			if c.wantTrigger != "" && !strings.Contains(doc.Find("hgroup").Text(), c.wantTrigger) {
				t.Errorf("the heading %q does not say %q", doc.Find("hgroup").Text(), c.wantTrigger)
			}
		})
	}
}
