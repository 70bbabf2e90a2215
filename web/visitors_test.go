package web_test

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// writes counts the table writes a counter saw.
func writes(ops map[string]int) int {
	return ops["PutItem"] + ops["UpdateItem"] + ops["DeleteItem"] + ops["TransactWriteItems"] + ops["BatchWriteItem"]
}

// A visitor's page views write nothing: the forms' CSRF token lives in a
// signed visitor cookie, not in a session item. Crawlers and a campaign's
// burst of new visitors cost reads only, and cannot grow the table.
func TestVisitorsBrowsingWritesNothing(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	drop := s.newDrop(t, "Visitor roast", 5, time.Now().Add(-30*time.Second), time.Now().Add(time.Hour), true) // open already; the store refuses an opening over a minute past
	pages := []string{
		"/", "/products", "/products?category=coffee", "/products/cf-light", "/products/cf-light/stock",
		"/cart", "/login", "/signup", "/drops", "/drops/" + drop.ID,
	}
	returning := s.browser(t)
	s.env.Counter.Reset()
	for round := 0; round < 5; round++ {
		for _, path := range pages {
			fresh := s.browser(t)
			for _, b := range []*browser{fresh, returning} {
				p := b.get(path)
				wantStatus(t, path, p, http.StatusOK)
				if c := p.setCookie("shop_session"); c != "" {
					t.Fatalf("%s gave a visitor a session: %s", path, c)
				}
			}
		}
	}
	if ops := s.env.Counter.Ops(); writes(ops) != 0 {
		t.Fatalf("%d visitor page views made %v: want no writes", 2*5*len(pages), ops)
	}
	// The forms of those pages work: the visitor's token signs them in.
	returning.get("/login")
	wantStatus(t, "sign in with the visitor's token", returning.post("/login",
		url.Values{"email": {"ada@fikafield.example"}, "password": {"customer-demo-password"}}), http.StatusSeeOther)
}

// A token is masked afresh in every response, and a forged or another
// visitor's token is refused.
func TestVisitorTokensAreMaskedAndBoundToTheCookie(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	a, b := s.browser(t), s.browser(t)
	first := a.get("/login")
	tok1, _ := first.doc.Find(`input[name="_csrf"]`).Attr("value")
	tok2, _ := a.get("/signup").doc.Find(`input[name="_csrf"]`).Attr("value")
	if tok1 == "" || tok1 == tok2 {
		t.Fatalf("tokens %q and %q: want two different masks", tok1, tok2)
	}
	c := first.setCookie("shop_visitor")
	if c == "" {
		t.Fatal("a visitor's first form set no visitor cookie")
	}
	for _, want := range []string{"httponly", "samesite=lax", "path=/"} {
		if !strings.Contains(strings.ToLower(c), want) {
			t.Errorf("visitor cookie %q lacks %s", c, want)
		}
	}
	b.get("/login")
	creds := url.Values{"email": {"ada@fikafield.example"}, "password": {"customer-demo-password"}}
	for name, tok := range map[string]string{"another visitor's": tok1, "empty": "", "garbage": "AAAA", "truncated": tok1[:20]} {
		form := url.Values{"_csrf": {tok}}
		for k, v := range creds {
			form[k] = v
		}
		wantStatus(t, name+" token", b.post("/login", form), http.StatusForbidden)
	}
	// Both masks of a's token are a's.
	form := url.Values{"_csrf": {tok1}}
	for k, v := range creds {
		form[k] = v
	}
	wantStatus(t, "the first mask", a.post("/login", form), http.StatusSeeOther)
}

// A new visitor's parallel first "add to cart" clicks land in one cart
// (the visitor cookie names it, not a session the first add would make),
// and the cart's limit of 15 lines holds under them.
func TestVisitorsParallelFirstAddsShareOneCart(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	v := s.browser(t)
	v.get("/products/cf-light") // the visitor cookie and the form's token
	token := v.csrf
	products := []string{
		"bk-fjord", "bk-cinnamon", "bk-allemans", "bk-lighthouse", "bk-foraging", "bk-knots", "bk-fika",
		"cf-gbg-dark", "cf-light", "cf-espresso", "cf-decaf", "cf-grinder", "cf-pourover", "cf-filters",
		"kt-mug", "kt-board", "kt-kettle", "kt-tin", "kt-towel", "kt-thermos",
	}
	var (
		wg             sync.WaitGroup
		mu             sync.Mutex
		added, refused int
		other          []string
	)
	for _, id := range products {
		wg.Add(1)
		go func() {
			defer wg.Done()
			form := url.Values{"_csrf": {token}, "product_id": {id}, "quantity": {"1"}}
			req, _ := http.NewRequest(http.MethodPost, s.base+"/cart/items", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("HX-Request", "true")
			resp, err := v.http.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(body))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case resp.StatusCode == http.StatusOK && doc.Find(`[data-testid="added"]`).Length() == 1:
				added++
			case resp.StatusCode == http.StatusUnprocessableEntity && strings.Contains(doc.Find(`[data-testid="add-error"]`).Text(), "15"):
				refused++
			default:
				other = append(other, resp.Status+": "+doc.Text())
			}
		}()
	}
	wg.Wait()
	if len(other) > 0 {
		t.Fatalf("answers that are neither added nor cart full: %q", other)
	}
	lines := v.get("/cart").testid("cart-line").Length()
	if lines != 15 || added != 15 || refused != len(products)-15 {
		t.Fatalf("%d parallel first adds: %d added, %d refused, the cart holds %d lines; want 15, %d, 15",
			len(products), added, refused, lines, len(products)-15)
	}
}
