package jobs

import (
	"context"
	"fmt"

	"shop/store"
)

// JobArchive exports each closed month of the books not yet archived.
const JobArchive = "archive"

// Archive is the archive of the books (store/archive's Archiver).
type Archive interface {
	// Due are the closed months not archived yet, oldest first.
	Due(ctx context.Context) ([]store.Month, error)
	// Archive exports a month, keeps its files and records it.
	Archive(ctx context.Context, m store.Month, runID string) (store.ArchivedMonth, error)
}

// archive archives every due month, oldest first. It stops at the first
// month it cannot archive: the run fails, its lease is given back and the
// next run (the next day, or staff's "Run now") starts there again.
func (r *Runner) archive(ctx context.Context, rec *recorder) error {
	if r.cfg.Archive == nil {
		return fmt.Errorf("the archive of the books is not set up on this replica")
	}
	due, err := r.cfg.Archive.Due(ctx)
	if err != nil {
		return fmt.Errorf("months due: %w", err)
	}
	rec.addDue(len(due))
	id := rec.snapshot().ID
	for _, m := range due {
		if err := ctx.Err(); err != nil {
			return err
		}
		// A stop comes between two months, not inside one.
		if _, err := r.cfg.Archive.Archive(context.WithoutCancel(ctx), m, id); err != nil {
			rec.count(ctx, func(c *store.RunCounts) { c.Failed++ })
			return fmt.Errorf("archive %s: %w", m, err)
		}
		rec.count(ctx, func(c *store.RunCounts) { c.Archived++ })
	}
	return nil
}
