package archive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"shop/store"
)

// Shelf keeps the archive's files by name ("archive/2026-05/receipts.csv").
// A file is written whole or not at all.
type Shelf interface {
	Put(ctx context.Context, name, contentType string, data []byte) error
	// Open reads a file and tells its size; an error wrapping
	// store.ErrNotFound if there is none.
	Open(ctx context.Context, name string) (io.ReadCloser, int64, error)
}

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

// Disk is a shelf in a directory (<data dir>, so the files are under
// <data dir>/archive): enough for one replica.
type Disk struct {
	Dir string
}

func (d Disk) path(name string) (string, error) {
	if !filepath.IsLocal(name) {
		return "", fmt.Errorf("archive file %q: %w", name, store.ErrNotFound)
	}
	return filepath.Join(d.Dir, filepath.FromSlash(name)), nil
}

// Put writes a temporary file beside the final one and renames it: a
// reader never sees half a file, nor does a crash leave one.
func (d Disk) Put(_ context.Context, name, _ string, data []byte) error {
	path, err := d.path(name)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return fmt.Errorf("archive shelf: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".upload-*")
	if err != nil {
		return fmt.Errorf("archive shelf: %w", err)
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		if rerr := os.Remove(f.Name()); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			werr = errors.Join(werr, rerr)
		}
		return fmt.Errorf("archive shelf: put %s: %w", name, werr)
	}
	return nil
}

// Open opens a file of the directory.
func (d Disk) Open(_ context.Context, name string) (io.ReadCloser, int64, error) {
	path, err := d.path(name)
	if err != nil {
		return nil, 0, err
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, fmt.Errorf("archive file %s: %w", name, store.ErrNotFound)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("archive shelf: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		return nil, 0, errors.Join(fmt.Errorf("archive shelf: %w", err), f.Close())
	}
	return f, info.Size(), nil
}

// Bucket is a shelf in an S3 bucket: every replica sees every month.
type Bucket struct {
	Client *s3.Client
	Name   string
}

// Put is one PutObject; S3 stores an object whole or not at all.
func (b Bucket) Put(ctx context.Context, name, contentType string, data []byte) error {
	_, err := b.Client.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(b.Name), Key: aws.String(name), Body: bytes.NewReader(data),
		ContentType: aws.String(contentType), ContentLength: aws.Int64(int64(len(data))),
	})
	if err != nil {
		return fmt.Errorf("archive bucket: put %s: %w", name, err)
	}
	return nil
}

// Open is one GetObject.
func (b Bucket) Open(ctx context.Context, name string) (io.ReadCloser, int64, error) {
	out, err := b.Client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(b.Name), Key: aws.String(name)})
	var noKey *types.NoSuchKey
	var apiErr smithy.APIError
	switch {
	case errors.As(err, &noKey), errors.As(err, &apiErr) && apiErr.ErrorCode() == "NotFound":
		return nil, 0, fmt.Errorf("archive object %s: %w", name, store.ErrNotFound)
	case err != nil:
		return nil, 0, fmt.Errorf("archive bucket: get %s: %w", name, err)
	}
	return out.Body, aws.ToInt64(out.ContentLength), nil
}

// NewBucket is the archive in an S3 bucket, with the AWS SDK's default
// credential chain and region (AWS_REGION); AWS_ENDPOINT_URL_S3 points it
// at an S3-compatible store instead.
func NewBucket(ctx context.Context, name string) (Bucket, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return Bucket{}, fmt.Errorf("archive bucket: load AWS config: %w", err)
	}
	return Bucket{Client: s3.NewFromConfig(cfg), Name: name}, nil
}
