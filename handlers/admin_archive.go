package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/sync/errgroup"

	"shop/handlers/page"
	"shop/jobs"
	"shop/store"
	"shop/store/archive"
	"shop/views"
	"shop/web/paths"
)

// AdminArchiveStore is what the archive pages read.
type AdminArchiveStore interface {
	ArchivedMonths(ctx context.Context) ([]store.ArchivedMonth, error)
	ArchivedMonth(ctx context.Context, m store.Month) (store.ArchivedMonth, error)
	Runs(ctx context.Context, job string, limit int, cursor string) (store.Page[store.JobRun], error)
	Today() time.Time
}

// AdminArchive serves /admin/archive: the archived months of the books,
// their files, and the archive job.
type AdminArchive struct {
	Store   AdminArchiveStore
	Archive *archive.Archiver
	// Jobs is this replica's scheduler; nil when it runs no jobs.
	Jobs JobScheduler
	// Where says where the files are kept, for staff.
	Where views.ArchivePlace
	Log   *slog.Logger
}

const archiveRunsShown = 5

func (h *AdminArchive) scheduler() JobScheduler {
	return (&AdminJobs{Jobs: h.Jobs}).scheduler()
}

// Show is the archive page.
func (h *AdminArchive) Show(c *fiber.Ctx) error { return h.render(c, fiber.StatusOK, "") }

func (h *AdminArchive) render(c *fiber.Ctx, status int, runError string) error {
	sched := h.scheduler()
	p := views.AdminArchivePage{CSRF: page.CSRFToken(c), SchedulerOff: sched == nil, Where: h.Where, Error: runError}
	for _, s := range h.Archive.Sections {
		p.Sections = append(p.Sections, views.AdminArchiveSection{Name: s.Name, Title: s.Title})
	}
	if sched != nil {
		p.Schedule, p.NextRun = sched.Schedule(jobs.JobArchive), sched.NextRun(jobs.JobArchive)
	}
	g, ctx := errgroup.WithContext(c.UserContext())
	g.Go(func() (err error) {
		p.Months, err = h.Store.ArchivedMonths(ctx)
		return err
	})
	g.Go(func() error {
		overdue, err := h.Archive.Overdue(ctx)
		for _, o := range overdue {
			p.Overdue = append(p.Overdue, views.AdminArchiveOverdue{Month: o.Month, FirstExpiries: o.FirstExpiries})
		}
		return err
	})
	g.Go(func() (err error) {
		p.Due, err = h.Archive.Due(ctx)
		return err
	})
	g.Go(func() error {
		runs, err := h.Store.Runs(ctx, jobs.JobArchive, archiveRunsShown, "")
		p.Runs = runs.Items
		return err
	})
	if err := g.Wait(); err != nil {
		return err
	}
	return page.Render(c, status, page.View{Title: page.T(c, "console.nav.archive"), Page: page.Full(views.AdminArchiveView, p)})
}

// RunNow starts the archive job on this replica under today's lease.
func (h *AdminArchive) RunNow(c *fiber.Ctx) error {
	sched := h.scheduler()
	if sched == nil {
		return h.render(c, fiber.StatusServiceUnavailable, schedulerOffMessage(c))
	}
	err := sched.RunNow(jobs.JobArchive, h.Store.Today(), page.Viewer(c).Name)
	switch {
	case errors.Is(err, jobs.ErrRunning), errors.Is(err, store.ErrLeaseHeld):
		return h.render(c, fiber.StatusConflict, page.T(c, "admin.archive.err.running"))
	case errors.Is(err, store.ErrLeaseDone):
		return h.render(c, fiber.StatusConflict, page.T(c, "admin.archive.err.done"))
	case err != nil:
		return err
	}
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.archive.started"))
	return page.Redirect(c, paths.AdminArchive)
}

// Download answers an archived month's file, /admin/archive/2026-05/receipts.csv,
// after checking it against the checksum recorded when it was made.
func (h *AdminArchive) Download(c *fiber.Ctx) error {
	month, err := store.ParseMonth(c.Params("month"))
	if err != nil {
		return page.NotFound("error.not_found.month")
	}
	section, format, ok := strings.Cut(c.Params("file"), ".")
	if !ok {
		return page.NotFound("error.not_found.file")
	}
	rec, err := h.Store.ArchivedMonth(c.UserContext(), month)
	if err != nil {
		return notFoundAs(err, "error.not_found.month_archive")
	}
	f, ok := rec.File(section, format)
	if !ok {
		return page.NotFound("error.not_found.file")
	}
	r, _, err := h.Archive.Shelf.Open(c.UserContext(), f.Name)
	if err != nil {
		return err // missing from the shelf is no 404: the record says it was there
	}
	data, err := io.ReadAll(r)
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != f.SHA256 {
		h.Log.Error("an archived file does not match its checksum", "file", f.Name, "want", f.SHA256)
		return errors.New("the archived file " + f.Name + " does not match the checksum recorded when it was made")
	}
	c.Set(fiber.HeaderContentType, archive.ContentType(format))
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="fikafield-`+section+"-"+month.String()+"."+format+`"`)
	return c.Status(fiber.StatusOK).Send(data)
}
