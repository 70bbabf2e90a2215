package photos

import (
	"context"

	"shop/store/shelf"
)

// Shelf keeps the photos' files by name ("photos/<key>/640.jpg"). A file
// is written whole or not at all; names are content-addressed, so a file
// once written never changes. The photos are kept on a shelf.Disk or a
// shelf.Bucket, each with What "photo" to name its files in errors; the
// archive of the books uses the same two.
type Shelf = shelf.Shelf

// What names the photos' files in a shelf's errors (shelf.Disk.What,
// shelf.Bucket.What).
const What = "photo"

// PutAll puts a photo's copies on the shelf, the original first.
func PutAll(ctx context.Context, on Shelf, copies []Copy) error {
	for _, c := range copies {
		if err := on.Put(ctx, c.Name, c.ContentType, c.Data); err != nil {
			return err
		}
	}
	return nil
}
