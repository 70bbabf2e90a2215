package views

import "shop/store"

// runCounter is one count a job's runs keep, as the console shows it: in
// the runs table, on the run's page and on its progress line. Each job
// shows only the counts it keeps (a reminders run charges nothing).
type runCounter struct {
	Key      string // the data-testid suffix: run-KEY, count-KEY, run-progress-KEY
	Column   string // message id of the runs table's column
	Label    string // message id on the run page's table of counts
	Progress string // message id with {{.Count}} on the progress line
	Of       func(store.RunCounts) int
	// Rare counts show on the progress line only when there are some.
	Rare bool
}

var (
	countCharged   = runCounter{"charged", "admin.jobs.col.charged", "admin.jobs.col.charged", "admin.jobs.n_charged", func(c store.RunCounts) int { return c.Charged }, false}
	countDeclined  = runCounter{"declined", "admin.jobs.col.declined", "admin.jobs.counts.declined", "admin.jobs.n_declined", func(c store.RunCounts) int { return c.Declined }, false}
	countSkipped   = runCounter{"skipped", "admin.jobs.col.skipped", "admin.jobs.counts.skipped", "admin.jobs.n_skipped", func(c store.RunCounts) int { return c.Skipped }, false}
	countFailed    = runCounter{"failed", "admin.jobs.col.failed", "admin.jobs.counts.failed", "admin.jobs.n_failed", func(c store.RunCounts) int { return c.Failed }, false}
	countAttention = runCounter{"attention", "admin.jobs.col.attention", "admin.jobs.counts.attention", "admin.jobs.n_attention", func(c store.RunCounts) int { return c.Attention }, true}
	countCancelled = runCounter{"cancelled", "admin.jobs.col.cancelled", "admin.jobs.counts.cancelled", "admin.jobs.n_cancelled", func(c store.RunCounts) int { return c.Cancelled }, true}
	countMailed    = runCounter{"mailed", "admin.jobs.col.mailed", "admin.jobs.counts.mails", "admin.jobs.n_mailed", func(c store.RunCounts) int { return c.Mailed }, false}
	countReminded  = runCounter{"mailed", "admin.jobs.col.reminded", "admin.jobs.counts.reminded", "admin.jobs.n_reminded", func(c store.RunCounts) int { return c.Mailed }, false}
	countRefunded  = runCounter{"refunded", "admin.jobs.col.refunded", "admin.jobs.counts.refunded", "admin.jobs.n_refunded", func(c store.RunCounts) int { return c.Refunded }, false}
	countReturned  = runCounter{"returned", "admin.jobs.col.returned", "admin.jobs.counts.returned", "admin.jobs.n_returned", func(c store.RunCounts) int { return c.Returned }, false}
	countArchived  = runCounter{"archived", "admin.jobs.col.archived", "admin.jobs.counts.archived", "admin.jobs.n_archived", func(c store.RunCounts) int { return c.Archived }, false}
	// countFailedAll is the runs table's Failed: those the next run tries
	// again and those beyond catch-up, which staff handle.
	countFailedAll = runCounter{"failed", "admin.jobs.col.failed", "admin.jobs.counts.failed", "admin.jobs.n_failed", func(c store.RunCounts) int { return c.Failed + c.Attention }, false}
)

// runCounters are the counts a job keeps, in the order the run page and
// its progress line show them.
func runCounters(job string) []runCounter {
	switch job {
	case "reminders":
		return []runCounter{countReminded, countSkipped, countFailed}
	case "card-refunds":
		return []runCounter{countRefunded, countFailed, countMailed}
	case "archive":
		return []runCounter{countArchived, countFailed}
	case "ticket-stock":
		return []runCounter{countReturned, countSkipped, countFailed}
	}
	return []runCounter{countCharged, countDeclined, countSkipped, countFailed, countAttention, countCancelled, countMailed}
}

// runColumns are the runs table's counts after Due: fewer than the run's
// page, so the table fits the console.
func runColumns(job string) []runCounter {
	if job == "payments" {
		return []runCounter{countCharged, countDeclined, countSkipped, countFailedAll, countMailed}
	}
	return runCounters(job)
}

// runDueNoun heads the run page's table of counts: what the job works
// through.
func runDueNoun(job string) string {
	switch job {
	case "card-refunds":
		return "admin.jobs.counts_of.refunds"
	case "archive":
		return "admin.jobs.counts_of.months"
	case "ticket-stock":
		return "admin.jobs.counts_of.tickets"
	}
	return "admin.subs.title"
}
