package archive_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"

	"shop/store"
	"shop/store/archive"
	"shop/store/shelf"
	"shop/store/shelf/shelftest"
)

// With SHOP_ARCHIVE_BUCKET the months go to S3: each file an object under
// archive/<month>/, read back byte for byte as its checksum says.
func TestArchiveToBucket(t *testing.T) {
	fake, client := shelftest.Start(t)
	b := newBooks(t, shopTime("2026-03-05 12:00"))
	b.arch.Shelf = shelf.Bucket{Client: client, Name: "shop-books", What: archive.What}
	b.receipt(t, shopTime("2026-02-03 09:00"))
	rec, err := b.arch.Archive(ctxT(t), month(t, "2026-02"), "run1")
	if err != nil {
		t.Fatal(err)
	}
	if types := fake.Types(); fake.Count() != 6 || types["/shop-books/archive/2026-02/receipts.csv"] != "text/csv; charset=utf-8" ||
		types["/shop-books/archive/2026-02/receipts.json"] != "application/json" {
		t.Fatalf("objects %v, types %v", fake.Count(), types)
	}
	for _, f := range rec.Files {
		data := readShelf(t, b.arch.Shelf, f.Name)
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != f.SHA256 {
			t.Fatalf("%s read back does not match its checksum", f.Name)
		}
	}
	if _, _, err := b.arch.Shelf.Open(context.Background(), "archive/2026-01/receipts.csv"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a month not archived: %v, want ErrNotFound", err)
	}
	if _, _, err := (shelf.Disk{Dir: t.TempDir(), What: archive.What}).Open(context.Background(), "../etc/passwd"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a name outside the disk shelf: %v, want ErrNotFound", err)
	}
}
