package archive

import (
	"context"
	"errors"
	"fmt"
	"io"

	"shop/store"
	"shop/store/shelf"
)

// Shelf keeps the archive's files by name ("archive/2026-05/receipts.csv").
// A file is written whole or not at all. The archive is kept on a
// shelf.Disk (its Dir the data directory) or a shelf.Bucket, each with
// What "archive" to name its files in errors; the photos use the same two.
type Shelf = shelf.Shelf

// What names the archive's files in a shelf's errors (shelf.Disk.What,
// shelf.Bucket.What).
const What = "archive"

// Nowhere is the shelf of a replica that keeps no archive: every file is
// missing, and nothing can be put.
type Nowhere struct{}

// Put refuses.
func (Nowhere) Put(context.Context, string, string, []byte) error {
	return errors.New("the archive of the books is not set up on this replica")
}

// Open finds nothing.
func (Nowhere) Open(_ context.Context, name string) (io.ReadCloser, int64, error) {
	return nil, 0, fmt.Errorf("archive file %s (no archive on this replica): %w", name, store.ErrNotFound)
}
