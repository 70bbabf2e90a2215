package handlers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// POST handlers read their fields with page.Field, from the body: Fiber's
// FormValue prefers the query string, which a link can set.
func TestNoHandlerReadsFormValue(t *testing.T) {
	for _, dir := range []string{".", "../web"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(src), ".FormValue(") {
				t.Errorf("%s reads c.FormValue, which takes the query string over the body: use page.Field", f)
			}
		}
	}
}
