package page

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A session's values may be the session cache's map, which other requests
// read at the same time: changed in place anywhere but through the visit
// (which copies it first), a change would show in another request's page
// and race with it. The race detector would catch it only where a test
// serves two requests of one session from the cache at once, so the code
// is read for it.
func TestSessionValuesChangeOnlyThroughTheVisit(t *testing.T) {
	inPlace := regexp.MustCompile(`\.Values\[[^\]]*\]\s*(=[^=]|\+\+|--|[-+*/]=)|(delete|clear)\([^)]*\.Values\b|maps\.(Copy|DeleteFunc)\([^)]*\.Values\b`)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if name := d.Name(); name == "node_modules" || strings.HasPrefix(name, ".") && rel != "." {
				return filepath.SkipDir
			}
			// The plain page (the benchmark's yardstick) has sessions of
			// its own, not the shop's.
			if rel == filepath.Join("web", "plainpage") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || rel == filepath.Join("handlers", "page", "values.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		found++
		for i, line := range strings.Split(string(src), "\n") {
			if inPlace.MatchString(line) {
				t.Errorf("%s:%d changes a session's values in place: use the visit's Set or Delete\n\t%s", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 100 {
		t.Fatalf("read %d Go files under %s: not the shop's code", found, root)
	}
}
