package web_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"shop/store"
	"shop/store/demo"
	"shop/store/rules"
)

// crawlPages bounds one visitor's crawl; crawlPerRoute keeps it from
// spending the bound on one long list (products, orders, customers).
const (
	crawlPages    = 200
	crawlPerRoute = 3
)

// A link is a request a page offers: a link, a form, an htmx attribute.
type link struct {
	method, path string // path with its query, escaped
}

// crawl is one visitor following the same-origin links from a start page,
// breadth first, and checking every request each page offers against the
// app's routes.
type crawl struct {
	t      *testing.T
	b      *browser
	routes routeTable
	base   *url.URL
	queue  []string
	seen   map[string]bool // paths (with query) queued
	pages  int
	per    map[string]int // pages fetched per route pattern
	dead   map[string]string
	routed map[string]bool // patterns some link led to
}

func newCrawl(t *testing.T, b *browser, routes routeTable, dead map[string]string, routed map[string]bool) *crawl {
	base, err := url.Parse(b.base)
	if err != nil {
		t.Fatal(err)
	}
	return &crawl{t: t, b: b, routes: routes, base: base, seen: map[string]bool{}, per: map[string]int{}, dead: dead, routed: routed}
}

// offers are the requests a page makes possible, resolved against its URL.
func (c *crawl) offers(at *url.URL, doc *goquery.Document) []link {
	var out []link
	add := func(method, ref string) {
		ref = strings.TrimSpace(ref)
		if ref == "" || strings.HasPrefix(ref, "#") {
			return
		}
		u, err := at.Parse(ref)
		if err != nil {
			out = append(out, link{method, "unparsable " + ref})
			return
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host != c.base.Host {
			return // mailto:, another site
		}
		p := u.EscapedPath()
		if u.RawQuery != "" {
			p += "?" + u.RawQuery
		}
		out = append(out, link{method, p})
	}
	doc.Find("a[href], link[href]").Each(func(_ int, s *goquery.Selection) { add(http.MethodGet, s.AttrOr("href", "")) })
	doc.Find("script[src], img[src]").Each(func(_ int, s *goquery.Selection) { add(http.MethodGet, s.AttrOr("src", "")) })
	doc.Find("form[action]").Each(func(_ int, s *goquery.Selection) {
		add(strings.ToUpper(s.AttrOr("method", http.MethodGet)), s.AttrOr("action", ""))
	})
	for _, m := range []string{"get", "post", "put", "delete", "patch"} {
		doc.Find("[hx-" + m + "]").Each(func(_ int, s *goquery.Selection) { add(strings.ToUpper(m), s.AttrOr("hx-"+m, "")) })
	}
	return out
}

// check records a request no route takes; it returns the route's pattern.
func (c *crawl) check(l link, from string) string {
	path, _, _ := strings.Cut(l.path, "?")
	if strings.HasPrefix(path, "/static/") {
		if !staticFile(path) {
			c.deadLink(l, from, "no such file in static/")
		}
		return ""
	}
	pattern := c.routes.match(l.method, l.path)
	if pattern == "" {
		c.deadLink(l, from, "no route")
		return ""
	}
	c.routed[l.method+" "+pattern] = true
	return pattern
}

func (c *crawl) deadLink(l link, from, why string) {
	key := l.method + " " + l.path
	if _, ok := c.dead[key]; !ok {
		c.dead[key] = fmt.Sprintf("%s (%s), offered by %s", key, why, from)
	}
}

// enqueue queues a GET path to visit once.
func (c *crawl) enqueue(path string) {
	if !c.seen[path] {
		c.seen[path] = true
		c.queue = append(c.queue, path)
	}
}

func (c *crawl) run(start string) {
	c.enqueue(start)
	for len(c.queue) > 0 && c.pages < crawlPages {
		path := c.queue[0]
		c.queue = c.queue[1:]
		pattern := c.routes.match(http.MethodGet, path)
		if pattern == "" || c.per[pattern] >= crawlPerRoute {
			continue
		}
		c.per[pattern]++
		c.pages++
		p := c.b.get(path)
		at := c.base.JoinPath()
		at.Path, at.RawQuery, _ = strings.Cut(path, "?")
		switch {
		case p.status == http.StatusNotFound || p.status >= 500:
			c.deadLink(link{http.MethodGet, path}, "the crawl", fmt.Sprintf("status %d", p.status))
			continue
		case p.status >= 300 && p.status < 400:
			if loc := p.header.Get("Location"); loc != "" {
				for _, l := range c.offers(at, docOf(`<a href="`+loc+`"></a>`)) {
					if c.check(l, path+" (redirect)") != "" {
						c.enqueue(l.path)
					}
				}
			}
			continue
		}
		for _, l := range c.offers(at, p.doc) {
			if c.check(l, path) != "" && l.method == http.MethodGet && !strings.HasPrefix(l.path, "/static/") {
				c.enqueue(l.path)
			}
		}
	}
}

func docOf(html string) *goquery.Document {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		panic(err)
	}
	return doc
}

// Every link, form and htmx request of the pages a visitor, a customer and
// staff reach from the home page and the console leads to a route of its
// method (or a file of static/), and every page reached answers. The three
// crawls only read (GETs of their own sessions), so they run side by side.
func TestLinksLeadToRoutes(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	routes := appRoutes(t, s.env.Store)

	// Beyond the demo shop: Ada's orders (one shipped), a product drop she
	// claimed and put in her cart with a product, a billing run, a mail in
	// the outbox and an API key.
	ada := s.customerID(t, demo.CustomerEmail)
	m := newOrderMaker(t, s.env.Store)
	m.place(s.env.Store, ada, line("cf-grinder", 1))
	shipped := m.place(s.env.Store, ada, line("bk-cinnamon", 2))
	staff := s.staff(t)
	staff.get("/admin/orders/" + shipped.ID)
	wantStatus(t, "create shipments", staff.post("/admin/orders/"+shipped.ID+"/shipments", url.Values{"type": {"Express"}}), http.StatusSeeOther)

	customer := s.browser(t)
	customer.signIn(demo.CustomerEmail, demo.CustomerPassword)
	now := time.Now()
	d, err := s.env.Store.CreateDrop(ctx, store.NewDrop{Title: "Crawled drop", Quantity: 5, Opens: now, Closes: now.Add(24 * time.Hour),
		Audience: store.DropAudienceShop, Published: true, ProductID: "cf-light", Price: centsEUR(990), RedeemWithin: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "claim", customer.claim(d.ID, true), http.StatusSeeOther)
	customer.get("/tickets")
	wantStatus(t, "buy the ticket", customer.post("/tickets/"+d.ID+"/buy", url.Values{}), http.StatusSeeOther)
	wantStatus(t, "add to cart", customer.addToCart("cf-grinder", "1"), http.StatusSeeOther)

	at := now.UTC().Truncate(time.Millisecond)
	recordRun(t, s.env.Store, store.JobRun{Job: "payments", Date: rules.Date(at.Year(), at.Month(), at.Day()),
		StartedAt: at, EndedAt: at, Outcome: store.RunCompleted, Trigger: "schedule"})
	if err := s.env.Store.PutMail(ctx, store.Mail{ID: "receipt-crawl", To: demo.CustomerEmail, Kind: store.MailReceipt,
		Subject: "Your receipt", Text: "Thank you.", CustomerID: ada, CreatedAt: at, Status: store.MailPending}); err != nil {
		t.Fatal(err)
	}
	newAPIKey(t, s.env.Store, "crawler")

	crawls := []struct {
		who    string
		b      *browser
		start  string
		dead   map[string]string
		routed map[string]bool
	}{
		{who: "visitor", b: s.browser(t), start: "/"},
		{who: "customer", b: customer, start: "/"},
		{who: "staff", b: staff, start: "/admin"},
	}
	t.Run("crawls", func(t *testing.T) {
		var together sync.WaitGroup
		for i := range crawls {
			v := &crawls[i]
			v.dead, v.routed = map[string]string{}, map[string]bool{}
			sideBySide(t, &together, v.who, func(t *testing.T) {
				b := *v.b // the crawl's failures are its subtest's
				b.t = t
				c := newCrawl(t, &b, routes, v.dead, v.routed)
				c.run(v.start)
				t.Logf("%s: %d pages from %s", v.who, c.pages, v.start)
				if c.pages < 10 {
					t.Errorf("%s reached only %d pages from %s", v.who, c.pages, v.start)
				}
			})
		}
		together.Wait()
	})
	dead := map[string]string{}
	routed := map[string]bool{}
	for _, v := range crawls {
		maps.Copy(routed, v.routed)
		for k, l := range v.dead {
			if _, ok := dead[k]; !ok {
				dead[k] = l
			}
		}
	}
	if len(dead) > 0 {
		lines := make([]string, 0, len(dead))
		for _, l := range dead {
			lines = append(lines, l)
		}
		slices.Sort(lines)
		t.Errorf("%d dead links:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	var unlinked []string
	for _, r := range routes {
		if !routed[r.method+" "+r.pattern] {
			unlinked = append(unlinked, r.method+" "+r.pattern)
		}
	}
	t.Logf("links led to %d of %d routes; none to %v", len(routes)-len(unlinked), len(routes), unlinked)
}
