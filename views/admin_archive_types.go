package views

import (
	"context"
	"strings"
	"time"

	"shop/store"
)

// AdminArchivePage is the archive of the books: the months archived, the
// months waiting, an alarm for any overdue, the job's runs and "Run now".
type AdminArchivePage struct {
	Months   []store.ArchivedMonth
	Sections []AdminArchiveSection
	Due      []store.Month // closed, not archived yet
	Overdue  []AdminArchiveOverdue
	Runs     []store.JobRun
	Schedule string       // cron expression; "" when the scheduler is off here
	NextRun  time.Time    // on this replica
	Where    ArchivePlace // where the files are kept
	CSRF     string
	Error    string // why "Run now" was refused
	// SchedulerOff: this replica runs no jobs (SHOP_JOBS=false).
	SchedulerOff bool
}

// AdminArchiveSection is a section of the books as a column.
type AdminArchiveSection struct {
	Name  string
	Title string
}

// AdminArchiveOverdue is a month not archived a week after its end.
type AdminArchiveOverdue struct {
	Month         store.Month
	FirstExpiries time.Time // when its first receipt leaves the table
}

func archiveFormatLabel(format string) string {
	if format == "json" {
		return "JSON"
	}
	return "CSV"
}

func archiveMonthWords(ms []store.Month) string {
	out := ""
	for i, m := range ms {
		if i > 0 {
			out += ", "
		}
		out += m.String()
	}
	return out
}

// archiveSectionWords lists the sections in a sentence: "invoices,
// receipts and refunds".
func archiveSectionWords(ctx context.Context, ss []AdminArchiveSection) string {
	out := ""
	for i, s := range ss {
		switch {
		case i == 0:
		case i == len(ss)-1:
			out += t(ctx, "admin.archive.and")
		default:
			out += ", "
		}
		out += strings.ToLower(archiveSectionTitle(ctx, s))
	}
	return out
}

var archiveSectionIDs = map[string]string{
	"invoices": "admin.archive.section.invoices",
	"receipts": "admin.archive.section.receipts",
	"refunds":  "admin.archive.section.refunds",
}

// archiveSectionTitle is a section's title in the page's language.
func archiveSectionTitle(ctx context.Context, s AdminArchiveSection) string {
	if id, ok := archiveSectionIDs[s.Name]; ok {
		return t(ctx, id)
	}
	return s.Title
}

// ArchivePlace is where the archive's files are kept: an S3 bucket, or a
// directory on this machine.
type ArchivePlace struct {
	Bucket string
	Dir    string
}

// Words says the place in the page's language, for the archive page's
// lead sentence.
func (a ArchivePlace) Words(ctx context.Context) string {
	if a.Bucket != "" {
		return t(ctx, "admin.archive.where_bucket", "Bucket", a.Bucket)
	}
	return t(ctx, "admin.archive.where_dir", "Dir", a.Dir)
}
