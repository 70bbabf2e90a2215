package web_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"shop/jobs"
	"shop/store"
	"shop/store/archive"
	"shop/store/demo"
	"shop/store/shelf"
	"shop/store/storetest"
	"shop/views"
	"shop/web"
)

// withArchive gives the app the archive of the books on a disk shelf in
// dir, and a scheduler (never started) whose runner archives into it.
func withArchive(t *testing.T, dir string, sched **jobs.Scheduler) appOption {
	return func(_ storetest.Env, cfg *web.Config) {
		t.Helper()
		books := &archive.Archiver{Store: cfg.Store, Shelf: shelf.Disk{Dir: dir, What: archive.What}, Sections: archive.Sections(cfg.Store)}
		runner := jobs.NewRunner(cfg.Store, nil, jobs.Config{Replica: "archive-replica", Archive: books})
		s, err := jobs.NewScheduler(runner, cfg.Store, time.UTC, jobs.Schedules{}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if _, running := s.Running(jobs.JobArchive); !running {
					break
				}
			}
			time.Sleep(200 * time.Millisecond) // the lease is marked after the run
		})
		cfg.Jobs, cfg.Archive, cfg.ArchiveWhere = s, books, views.ArchivePlace{Dir: dir}
		*sched = s
	}
}

// Staff run the archive from its page, see every closed month with its
// counts, and download a month's files, which are the bytes the record's
// checksum names; what is not archived, or not a file, is a 404; a file
// changed on the shelf is refused.
func TestAdminArchiveRunAndDownload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var sched *jobs.Scheduler
	s := newShop(t, withArchive(t, dir, &sched))
	ctx := context.Background()
	closed := archive.ClosedMonths(time.Now(), time.UTC)

	staff := s.staff(t)
	p := staff.get("/admin/archive")
	wantStatus(t, "archive page", p, http.StatusOK)
	if p.testid("archive-empty").Length() != 1 || p.testid("archive-runs-empty").Length() != 1 {
		t.Fatal("a fresh shop's archive is not empty")
	}
	wantText(t, "due", p.testid("archive-due"), closed[len(closed)-1].String())
	wantText(t, "schedule", p.testid("archive-schedule"), "0 5 * * *")
	if p.doc.Find(`nav [data-testid="nav-archive"]`).Length() == 0 && p.testid("nav-archive").Length() == 0 {
		t.Fatal("the console's sidebar has no link to the archive")
	}

	r := staff.post("/admin/archive/run", url.Values{})
	wantStatus(t, "run now", r, http.StatusSeeOther)
	var done page
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		done = staff.get("/admin/archive")
		if done.testid("archive-run").Length() > 0 && done.testid("archive-run").AttrOr("data-outcome", "") != store.RunRunning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the archive run did not end:\n%s", trim(done.body))
		}
	}
	wantStatus(t, "archive page after the run", done, http.StatusOK)
	if got := done.testid("archive-run").First().AttrOr("data-outcome", ""); got != store.RunCompleted {
		t.Fatalf("the run %s: %s", got, squash(done.testid("archive-runs").Text()))
	}
	if n := done.testid("archive-month").Length(); n != len(closed) {
		t.Fatalf("%d months archived, want the %d closed ones", n, len(closed))
	}
	wantText(t, "nothing due", done.testid("archive-due"), "Every closed month is archived")

	// The demo's last closed month, as the store has it.
	last := closed[len(closed)-1]
	receipts, err := s.env.Store.ReceiptsOfMonth(ctx, last)
	if err != nil {
		t.Fatal(err)
	}
	row := done.doc.Find(`[data-testid="archive-month"][data-month="` + last.String() + `"]`)
	wantText(t, "receipts counted", row.Find(`[data-testid="archive-count-receipts"]`), itoa(len(receipts)))
	if done.doc.Find(`[data-testid="archive-download-refunds-csv"]`).Length() != len(closed) {
		t.Fatal("a month without its refunds' file")
	}
	href, ok := row.Find(`[data-testid="archive-download-receipts-json"]`).Attr("href")
	if !ok || href != "/admin/archive/"+last.String()+"/receipts.json" {
		t.Fatalf("download link %q", href)
	}
	rec, err := s.env.Store.ArchivedMonth(ctx, last)
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range archive.Formats {
		f, _ := rec.File("receipts", format)
		got := staff.get("/admin/archive/" + last.String() + "/receipts." + format)
		wantStatus(t, "download "+format, got, http.StatusOK)
		if sum := sha256.Sum256([]byte(got.body)); hex.EncodeToString(sum[:]) != f.SHA256 {
			t.Fatalf("the %s download is not the archived file", format)
		}
		if cd := got.header.Get("Content-Disposition"); !strings.Contains(cd, "attachment") || !strings.Contains(cd, last.String()) {
			t.Fatalf("Content-Disposition %q", cd)
		}
		if ct := got.header.Get("Content-Type"); ct != archive.ContentType(format) {
			t.Fatalf("Content-Type %q for %s", ct, format)
		}
	}
	var doc struct {
		Count   int                    `json:"count"`
		Entries []archive.ReceiptEntry `json:"entries"`
	}
	if err := json.Unmarshal([]byte(staff.get(href).body), &doc); err != nil || doc.Count != len(receipts) || len(doc.Entries) != len(receipts) {
		t.Fatalf("the JSON download: %+v, %v; want %d receipts", doc, err, len(receipts))
	}

	for _, bad := range []string{
		"/admin/archive/2026-13/receipts.csv", "/admin/archive/nonsense/receipts.csv",
		"/admin/archive/" + closed[0].AddMonths(-1).String() + "/receipts.csv", // not archived
		"/admin/archive/" + last.String() + "/payouts.csv", "/admin/archive/" + last.String() + "/receipts.xml",
		"/admin/archive/" + last.String() + "/receipts",
	} {
		wantStatus(t, bad, staff.get(bad), http.StatusNotFound)
	}

	// Today's run is done: a second "Run now" says so.
	again := staff.post("/admin/archive/run", url.Values{})
	wantStatus(t, "run now again", again, http.StatusConflict)
	wantText(t, "run again", again.testid("form-error"), "already ran")

	// A file changed on the shelf is not handed out as the archive.
	name := filepath.Join(dir, filepath.FromSlash(archive.FileName(last, "invoices", archive.FormatCSV)))
	if err := os.WriteFile(name, []byte("invoice\nforged\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "a changed file", staff.get("/admin/archive/"+last.String()+"/invoices.csv"), http.StatusInternalServerError)

	// Customers do not see the books.
	customer := s.browser(t)
	customer.signIn(demo.CustomerEmail, demo.CustomerPassword)
	if got := customer.get("/admin/archive"); got.status == http.StatusOK {
		t.Fatal("a customer sees the archive")
	}
}
