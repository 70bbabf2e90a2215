package archive_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"shop/store"
	"shop/store/archive"
	"shop/store/shelf"
)

// fakeS3 speaks the two calls the shelf makes, PutObject and GetObject, in
// S3's path style (/bucket/key), with S3's error for a missing key (as the
// photo shelf's tests do).
type fakeS3 struct {
	mu      sync.Mutex
	objects map[string][]byte
	types   map[string]string
}

func (f *fakeS3) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
		http.Error(w, "unsigned", http.StatusForbidden)
		return
	}
	switch r.Method {
	case http.MethodPut:
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f.objects[r.URL.Path], f.types[r.URL.Path] = body, r.Header.Get("Content-Type")
		w.Header().Set("ETag", `"x"`)
	case http.MethodGet:
		body, ok := f.objects[r.URL.Path]
		if !ok {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>`)
			return
		}
		w.Header().Set("Content-Type", f.types[r.URL.Path])
		_, _ = w.Write(body)
	default:
		http.Error(w, "not here", http.StatusMethodNotAllowed)
	}
}

// With SHOP_ARCHIVE_BUCKET the months go to S3: each file an object under
// archive/<month>/, read back byte for byte as its checksum says.
func TestArchiveToBucket(t *testing.T) {
	fake := &fakeS3{objects: map[string][]byte{}, types: map[string]string{}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	client := s3.New(s3.Options{
		Region: "eu-north-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials:                credentials.NewStaticCredentialsProvider("test", "test", ""),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
	b := newBooks(t, shopTime("2026-03-05 12:00"))
	b.arch.Shelf = shelf.Bucket{Client: client, Name: "shop-books", What: archive.What}
	b.receipt(t, shopTime("2026-02-03 09:00"))
	rec, err := b.arch.Archive(ctxT(t), month(t, "2026-02"), "run1")
	if err != nil {
		t.Fatal(err)
	}
	if len(fake.objects) != 6 || fake.types["/shop-books/archive/2026-02/receipts.csv"] != "text/csv; charset=utf-8" ||
		fake.types["/shop-books/archive/2026-02/receipts.json"] != "application/json" {
		t.Fatalf("objects %v, types %v", len(fake.objects), fake.types)
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
