package archive

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"shop/store"
	"shop/store/shelf"
)

// Shelf keeps the archive's files by name ("archive/2026-05/receipts.csv").
// A file is written whole or not at all.
type Shelf = shelf.Shelf

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

// Disk is a shelf in a directory: enough for one replica.
type Disk struct {
	Dir string
}

func (d Disk) shelf() shelf.Disk { return shelf.Disk{Dir: d.Dir, What: "archive"} }

// Put writes the file whole (shelf.Disk).
func (d Disk) Put(ctx context.Context, name, contentType string, data []byte) error {
	return d.shelf().Put(ctx, name, contentType, data)
}

// Open reads a file; an error wrapping store.ErrNotFound if there is none.
func (d Disk) Open(ctx context.Context, name string) (io.ReadCloser, int64, error) {
	return d.shelf().Open(ctx, name)
}

// Bucket is a shelf in an S3 bucket: every replica sees every month.
type Bucket struct {
	Client *s3.Client
	Name   string
}

func (b Bucket) shelf() shelf.Bucket {
	return shelf.Bucket{Client: b.Client, Name: b.Name, What: "archive"}
}

// Put is one PutObject.
func (b Bucket) Put(ctx context.Context, name, contentType string, data []byte) error {
	return b.shelf().Put(ctx, name, contentType, data)
}

// Open is one GetObject.
func (b Bucket) Open(ctx context.Context, name string) (io.ReadCloser, int64, error) {
	return b.shelf().Open(ctx, name)
}

// NewBucket is the shelf in an S3 bucket, with the AWS SDK's default
// credential chain and region (AWS_REGION); AWS_ENDPOINT_URL_S3 points it
// at an S3-compatible store instead.
func NewBucket(ctx context.Context, name string) (Bucket, error) {
	b, err := shelf.NewBucket(ctx, name, "archive")
	return Bucket{Client: b.Client, Name: b.Name}, err
}
