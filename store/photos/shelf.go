package photos

import (
	"context"
	"io"
	"shop/store/shelf"

	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Shelf keeps the photos' files by name ("photos/<key>/640.jpg"). A file
// is written whole or not at all; names are content-addressed, so a file
// once written never changes.
type Shelf = shelf.Shelf

// PutAll puts a photo's copies on the shelf, the original first.
func PutAll(ctx context.Context, shelf Shelf, copies []Copy) error {
	for _, c := range copies {
		if err := shelf.Put(ctx, c.Name, c.ContentType, c.Data); err != nil {
			return err
		}
	}
	return nil
}

// Disk is a shelf in a directory: enough for one replica.
type Disk struct {
	Dir string
}

func (d Disk) shelf() shelf.Disk { return shelf.Disk{Dir: d.Dir, What: "photo"} }

// Put writes the file whole (shelf.Disk).
func (d Disk) Put(ctx context.Context, name, contentType string, data []byte) error {
	return d.shelf().Put(ctx, name, contentType, data)
}

// Open reads a file; an error wrapping store.ErrNotFound if there is none.
func (d Disk) Open(ctx context.Context, name string) (io.ReadCloser, int64, error) {
	return d.shelf().Open(ctx, name)
}

// Bucket is a shelf in an S3 bucket: every replica sees every photo.
type Bucket struct {
	Client *s3.Client
	Name   string
}

func (b Bucket) shelf() shelf.Bucket {
	return shelf.Bucket{Client: b.Client, Name: b.Name, What: "photo"}
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
	b, err := shelf.NewBucket(ctx, name, "photo")
	return Bucket{Client: b.Client, Name: b.Name}, err
}
