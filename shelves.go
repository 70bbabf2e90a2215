package main

import (
	"context"
	"log/slog"
	"path/filepath"

	"shop/store"
	"shop/store/archive"
	"shop/store/photos"
	"shop/store/shelf"
	"shop/views"
)

// photoShelf is where product photos are kept: the S3 bucket of
// SHOP_MEDIA_BUCKET, or <data dir>/media (one replica only: the others
// would not see its photos).
func photoShelf(ctx context.Context, cfg config, log *slog.Logger) (photos.Shelf, error) {
	if cfg.mediaBucket != "" {
		log.Info("product photos are kept in S3", "bucket", cfg.mediaBucket)
		return shelf.NewBucket(ctx, cfg.mediaBucket, photos.What)
	}
	dir := filepath.Join(cfg.dataDir, "media")
	log.Info("product photos are kept on disk (set SHOP_MEDIA_BUCKET for more than one replica)", "dir", dir)
	return shelf.Disk{Dir: dir, What: photos.What}, nil
}

// booksArchive is the archive of the books: the S3 bucket of
// SHOP_ARCHIVE_BUCKET, or <data dir>/archive (one replica only).
func booksArchive(ctx context.Context, cfg config, st *store.Store, log *slog.Logger) (*archive.Archiver, error) {
	a := &archive.Archiver{Store: st, Sections: archive.Sections(st)}
	if cfg.archiveBucket != "" {
		b, err := shelf.NewBucket(ctx, cfg.archiveBucket, archive.What)
		if err != nil {
			return nil, err
		}
		log.Debug("the archive of the books is kept in S3", "bucket", cfg.archiveBucket)
		a.Shelf = b
		return a, nil
	}
	a.Shelf = shelf.Disk{Dir: cfg.dataDir, What: archive.What}
	return a, nil
}

// archiveWhere says where the archive's files are kept, for staff.
func archiveWhere(cfg config) views.ArchivePlace {
	if cfg.archiveBucket != "" {
		return views.ArchivePlace{Bucket: cfg.archiveBucket}
	}
	return views.ArchivePlace{Dir: filepath.Join(cfg.dataDir, "archive")}
}
