package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// The audit: Lighthouse (npm, with Debian's Chromium) scores the storefront
// pages of the demo shop, signed out and signed in, against the shop binary
// with a data directory of its own on a free port. Accessibility, best
// practices and SEO must score 100; performance is reported only (this
// machine's two shared cores make its number noise). Run it with
// go tool task audit; it is not part of the test suite, nor of CI.
var auditRun = flag.Bool("audit", false, "score the storefront with Lighthouse (go tool task audit)")

// auditGated are the categories that fail the audit below 100.
var auditGated = []string{"accessibility", "best-practices", "seo"}

// auditChromeFlags: headless as root, and no background traffic (this
// machine's network is closed; Chromium's calls home would only fail).
const auditChromeFlags = "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run " +
	"--disable-background-networking --disable-component-update --disable-sync"

type auditPage struct {
	name, path string
	signedIn   bool
}

func TestAudit(t *testing.T) {
	if !*auditRun {
		t.Skip("the audit runs only when asked: go tool task audit")
	}
	lighthouse, err := filepath.Abs(filepath.Join("node_modules", ".bin", "lighthouse"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lighthouse); err != nil {
		t.Fatalf("%s is missing: run npm ci (or go tool task deps)", lighthouse)
	}
	chrome, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium is not installed (Debian: apt-get install chromium)")
	}
	dir := t.TempDir()
	sh := startShopBinary(t, dir)
	cookie := signedInCookie(t, sh.base, "ada@fikafield.example", "customer-demo-password")

	pages := []auditPage{
		{"catalogue", "/products", false},
		{"product", "/products/cf-gbg-dark", false},
		{"search", "/search?q=coffee", false},
		{"sign-in", "/login", false},
		{"cart", "/cart", false},
		{"orders", "/orders", true},
		{"account", "/account/sessions", true},
	}
	out := filepath.Join(os.TempDir(), "shop-audit")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	type row struct {
		page   auditPage
		scores map[string]float64
		failed []string // the gated audits below full marks
	}
	var rows []row
	for _, p := range pages {
		report := filepath.Join(out, p.name+".json")
		args := []string{sh.base + p.path, "--quiet", "--output=json", "--output-path=" + report,
			"--only-categories=performance,accessibility,best-practices,seo", "--chrome-flags=" + auditChromeFlags}
		if p.signedIn {
			h, err := json.Marshal(map[string]string{"Cookie": cookie})
			if err != nil {
				t.Fatal(err)
			}
			args = append(args, "--extra-headers="+string(h))
		}
		// A trace now and then comes back without its start (NO_NAVSTART)
		// on this busy machine: such a run is tried again, twice at most.
		var scores map[string]float64
		var failed []string
		for try := 1; ; try++ {
			cmd := exec.Command(lighthouse, args...)
			cmd.Env = append(os.Environ(), "CHROME_PATH="+chrome)
			b, err := cmd.CombinedOutput()
			if err == nil {
				scores, failed, err = readLighthouse(report)
			}
			if err == nil {
				break
			}
			if try == 3 {
				t.Errorf("lighthouse %s: %v\n%s", p.path, err, b)
				break
			}
			t.Logf("lighthouse %s, try %d: %v", p.path, try, err)
		}
		if scores != nil {
			rows = append(rows, row{p, scores, failed})
		}
	}

	var table strings.Builder
	fmt.Fprintf(&table, "\n%-10s %-30s %6s %6s %6s %6s\n", "page", "path", "perf", "a11y", "best", "seo")
	for _, r := range rows {
		path := r.page.path
		if r.page.signedIn {
			path += " (signed in)"
		}
		fmt.Fprintf(&table, "%-10s %-30s %6.0f %6.0f %6.0f %6.0f\n", r.page.name, path,
			100*r.scores["performance"], 100*r.scores["accessibility"], 100*r.scores["best-practices"], 100*r.scores["seo"])
	}
	t.Logf("Lighthouse scores (reports in %s):%s", out, table.String())
	for _, r := range rows {
		for _, c := range auditGated {
			if r.scores[c] < 1 {
				t.Errorf("%s (%s): %s scores %.0f, want 100; below full marks: %s", r.page.name, r.page.path, c, 100*r.scores[c], strings.Join(r.failed, "; "))
				break
			}
		}
	}
}

// readLighthouse reads a Lighthouse JSON report: each category's score
// (0 to 1), and the audits of the gated categories that fell short.
func readLighthouse(path string) (map[string]float64, []string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var r struct {
		Categories map[string]struct {
			Score     *float64 `json:"score"`
			AuditRefs []struct {
				ID     string  `json:"id"`
				Weight float64 `json:"weight"`
			} `json:"auditRefs"`
		} `json:"categories"`
		Audits map[string]struct {
			Title string   `json:"title"`
			Score *float64 `json:"score"`
		} `json:"audits"`
		RuntimeError *struct {
			Message string `json:"message"`
		} `json:"runtimeError"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, nil, err
	}
	if r.RuntimeError != nil {
		return nil, nil, fmt.Errorf("runtime error: %s", r.RuntimeError.Message)
	}
	scores := map[string]float64{}
	var failed []string
	for id, c := range r.Categories {
		if c.Score == nil {
			return nil, nil, fmt.Errorf("category %s has no score", id)
		}
		scores[id] = *c.Score
		gated := false
		for _, g := range auditGated {
			gated = gated || g == id
		}
		for _, ref := range c.AuditRefs {
			if a := r.Audits[ref.ID]; gated && ref.Weight > 0 && a.Score != nil && *a.Score < 1 {
				failed = append(failed, id+": "+a.Title+" ("+ref.ID+")")
			}
		}
	}
	return scores, failed, nil
}

// signedInCookie signs in through the form, as a person would, and gives
// the Cookie header that carries the session.
func signedInCookie(t *testing.T, base, email, password string) string {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(base + "/login")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	csrf, _ := doc.Find(`input[name="_csrf"]`).First().Attr("value")
	form := url.Values{"_csrf": {csrf}, "email": {email}, "password": {password}}
	req, err := http.NewRequest(http.MethodPost, base+"/login", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in as %s: status %d\n%s", email, resp.StatusCode, bytes.TrimSpace(body))
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, c := range jar.Cookies(u) {
		parts = append(parts, c.Name+"="+c.Value)
	}
	return strings.Join(parts, "; ")
}
