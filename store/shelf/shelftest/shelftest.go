// Package shelftest is an S3 stand-in for the tests of the shelves that keep
// files in a bucket (store/shelf's Bucket, under the archive and the
// photos). It speaks the two calls a shelf makes, PutObject and GetObject,
// in S3's path style (/bucket/key), answers signed requests only, and gives
// S3's error for a missing key.
package shelftest

import (
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// S3 holds the objects put, by path (/bucket/key), with their Content-Type.
type S3 struct {
	mu      sync.Mutex
	objects map[string][]byte
	types   map[string]string
}

// Start serves an empty S3 until t ends, and returns it with a client of it.
func Start(t testing.TB) (*S3, *s3.Client) {
	t.Helper()
	f := &S3{objects: map[string][]byte{}, types: map[string]string{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	client := s3.New(s3.Options{
		Region: "eu-north-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials:                credentials.NewStaticCredentialsProvider("test", "test", ""),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
	return f, client
}

// Count is how many objects it holds.
func (f *S3) Count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.objects)
}

// Types is each object's Content-Type, by path.
func (f *S3) Types() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.types)
}

func (f *S3) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
