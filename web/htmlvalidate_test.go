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
	"strconv"
	"strings"
	"sync"
)

// Every full page the HTTP tests get back is kept (a few per route), and
// html-validate checks them all with the repository's .htmlvalidate.mjs: a
// page that is not valid HTML, or that a screen reader would stumble on,
// fails the suite like any other test. It checks them a batch at a time
// while the tests run, at a low priority (the tests come first), and the
// last batch once they have run: checking all of them then took 35-45 s
// after the last test, alone on the package's critical path.
var renderedPages = &pageKeeper{paths: map[string]int{}, prefixes: map[string]int{}}

const (
	pagesAPath   = 2   // variants of one path (a form, the form with its errors)
	pagesAPrefix = 12  // pages under one route prefix (/products/…, /admin/orders/…)
	pagesABatch  = 200 // pages one html-validate checks (it costs about a CPU-second to start)
)

type pageKeeper struct {
	mu       sync.Mutex
	dir      string
	err      error
	paths    map[string]int
	prefixes map[string]int
	n        int
	pending  []string     // kept, not yet in a batch
	batches  []*pageBatch // started, in order
}

// pageBatch is one html-validate run over some of the kept pages.
type pageBatch struct {
	files  []string
	report string // html-validate's JSON report
	done   chan struct{}
	err    error // html-validate not found, or it could not run
	runErr error // its exit (an error when it found problems)
	output bytes.Buffer
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
	name := filepath.Join(k.dir, fmt.Sprintf("%04d_%s_%s_%d.html", k.n, req.Method, unsafeName.ReplaceAllString(strings.Trim(path, "/"), "_"), resp.StatusCode))
	if k.err = os.WriteFile(name, body, 0o644); k.err != nil {
		return
	}
	k.pending = append(k.pending, name)
	if len(k.pending) >= pagesABatch {
		k.startBatchLocked(true)
	}
}

// startBatchLocked hands the pending pages to an html-validate of their
// own. A batch in the background waits for the one before it (one node at
// a time beside the tests) and runs at a low priority; the last one, once
// the tests have run, starts at once.
func (k *pageKeeper) startBatchLocked(background bool) {
	b := &pageBatch{files: k.pending, report: filepath.Join(k.dir, fmt.Sprintf("report-%d.json", len(k.batches))), done: make(chan struct{})}
	var before *pageBatch
	if n := len(k.batches); background && n > 0 {
		before = k.batches[n-1]
	}
	k.pending, k.batches = nil, append(k.batches, b)
	go func() {
		defer close(b.done)
		if before != nil {
			<-before.done
		}
		b.run(background)
	}()
}

func (b *pageBatch) run(background bool) {
	root, bin, err := findHTMLValidate()
	if err != nil {
		b.err = err
		return
	}
	args := append([]string{bin, "--config", filepath.Join(root, ".htmlvalidate.mjs"), "--formatter", "json=" + b.report}, b.files...)
	if nice, err := exec.LookPath("nice"); background && err == nil {
		args = append([]string{nice, "-n", "10"}, args...)
	}
	// The report goes to a file: node may exit before a large one has
	// gone through a pipe.
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = &b.output, &b.output
	b.runErr = cmd.Run()
}

// validateRenderedPages checks the pages kept since the last batch and
// waits for every batch once the tests have run. html-validate comes with
// npm ci like DynamoDB Local; when it is missing the check fails rather
// than passing unseen, in CI and on a developer's machine alike.
func validateRenderedPages(code int) int {
	k := renderedPages
	k.mu.Lock()
	if k.err == nil && len(k.pending) > 0 {
		k.startBatchLocked(false)
	}
	batches, keepErr, dir := k.batches, k.err, k.dir
	k.mu.Unlock()
	for _, b := range batches {
		<-b.done
	}
	if keepErr != nil {
		fmt.Fprintf(os.Stderr, "html-validate: keeping the rendered pages: %v\n", keepErr)
		return 1
	}
	if len(batches) == 0 {
		return code // no test rendered a page (a -run of API tests, say)
	}
	problems, pages := 0, 0
	for _, b := range batches {
		if b.err != nil {
			fmt.Fprintf(os.Stderr, "html-validate: %v\n", b.err)
			return 1
		}
		n, ok := b.problems()
		if !ok {
			return 1
		}
		problems += n
		pages += len(b.files)
	}
	if problems > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: html-validate found %d problems in the pages the tests rendered (kept in %s; rules at https://html-validate.org/rules/)\n", problems, dir)
		return 1
	}
	fmt.Printf("html-validate: %d pages the tests rendered are valid\n", pages)
	// Kept only when they fail, to look at.
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintf(os.Stderr, "html-validate: %v\n", err)
	}
	return code
}

// problems prints what html-validate found in the batch's pages and counts
// it; ok is false when its report could not be read. A run that failed
// without a problem in its report counts as one.
func (b *pageBatch) problems() (n int, ok bool) {
	out, err := os.ReadFile(b.report)
	if err != nil {
		fmt.Fprintf(os.Stderr, "html-validate: %v (%v)\n%s\n", b.runErr, err, b.output.Bytes())
		return 0, false
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
		fmt.Fprintf(os.Stderr, "html-validate: %v (%v)\n%s\n", b.runErr, err, b.output.Bytes())
		return 0, false
	}
	for _, r := range results {
		body, err := os.ReadFile(r.FilePath)
		if err != nil {
			fmt.Fprintf(os.Stderr, "html-validate: %v\n", err)
			return 0, false
		}
		for _, m := range r.Messages {
			// The pages are one line each: a snippet around the offset
			// says where, better than a line and column.
			from, to := max(0, m.Offset-80), min(len(body), m.Offset+120)
			fmt.Fprintf(os.Stderr, "%s: %s (%s) at %s\n    …%s…\n", filepath.Base(r.FilePath), m.Message, m.RuleID, m.Selector, body[from:to])
			n++
		}
	}
	if b.runErr != nil {
		fmt.Fprintf(os.Stderr, "html-validate: %v\n%s", b.runErr, b.output.Bytes())
		n = max(n, 1)
	}
	return n, true
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
