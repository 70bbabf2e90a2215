// Package shelf keeps files by name, whole or not at all: in a directory
// for one replica, or in an S3 bucket for many. Product photos and the
// archive of the books are both kept on one.
package shelf

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

// Shelf keeps files by name. A file is written whole or not at all.
type Shelf interface {
	Put(ctx context.Context, name, contentType string, data []byte) error
	// Open reads a file and tells its size; an error wrapping
	// store.ErrNotFound if there is none.
	Open(ctx context.Context, name string) (io.ReadCloser, int64, error)
}

// Disk is a shelf in a directory: enough for one replica.
type Disk struct {
	Dir string
	// What names its files in errors ("photo", "archive").
	What string
}

func (d Disk) path(name string) (string, error) {
	if !filepath.IsLocal(name) {
		return "", fmt.Errorf("%s file %q: %w", d.What, name, store.ErrNotFound)
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
		return fmt.Errorf("%s shelf: %w", d.What, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".upload-*")
	if err != nil {
		return fmt.Errorf("%s shelf: %w", d.What, err)
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
		return fmt.Errorf("%s shelf: put %s: %w", d.What, name, werr)
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
		return nil, 0, fmt.Errorf("%s file %s: %w", d.What, name, store.ErrNotFound)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("%s shelf: %w", d.What, err)
	}
	info, err := f.Stat()
	if err != nil {
		return nil, 0, errors.Join(fmt.Errorf("%s shelf: %w", d.What, err), f.Close())
	}
	return f, info.Size(), nil
}

// Bucket is a shelf in an S3 bucket: every replica sees every file.
type Bucket struct {
	Client *s3.Client
	Name   string
	What   string // names its objects in errors
}

// Put is one PutObject; S3 stores an object whole or not at all.
func (b Bucket) Put(ctx context.Context, name, contentType string, data []byte) error {
	_, err := b.Client.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(b.Name), Key: aws.String(name), Body: bytes.NewReader(data),
		ContentType: aws.String(contentType), ContentLength: aws.Int64(int64(len(data))),
	})
	if err != nil {
		return fmt.Errorf("%s bucket: put %s: %w", b.What, name, err)
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
		return nil, 0, fmt.Errorf("%s object %s: %w", b.What, name, store.ErrNotFound)
	case err != nil:
		return nil, 0, fmt.Errorf("%s bucket: get %s: %w", b.What, name, err)
	}
	return out.Body, aws.ToInt64(out.ContentLength), nil
}

// NewBucket is the shelf in an S3 bucket, with the AWS SDK's default
// credential chain and region (AWS_REGION); AWS_ENDPOINT_URL_S3 points it
// at an S3-compatible store instead.
func NewBucket(ctx context.Context, name, what string) (Bucket, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return Bucket{}, fmt.Errorf("%s bucket: load AWS config: %w", what, err)
	}
	return Bucket{Client: s3.NewFromConfig(cfg), Name: name, What: what}, nil
}
