package web_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Every full page the HTTP tests get back is kept (a few per route), and
// once the package's tests have run html-validate checks them all with the
// repository's .htmlvalidate.mjs: a page that is not valid HTML, or that
// a screen reader would stumble on, fails the suite like any other test.
var renderedPages = &pageKeeper{paths: map[string]int{}, prefixes: map[string]int{}}

const (
	pagesAPath   = 2  // variants of one path (a form, the form with its errors)
	pagesAPrefix = 12 // pages under one route prefix (/products/…, /admin/orders/…)
)

type pageKeeper struct {
	mu       sync.Mutex
	dir      string
	err      error
	paths    map[string]int
	prefixes map[string]int
	n        int
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// keep saves body when it is a whole HTML document (fragments for htmx to
// swap are checked through the pages that hold them).
func (k *pageKeeper) keep(req *http.Request, resp *http.Response, body []byte) {
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		return
	}
	head := bytes.ToLower(bytes.TrimSpace(body[:min(len(body), 64)]))
	if !bytes.HasPrefix(head, []byte("<!doctype html")) {
		return
	}
	path := req.URL.Path
	segs := strings.SplitN(strings.Trim(path, "/"), "/", 3)
	prefix := req.Method + " /" + strings.Join(segs[:min(len(segs), 2)], "/")
	exact := req.Method + " " + path + " " + strconv.Itoa(resp.StatusCode)

	k.mu.Lock()
	defer k.mu.Unlock()
	if k.err != nil || k.paths[exact] >= pagesAPath || k.prefixes[prefix] >= pagesAPrefix {
		return
	}
	if k.dir == "" {
		k.dir, k.err = os.MkdirTemp("", "shop-pages-")
		if k.err != nil {
			return
		}
	}
	k.paths[exact]++
	k.prefixes[prefix]++
	k.n++
	// The file's name says which request it answered, so html-validate's
	// report points at the route.
	name := fmt.Sprintf("%04d_%s_%s_%d.html", k.n, req.Method, unsafeName.ReplaceAllString(strings.Trim(path, "/"), "_"), resp.StatusCode)
	k.err = os.WriteFile(filepath.Join(k.dir, name), body, 0o644)
}

// validateRenderedPages runs html-validate over the kept pages once the
// tests have run. html-validate comes with npm ci like DynamoDB Local; when
// it is missing the check fails rather than passing unseen, in CI and on a
// developer's machine alike.
func validateRenderedPages(code int) int {
	k := renderedPages
	if k.err != nil {
		fmt.Fprintf(os.Stderr, "html-validate: keeping the rendered pages: %v\n", k.err)
		return 1
	}
	if k.dir == "" {
		return code // no test rendered a page (a -run of API tests, say)
	}
	root, bin, err := findHTMLValidate()
	if err != nil {
		fmt.Fprintf(os.Stderr, "html-validate: %v\n", err)
		return 1
	}
	files, err := filepath.Glob(filepath.Join(k.dir, "*.html"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "html-validate: %v\n", err)
		return 1
	}
	sort.Strings(files)
	// The report goes to a file: node may exit before a large one has
	// gone through a pipe.
	report := filepath.Join(k.dir, "report.json")
	cmd := exec.Command(bin, append([]string{"--config", filepath.Join(root, ".htmlvalidate.mjs"), "--formatter", "json=" + report}, files...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	runErr := cmd.Run()
	out, err := os.ReadFile(report)
	if err != nil {
		fmt.Fprintf(os.Stderr, "html-validate: %v (%v)\n%s\n", runErr, err, stderr.Bytes())
		return 1
	}
	var results []struct {
		FilePath string `json:"filePath"`
		Messages []struct {
			RuleID   string `json:"ruleId"`
			Message  string `json:"message"`
			Offset   int    `json:"offset"`
			Selector string `json:"selector"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(out, &results); err != nil {
		fmt.Fprintf(os.Stderr, "html-validate: %v (%v)\n%s\n", runErr, err, stderr.Bytes())
		return 1
	}
	problems := 0
	for _, r := range results {
		body, err := os.ReadFile(r.FilePath)
		if err != nil {
			fmt.Fprintf(os.Stderr, "html-validate: %v\n", err)
			return 1
		}
		for _, m := range r.Messages {
			// The pages are one line each: a snippet around the offset
			// says where, better than a line and column.
			from, to := max(0, m.Offset-80), min(len(body), m.Offset+120)
			fmt.Fprintf(os.Stderr, "%s: %s (%s) at %s\n    …%s…\n", filepath.Base(r.FilePath), m.Message, m.RuleID, m.Selector, body[from:to])
			problems++
		}
	}
	if problems > 0 || runErr != nil {
		fmt.Fprintf(os.Stderr, "FAIL: html-validate found %d problems in the pages the tests rendered (kept in %s; rules at https://html-validate.org/rules/)\n%s", problems, k.dir, stderr.Bytes())
		return 1
	}
	fmt.Printf("html-validate: %d pages the tests rendered are valid\n", len(files))
	// Kept only when they fail, to look at.
	if err := os.RemoveAll(k.dir); err != nil {
		fmt.Fprintf(os.Stderr, "html-validate: %v\n", err)
	}
	return code
}

// findHTMLValidate finds the repository root (where node_modules is) from
// the working directory up, and html-validate's command in it.
func findHTMLValidate() (root, bin string, err error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, ".htmlvalidate.mjs")); err == nil {
			bin := filepath.Join(dir, "node_modules", ".bin", "html-validate")
			if _, err := os.Stat(bin); err != nil {
				return "", "", fmt.Errorf("%s is missing: run npm ci (or go tool task deps)", bin)
			}
			return dir, bin, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", errors.New(".htmlvalidate.mjs not found above the working directory")
		}
		dir = parent
	}
}
