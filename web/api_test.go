package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/crypto/bcrypt"

	"shop/handlers"
	"shop/store"
	"shop/store/dropgate"
	"shop/store/payment"
	"shop/store/storetest"
	"shop/web"
)

// withAPIKeysEvery reloads the API's keys at this interval.
func withAPIKeysEvery(d time.Duration) appOption {
	return func(_ storetest.Env, cfg *web.Config) { cfg.APIKeysEvery = d }
}

// withoutBackgroundReads keeps the drop gate's timer out of a request
// count: a gate that does not refresh itself (it re-reads the drops in use
// every second; the API's keys reload hourly in every test app). Its
// ticks made a measured step count one request more in some runs.
func withoutBackgroundReads(_ storetest.Env, cfg *web.Config) {
	cfg.Gate = dropgate.New(cfg.Store, nil)
}

// withRequestTimeout lets a request run this long: the races pile
// thousands of claims on DynamoDB Local, on a machine other tests share.
func withRequestTimeout(d time.Duration) appOption {
	return func(_ storetest.Env, cfg *web.Config) { cfg.RequestTimeout = d }
}

// withStore gives the app its own store over the same table, its
// DynamoDB requests counted by counter (not env's): two apps on one table
// each with its own count, or a store with options (a drop counter
// threshold).
func withStore(counter *storetest.Counter, opts ...store.Option) appOption {
	return func(env storetest.Env, cfg *web.Config) {
		client, err := store.NewClient(context.Background(), store.ClientConfig{Endpoint: env.Endpoint}, counter, cfg.Metrics)
		if err != nil {
			panic(err)
		}
		cfg.Store = store.New(client, cfg.Store.Table(), opts...)
	}
}

// apiTransport is shared by the API tests' clients: races open many
// connections to one host.
var apiTransport = &http.Transport{MaxIdleConns: 2000, MaxIdleConnsPerHost: 2000, IdleConnTimeout: 30 * time.Second}

// apiClient calls the JSON API with one key (none if key is empty).
type apiClient struct {
	t    testing.TB
	base string
	key  string
	http *http.Client
}

func newAPIClient(t testing.TB, base, key string) *apiClient {
	return &apiClient{t: t, base: base, key: key, http: &http.Client{Transport: apiTransport, Timeout: 60 * time.Second}}
}

type apiResp struct {
	status int
	header http.Header
	body   []byte
}

// do sends body (JSON, if not empty) and reads the answer; headers are
// name, value pairs.
func (c *apiClient) do(method, path, body string, headers ...string) apiResp {
	c.t.Helper()
	r, err := c.try(method, path, body, headers...)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	return r
}

func (c *apiClient) try(method, path, body string, headers ...string) (apiResp, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return apiResp{}, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return apiResp{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return apiResp{status: resp.StatusCode, header: resp.Header, body: b}, err
}

func (r apiResp) decode(t testing.TB, into any) {
	t.Helper()
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q, want application/json: %s", ct, r.body)
	}
	if err := json.Unmarshal(r.body, into); err != nil {
		t.Fatalf("not JSON: %v: %s", err, r.body)
	}
}

func (r apiResp) apiError(t testing.TB) handlers.APIErrorBody {
	t.Helper()
	var e handlers.APIErrorBody
	r.decode(t, &e)
	if e.Error == "" || e.Reason == "" {
		t.Fatalf("error body without error and reason: %s", r.body)
	}
	return e
}

// want checks the status and, for an error, its reason.
func (r apiResp) want(t testing.TB, what string, status int, reason string) handlers.APIErrorBody {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status %d, want %d: %s", what, r.status, status, r.body)
	}
	if status < 400 {
		return handlers.APIErrorBody{}
	}
	e := r.apiError(t)
	if reason != "" && e.Reason != reason {
		t.Fatalf("%s: reason %q, want %q: %s", what, e.Reason, reason, r.body)
	}
	return e
}

// newAPIKey adds an integration with its first key through the store and
// returns the key's secret.
func newAPIKey(t testing.TB, st *store.Store, name string) string {
	t.Helper()
	_, _, secret, err := st.CreateIntegration(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// dropBody is the JSON of a new drop open from a little while ago for an
// hour.
func dropBody(title string, quantity int) string {
	return fmt.Sprintf(`{"title": %q, "quantity": %d, "opens": %q, "closes": %q}`,
		title, quantity, rfc3339(time.Now().Add(-10*time.Second)), rfc3339(time.Now().Add(time.Hour)))
}

// makeDrop makes a drop through the API and returns it.
func (c *apiClient) makeDrop(body string) handlers.APIDrop {
	c.t.Helper()
	r := c.do(http.MethodPost, "/api/v1/drops", body)
	r.want(c.t, "make drop", http.StatusCreated, "")
	var d handlers.APIDrop
	r.decode(c.t, &d)
	return d
}

func (c *apiClient) claim(dropID, client string) apiResp {
	c.t.Helper()
	return c.do(http.MethodPost, "/api/v1/drops/"+dropID+"/claims", fmt.Sprintf(`{"client": %q}`, client))
}

// apiShop is an app over a fresh table (no demo data) with one key.
func apiShop(t *testing.T, opts ...appOption) (storetest.Env, *apiClient) {
	t.Helper()
	env := storetest.New(t)
	secret := newAPIKey(t, env.Store, "partner")
	base, _ := startApp(t, env, env.Table, [][]byte{keyA}, opts...)
	return env, newAPIClient(t, base, secret)
}

// allTickets pages through a drop's tickets in the store.
func allTickets(t testing.TB, st *store.Store, dropID string) []store.Ticket {
	t.Helper()
	var out []store.Ticket
	cursor := ""
	for {
		p, err := st.DropTickets(context.Background(), dropID, 100, cursor)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Items...)
		if p.Next == "" {
			return out
		}
		cursor = p.Next
	}
}

// Not parallel, like every test that times the app against the wall
// clock: the parallel races would slow the app past its bounds.
func TestAPIAuthAndRevokedKeyStopsWithinSeconds(t *testing.T) {
	env := storetest.New(t)
	base, _ := startApp(t, env, env.Table, [][]byte{keyA}, withAPIKeysEvery(300*time.Millisecond))
	time.Sleep(100 * time.Millisecond) // the key cache has loaded (no keys yet)
	secret := newAPIKey(t, env.Store, "partner")
	c := newAPIClient(t, base, secret)

	// A key made after the replica loaded its keys works within a quarter
	// of a second (an unknown key reloads a copy that old).
	made := time.Now()
	for {
		r := c.do(http.MethodGet, "/api/v1/drops/no-such-drop", "")
		if r.status == http.StatusNotFound {
			break
		}
		r.want(t, "new key", http.StatusUnauthorized, "unauthorized")
		if time.Since(made) > time.Second {
			t.Fatal("a new key does not work after a second")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("new key works after %v", time.Since(made).Round(time.Millisecond))
	d := c.makeDrop(dropBody("Auth", 5))

	anon := newAPIClient(t, base, "")
	r := anon.do(http.MethodGet, "/api/v1/drops/"+d.ID, "")
	r.want(t, "no key", http.StatusUnauthorized, "unauthorized")
	if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
		t.Fatalf("401 without WWW-Authenticate: Bearer: %v", r.header)
	}
	for _, auth := range []string{"Basic " + secret, "Bearer", "Bearer shop_not-a-key", secret, "Bearer " + secret + "x"} {
		r := anon.do(http.MethodGet, "/api/v1/drops/"+d.ID, "", "Authorization", auth)
		r.want(t, "Authorization: "+auth, http.StatusUnauthorized, "unauthorized")
		if !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
			t.Fatalf("401 without WWW-Authenticate: Bearer: %v", r.header)
		}
	}
	anon.do(http.MethodPost, "/api/v1/drops", dropBody("No key", 1)).want(t, "make a drop without a key", http.StatusUnauthorized, "unauthorized")
	anon.do(http.MethodPost, "/api/v1/drops/"+d.ID+"/claims", `{"client": "a"}`).want(t, "claim without a key", http.StatusUnauthorized, "unauthorized")
	anon.do(http.MethodGet, "/api/v1/drops/"+d.ID+"/tickets", "").want(t, "tickets without a key", http.StatusUnauthorized, "unauthorized")
	anon.do(http.MethodGet, "/api/v1/drops/"+d.ID, "", "Authorization", "bearer "+secret).want(t, "scheme in lower case", http.StatusOK, "")
	r = anon.do(http.MethodGet, "/api/v1/openapi.json", "")
	r.want(t, "the description needs no key", http.StatusOK, "")

	// Unknown paths under /api are JSON 404s, without sessions or CSRF.
	c.do(http.MethodGet, "/api/v1/nothing", "").want(t, "unknown path", http.StatusNotFound, "not_found")
	r = c.do(http.MethodPost, "/api/v1/drops/"+d.ID+"/nothing", `{}`)
	r.want(t, "unknown POST path", http.StatusNotFound, "not_found")
	if len(r.header.Values("Set-Cookie")) > 0 {
		t.Fatalf("the API set a cookie: %v", r.header.Values("Set-Cookie"))
	}
	anon.do(http.MethodGet, "/api/nothing", "").want(t, "unknown /api path", http.StatusNotFound, "not_found")

	// Revoked: refused within a few seconds (here the cache reloads every
	// 300 ms), with no restart.
	if err := env.Store.RevokeAPIKey(context.Background(), store.HashAPIKey(secret)); err != nil {
		t.Fatal(err)
	}
	revoked := time.Now()
	for {
		r := c.do(http.MethodGet, "/api/v1/drops/"+d.ID, "")
		if r.status == http.StatusUnauthorized {
			r.want(t, "revoked key", http.StatusUnauthorized, "unauthorized")
			break
		}
		r.want(t, "key before the reload", http.StatusOK, "")
		if time.Since(revoked) > 3*time.Second {
			t.Fatal("a revoked key still works after 3 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("revoked key refused after %v", time.Since(revoked).Round(time.Millisecond))
	c.claim(d.ID, "late").want(t, "claim with a revoked key", http.StatusUnauthorized, "unauthorized")
	if n := len(allTickets(t, env.Store, d.ID)); n != 0 {
		t.Fatalf("%d tickets from a revoked key", n)
	}
}

func TestAPICreateDrop(t *testing.T) {
	t.Parallel()
	env, c := apiShop(t)
	now := time.Now()
	opens, closes := now.Add(time.Hour), now.Add(3*time.Hour)
	r := c.do(http.MethodPost, "/api/v1/drops", fmt.Sprintf(`{"title": " Launch edition ", "quantity": 500, "opens": %q, "closes": %q}`, rfc3339(opens), rfc3339(closes)))
	r.want(t, "make a drop", http.StatusCreated, "")
	var raw map[string]any
	r.decode(t, &raw)
	for _, k := range []string{"id", "title", "quantity", "claimed", "status", "opens", "closes"} {
		if _, ok := raw[k]; !ok {
			t.Fatalf("drop without %q: %s", k, r.body)
		}
	}
	var d handlers.APIDrop
	r.decode(t, &d)
	if d.Title != "Launch edition" || d.Quantity != 500 || d.Claimed != 0 || d.Status != "upcoming" ||
		!d.Opens.Equal(opens.Truncate(time.Second)) || !d.Closes.Equal(closes.Truncate(time.Second)) {
		t.Fatalf("drop %+v", d)
	}
	if loc := r.header.Get("Location"); loc != "/api/v1/drops/"+d.ID {
		t.Fatalf("Location %q", loc)
	}
	stored, err := env.Store.DropConsistent(context.Background(), d.ID)
	if err != nil || stored.Audience != "api:partner" || stored.CreatedBy != "api:partner" || stored.Published || stored.Quantity != 500 {
		t.Fatalf("stored %+v, %v", stored, err)
	}
	listed, err := env.Store.PublishedDrops(context.Background(), 100, "")
	if err != nil || len(listed.Items) != 0 {
		t.Fatalf("an API drop is listed on /drops: %+v %v", listed.Items, err)
	}
	// Opening up to a minute ago is fine (clocks differ): open at once.
	if d := c.makeDrop(fmt.Sprintf(`{"title": "Now", "quantity": 1, "opens": %q, "closes": %q}`, rfc3339(now.Add(-30*time.Second)), rfc3339(closes))); d.Status != "open" {
		t.Fatalf("status %q, want open", d.Status)
	}

	o, cl := rfc3339(opens), rfc3339(closes)
	for _, tc := range []struct {
		name, body, field string
	}{
		{"quantity 0", fmt.Sprintf(`{"title": "x", "quantity": 0, "opens": %q, "closes": %q}`, o, cl), "quantity"},
		{"no quantity", fmt.Sprintf(`{"title": "x", "opens": %q, "closes": %q}`, o, cl), "quantity"},
		{"negative quantity", fmt.Sprintf(`{"title": "x", "quantity": -5, "opens": %q, "closes": %q}`, o, cl), "quantity"},
		{"quantity over a million", fmt.Sprintf(`{"title": "x", "quantity": 1000001, "opens": %q, "closes": %q}`, o, cl), "quantity"},
		{"fractional quantity", fmt.Sprintf(`{"title": "x", "quantity": 1.5, "opens": %q, "closes": %q}`, o, cl), "quantity"},
		{"quantity as a string", fmt.Sprintf(`{"title": "x", "quantity": "10", "opens": %q, "closes": %q}`, o, cl), "quantity"},
		{"huge quantity", fmt.Sprintf(`{"title": "x", "quantity": 1e40, "opens": %q, "closes": %q}`, o, cl), "quantity"},
		{"closes before opens", fmt.Sprintf(`{"title": "x", "quantity": 5, "opens": %q, "closes": %q}`, cl, o), "closes"},
		{"closes when it opens", fmt.Sprintf(`{"title": "x", "quantity": 5, "opens": %q, "closes": %q}`, o, o), "closes"},
		{"opens in the past", fmt.Sprintf(`{"title": "x", "quantity": 5, "opens": %q, "closes": %q}`, rfc3339(now.Add(-2*time.Minute)), cl), "opens"},
		{"no opens", fmt.Sprintf(`{"title": "x", "quantity": 5, "closes": %q}`, cl), "opens"},
		{"no closes", fmt.Sprintf(`{"title": "x", "quantity": 5, "opens": %q}`, o), "closes"},
		{"opens not RFC 3339", fmt.Sprintf(`{"title": "x", "quantity": 5, "opens": "tomorrow", "closes": %q}`, cl), "opens"},
		{"closes without a zone", fmt.Sprintf(`{"title": "x", "quantity": 5, "opens": %q, "closes": "2030-05-01T10:00:00"}`, o), "closes"},
		{"opens as a number", fmt.Sprintf(`{"title": "x", "quantity": 5, "opens": 1767225600, "closes": %q}`, cl), "opens"},
		{"no title", fmt.Sprintf(`{"quantity": 5, "opens": %q, "closes": %q}`, o, cl), "title"},
		{"blank title", fmt.Sprintf(`{"title": "   ", "quantity": 5, "opens": %q, "closes": %q}`, o, cl), "title"},
		{"unknown field", fmt.Sprintf(`{"title": "x", "quantity": 5, "opens": %q, "closes": %q, "published": true}`, o, cl), "published"},
		{"owner field", fmt.Sprintf(`{"title": "x", "quantity": 5, "opens": %q, "closes": %q, "owner": "shop"}`, o, cl), "owner"},
		{"malformed JSON", `{"title": "x", "quantity": `, ""},
		{"not JSON", `title=x&quantity=5`, ""},
		{"an array", `[]`, ""},
		{"two objects", fmt.Sprintf(`{"title": "x", "quantity": 5, "opens": %q, "closes": %q} {}`, o, cl), ""},
		{"null", `null`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := c.do(http.MethodPost, "/api/v1/drops", tc.body).want(t, tc.name, http.StatusBadRequest, "bad_request")
			if e.Field != tc.field {
				t.Fatalf("field %q, want %q: %+v", e.Field, tc.field, e)
			}
		})
	}
	c.do(http.MethodPost, "/api/v1/drops", "", "Content-Type", "application/json").want(t, "empty body", http.StatusBadRequest, "bad_request")
	c.do(http.MethodPost, "/api/v1/drops", dropBody("Form", 5), "Content-Type", "application/x-www-form-urlencoded").
		want(t, "not sent as JSON", http.StatusUnsupportedMediaType, "unsupported_media_type")
	c.do(http.MethodPost, "/api/v1/drops", dropBody("Charset", 5), "Content-Type", "application/json; charset=utf-8").
		want(t, "JSON with a charset", http.StatusCreated, "")

	// Nothing written by any refused request: the three drops above only.
	if n := env.CountEntities(t, "drop"); n != 3 {
		t.Fatalf("%d drops in the table, want 3", n)
	}
	if n := env.CountEntities(t, "dropCounter"); n != 0 {
		t.Fatalf("%d drop counters in the table", n)
	}
}

func TestAPIShowDrop(t *testing.T) {
	t.Parallel()
	env, c := apiShop(t)
	d := c.makeDrop(dropBody("Show", 3))
	var got handlers.APIDrop
	r := c.do(http.MethodGet, "/api/v1/drops/"+d.ID, "")
	r.want(t, "show", http.StatusOK, "")
	r.decode(t, &got)
	if got.ID != d.ID || got.Title != "Show" || got.Quantity != 3 || got.Claimed != 0 || got.Status != "open" {
		t.Fatalf("drop %+v", got)
	}
	if cc := r.header.Get("Cache-Control"); cc != "no-store" {
		t.Fatalf("Cache-Control %q", cc)
	}
	c.claim(d.ID, "one").want(t, "claim", http.StatusCreated, "")
	c.do(http.MethodGet, "/api/v1/drops/"+d.ID, "").decode(t, &got)
	if got.Claimed != 1 {
		t.Fatalf("claimed %d after this replica's claim, want 1", got.Claimed)
	}
	// A claim through another store (another replica) shows after a refresh.
	if _, err := env.Store.Claim(context.Background(), store.ClaimRequest{DropID: d.ID, Client: "elsewhere"}, false); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for got.Claimed != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("claimed %d 5 s after another replica's claim, want 2", got.Claimed)
		}
		time.Sleep(100 * time.Millisecond)
		c.do(http.MethodGet, "/api/v1/drops/"+d.ID, "").decode(t, &got)
	}
	c.do(http.MethodGet, "/api/v1/drops/no-such-drop", "").want(t, "unknown drop", http.StatusNotFound, "not_found")
	c.do(http.MethodGet, "/api/v1/drops/"+url.PathEscape("a.b"), "").want(t, "not an id", http.StatusNotFound, "not_found")
}

func TestAPIClaimStatuses(t *testing.T) {
	t.Parallel()
	env, c := apiShop(t)
	ctx := context.Background()
	d := c.makeDrop(dropBody("Two", 2))

	r := c.claim(d.ID, "c1")
	r.want(t, "first claim", http.StatusCreated, "")
	var raw map[string]any
	r.decode(t, &raw)
	for _, k := range []string{"drop", "client", "created"} {
		if _, ok := raw[k]; !ok {
			t.Fatalf("ticket without %q: %s", k, r.body)
		}
	}
	var tk handlers.APITicket
	r.decode(t, &tk)
	if tk.Drop != d.ID || tk.Client != "partner:c1" || time.Since(tk.Created) > time.Minute || tk.Status != "valid" {
		t.Fatalf("ticket %+v", tk)
	}
	stored, err := env.Store.Ticket(ctx, d.ID, "partner:c1")
	if err != nil || stored.CustomerID != "" || stored.Client != "partner:c1" {
		t.Fatalf("stored ticket %+v, %v", stored, err)
	}
	again := c.claim(d.ID, "c1")
	again.want(t, "second claim of a client: its ticket", http.StatusOK, "")
	if string(again.body) != string(r.body) {
		t.Fatalf("repeat claim answered %s, the first %s", again.body, r.body)
	}
	c.claim(d.ID, "c2").want(t, "last ticket", http.StatusCreated, "")
	c.claim(d.ID, "c3").want(t, "after the last ticket", http.StatusConflict, "sold_out")
	c.claim(d.ID, "c1").want(t, "a holder on a sold-out drop: its ticket", http.StatusOK, "")
	var got handlers.APIDrop
	c.do(http.MethodGet, "/api/v1/drops/"+d.ID, "").decode(t, &got)
	if got.Claimed != 2 || got.Status != "sold_out" {
		t.Fatalf("sold-out drop %+v", got)
	}

	later := c.makeDrop(fmt.Sprintf(`{"title": "Later", "quantity": 5, "opens": %q, "closes": %q}`, rfc3339(time.Now().Add(time.Hour)), rfc3339(time.Now().Add(2*time.Hour))))
	c.claim(later.ID, "l1").want(t, "before it opens", http.StatusConflict, "not_open")

	closed := c.makeDrop(dropBody("Closed", 5))
	if err := env.Store.SetDropStatus(ctx, closed.ID, store.DropClosed); err != nil {
		t.Fatal(err)
	}
	c.claim(closed.ID, "k1").want(t, "closed by staff", http.StatusConflict, "closed")

	cancelled := c.makeDrop(dropBody("Cancelled", 5))
	if err := env.Store.SetDropStatus(ctx, cancelled.ID, store.DropCancelled); err != nil {
		t.Fatal(err)
	}
	c.claim(cancelled.ID, "x1").want(t, "cancelled", http.StatusConflict, "cancelled")

	c.claim("no-such-drop", "n1").want(t, "unknown drop", http.StatusNotFound, "not_found")
	c.claim(url.PathEscape("bad.id"), "n2").want(t, "not an id", http.StatusNotFound, "not_found")
	newAPIClient(t, c.base, "").claim(d.ID, "c9").want(t, "no key", http.StatusUnauthorized, "unauthorized")

	open := c.makeDrop(dropBody("Open", 50))
	for _, tc := range []struct{ name, body, field string }{
		{"empty client", `{"client": ""}`, "client"},
		{"no client", `{}`, "client"},
		{"client too long", fmt.Sprintf(`{"client": %q}`, strings.Repeat("x", 65)), "client"},
		{"space", `{"client": "a b"}`, "client"},
		{"slash", `{"client": "a/b"}`, "client"},
		{"not ASCII", `{"client": "åsa"}`, "client"},
		{"a number", `{"client": 5}`, "client"},
		{"unknown field", `{"client": "x", "customer": "y"}`, "customer"},
		{"malformed", `{"client": `, ""},
	} {
		r := c.do(http.MethodPost, "/api/v1/drops/"+open.ID+"/claims", tc.body)
		if e := r.want(t, tc.name, http.StatusBadRequest, "bad_request"); e.Field != tc.field {
			t.Fatalf("%s: field %q, want %q", tc.name, e.Field, tc.field)
		}
	}
	c.do(http.MethodPost, "/api/v1/drops/"+open.ID+"/claims", `{"client": "x"}`, "Content-Type", "text/plain").
		want(t, "not JSON", http.StatusUnsupportedMediaType, "unsupported_media_type")
	c.claim(open.ID, strings.Repeat("y", 64)).want(t, "a 64-character client", http.StatusCreated, "")
	c.claim(open.ID, "Ab-9_.:x").want(t, "every allowed character", http.StatusCreated, "")
	if n := len(allTickets(t, env.Store, open.ID)); n != 2 {
		t.Fatalf("%d tickets after refused claims, want 2", n)
	}

	// One client claiming more than 5 times in a second is slowed; another
	// client is not.
	statuses := map[int]int{}
	for range 8 {
		r := c.claim(d.ID, "eager")
		statuses[r.status]++
		if r.status == http.StatusTooManyRequests {
			r.want(t, "too often", http.StatusTooManyRequests, "rate_limited")
			if r.header.Get("Retry-After") == "" {
				t.Fatal("429 without Retry-After")
			}
		}
	}
	if statuses[http.StatusTooManyRequests] == 0 || statuses[http.StatusConflict] < 5 {
		t.Fatalf("8 claims of one client at once: %v, want 5 answered and the rest 429", statuses)
	}
	c.claim(d.ID, "patient").want(t, "another client", http.StatusConflict, "sold_out")
}

func TestAPITickets(t *testing.T) {
	t.Parallel()
	env, c := apiShop(t)
	d := c.makeDrop(dropBody("Tickets", 10))
	for i := range 5 {
		c.claim(d.ID, fmt.Sprintf("t%d", i+1)).want(t, "claim", http.StatusCreated, "")
	}
	var clients []string
	after := ""
	pages := 0
	for {
		q := "?limit=2"
		if after != "" {
			q += "&after=" + url.QueryEscape(after)
		}
		var p handlers.APITickets
		c.do(http.MethodGet, "/api/v1/drops/"+d.ID+"/tickets"+q, "").decode(t, &p)
		pages++
		for _, tk := range p.Tickets {
			if tk.Drop != d.ID || tk.Created.IsZero() || tk.Status != "valid" {
				t.Fatalf("ticket %+v", tk)
			}
			clients = append(clients, tk.Client)
		}
		if p.Next == "" {
			break
		}
		if pages > 5 {
			t.Fatal("the pages do not end")
		}
		after = p.Next
	}
	want := []string{"partner:t1", "partner:t2", "partner:t3", "partner:t4", "partner:t5"}
	if !slices.Equal(clients, want) || pages != 3 {
		t.Fatalf("%d pages of %v, want 3 of %v", pages, clients, want)
	}
	var all handlers.APITickets
	r := c.do(http.MethodGet, "/api/v1/drops/"+d.ID+"/tickets", "")
	r.decode(t, &all)
	if len(all.Tickets) != 5 || all.Next != "" || !strings.Contains(string(r.body), `"next":""`) {
		t.Fatalf("one page: %s", r.body)
	}
	empty := c.makeDrop(dropBody("Empty", 1))
	r = c.do(http.MethodGet, "/api/v1/drops/"+empty.ID+"/tickets", "")
	if r.status != http.StatusOK || !strings.Contains(string(r.body), `"tickets":[]`) {
		t.Fatalf("no tickets: %d %s", r.status, r.body)
	}

	// A cursor of another drop's list, or none at all, is refused.
	var first handlers.APITickets
	c.do(http.MethodGet, "/api/v1/drops/"+d.ID+"/tickets?limit=1", "").decode(t, &first)
	for _, bad := range []string{"garbage", "eyJ4IjoieSJ9", first.Next + "x", strings.Repeat("A", 3000)} {
		e := c.do(http.MethodGet, "/api/v1/drops/"+d.ID+"/tickets?after="+url.QueryEscape(bad), "").want(t, "bad cursor", http.StatusBadRequest, "bad_request")
		if e.Field != "after" {
			t.Fatalf("bad cursor: field %q", e.Field)
		}
	}
	c.do(http.MethodGet, "/api/v1/drops/"+empty.ID+"/tickets?after="+url.QueryEscape(first.Next), "").want(t, "another drop's cursor", http.StatusBadRequest, "bad_request")
	for _, bad := range []string{"0", "-1", "1001", "x", "2.5"} {
		c.do(http.MethodGet, "/api/v1/drops/"+d.ID+"/tickets?limit="+bad, "").want(t, "limit "+bad, http.StatusBadRequest, "bad_request")
	}
	c.do(http.MethodGet, "/api/v1/drops/no-such-drop/tickets", "").want(t, "unknown drop", http.StatusNotFound, "not_found")
	newAPIClient(t, c.base, "").do(http.MethodGet, "/api/v1/drops/"+d.ID+"/tickets", "").want(t, "no key", http.StatusUnauthorized, "unauthorized")

	// Another integration's key finds no such drop: not its tickets, not
	// the drop, and it cannot claim on it (TestAPIIntegrationsSeeOnlyTheirDrops
	// has the rest).
	other := newAPIClient(t, c.base, newAPIKey(t, env.Store, "other"))
	waitForKey(t, other)
	other.do(http.MethodGet, "/api/v1/drops/"+d.ID+"/tickets", "").want(t, "another integration's tickets", http.StatusNotFound, "not_found")
	other.do(http.MethodGet, "/api/v1/drops/"+d.ID, "").want(t, "another integration's drop", http.StatusNotFound, "not_found")
	other.claim(d.ID, "t1").want(t, "a claim on another integration's drop", http.StatusNotFound, "not_found")
	// Its own drop, claimed for a client of the same id: no collision.
	mine := other.makeDrop(dropBody("Other's", 2))
	r = other.claim(mine.ID, "t1")
	r.want(t, "another integration's client of the same id", http.StatusCreated, "")
	var tk handlers.APITicket
	if r.decode(t, &tk); tk.Client != "other:t1" {
		t.Fatalf("ticket of another integration: %s", r.body)
	}
}

// waitForKey waits until the app knows a key made a moment ago (within a
// quarter of a second: an unknown key reloads a copy that old).
func waitForKey(t testing.TB, c *apiClient) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		r := c.do(http.MethodGet, "/api/v1/drops/no-such-drop", "")
		if r.status != http.StatusUnauthorized {
			r.want(t, "a new key", http.StatusNotFound, "not_found")
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("a new key is unknown after 2 s")
		}
	}
}

func discardLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// The description lists every route under /api/v1 with its method, and
// every path it describes answers in the real app.
func TestAPIOpenAPIDescribesEveryRoute(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	secret := newAPIKey(t, env.Store, "partner")
	metrics := web.NewMetrics()
	cfg := web.Config{Store: env.Store, Payments: payment.NewProviders(testProvider(t, env.Store)), Metrics: metrics,
		Log: discardLog(), SessionKeys: [][]byte{keyA}, BcryptCost: bcrypt.MinCost}
	noLookup(env, &cfg) // the example's endpoint is never called
	app, err := web.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := newAPIClient(t, serve(t, app), secret)

	r := c.do(http.MethodGet, "/api/v1/openapi.json", "")
	r.want(t, "openapi.json", http.StatusOK, "")
	if string(r.body) != string(web.OpenAPI) {
		t.Fatal("served description differs from the embedded one")
	}
	// The one 4xx the document describes for itself (redocly's
	// operation-4xx-response): a body over the small limit.
	big, bigBody := rawRequest(t, c.base, http.MethodGet, "/api/v1/openapi.json",
		"Authorization: Bearer "+secret, "Content-Type: application/json", "Content-Length: "+strconv.Itoa(1<<20+1))
	apiResp{status: big.StatusCode, header: big.Header, body: bigBody}.
		want(t, "openapi.json with a large body", http.StatusRequestEntityTooLarge, "too_large")
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	r.decode(t, &doc)
	if !strings.HasPrefix(doc.OpenAPI, "3.0.") || len(doc.Paths) == 0 {
		t.Fatalf("not an OpenAPI 3.0 document: %q, %d paths", doc.OpenAPI, len(doc.Paths))
	}
	type operation struct {
		RequestBody struct {
			Content map[string]struct {
				Example json.RawMessage `json:"example"`
			} `json:"content"`
		} `json:"requestBody"`
		Responses map[string]any `json:"responses"`
	}
	methods := map[string]bool{"get": true, "put": true, "post": true, "delete": true, "options": true, "head": true, "patch": true, "trace": true}
	ops := map[string]map[string]operation{}
	for path, item := range doc.Paths {
		ops[path] = map[string]operation{}
		for method, raw := range item {
			if !methods[method] {
				continue // parameters, summary
			}
			var op operation
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
			ops[path][method] = op
		}
	}

	param := regexp.MustCompile(`:(\w+)`)
	routes := map[string]bool{}
	for _, rt := range app.GetRoutes(true) {
		if !strings.HasPrefix(rt.Path, "/api/v1") || rt.Method == fiber.MethodHead {
			continue
		}
		path := param.ReplaceAllString(rt.Path, "{$1}")
		method := strings.ToLower(rt.Method)
		routes[method+" "+path] = true
		op, ok := ops[path][method]
		if !ok {
			t.Errorf("route %s %s is not in openapi.json", rt.Method, path)
			continue
		}
		if len(op.Responses) == 0 {
			t.Errorf("%s %s: no responses described", rt.Method, path)
		}
	}
	if len(routes) < 5 {
		t.Fatalf("only %d API routes found: %v", len(routes), routes)
	}

	var hook, kept handlers.APIWebhook
	r = c.do(http.MethodPost, "/api/v1/webhooks", `{"url": "https://partner.example.com/hooks", "events": ["drop.created"]}`)
	r.want(t, "register a webhook", http.StatusCreated, "")
	r.decode(t, &hook)
	// Another, which no route deletes, for its deliveries: the drop's
	// drop.created, attempted at once (and refused: no lookups).
	r = c.do(http.MethodPost, "/api/v1/webhooks", `{"url": "https://partner.example.com/kept", "events": ["drop.created"]}`)
	r.want(t, "register a webhook", http.StatusCreated, "")
	r.decode(t, &kept)
	d := c.makeDrop(dropBody("Described", 5))
	var event string
	for deadline := time.Now().Add(5 * time.Second); event == ""; time.Sleep(20 * time.Millisecond) {
		log, err := env.Store.WebhookAttempts(context.Background(), kept.ID, 1, "")
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("no attempt of drop.created: %v", err)
		}
		if len(log.Items) == 1 {
			event = "evt_" + log.Items[0].EventID
		}
	}
	// The client of the claim's example holds a ticket, which the ticket's
	// route answers (the routes run in any order).
	c.claim(d.ID, "user-1234").want(t, "claim", http.StatusCreated, "")
	for path, byMethod := range ops {
		for method, op := range byMethod {
			if !routes[method+" "+path] {
				t.Errorf("openapi.json describes %s %s, which the app does not route", strings.ToUpper(method), path)
			}
			body := ""
			if ex := op.RequestBody.Content["application/json"].Example; len(ex) > 0 {
				body = string(ex)
			}
			if path == "/api/v1/drops" {
				body = dropBody("From the description", 1) // the example's times pass
			}
			id := d.ID
			if path == "/api/v1/webhooks/{id}" {
				id = hook.ID
			} else if strings.HasPrefix(path, "/api/v1/webhooks/") {
				id = kept.ID
			}
			r := c.do(strings.ToUpper(method), strings.NewReplacer("{id}", id, "{client}", "user-1234", "{event}", event).Replace(path), body)
			if r.status == http.StatusNotFound || r.status == http.StatusMethodNotAllowed || r.status >= 500 {
				t.Errorf("%s %s: status %d: %s", strings.ToUpper(method), path, r.status, r.body)
			}
			if _, ok := op.Responses[fmt.Sprint(r.status)]; !ok {
				t.Errorf("%s %s answered %d, which is not described", strings.ToUpper(method), path, r.status)
			}
		}
	}
}

// The race: 2,000 claims from 500 clients (4 each, at once, through HTTP)
// on a drop of 100: exactly 100 tickets, each to a different client, the
// counter at 100, and every other claim refused with a reason (or slowed).
// -short races a fifth of it.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out
// the lock waits of a race like this one.
func TestAPIClaimRace(t *testing.T) {
	qty, clients := 100, 500
	if testing.Short() {
		qty, clients = 20, 100
	}
	env, c := apiShop(t, withRequestTimeout(time.Minute))
	d := c.makeDrop(dropBody("Race", qty))
	env.Counter.Reset()
	res := claimBurst(t, c, d.ID, clients, 4)
	t.Logf("DynamoDB requests of the race: %v", env.Counter.Ops())
	checkSoldOut(t, env.Store, d.ID, qty, res)
}

// A drop above the counter threshold (50 here) splits its count over
// counter items; a race still hands out exactly its quantity, no counter
// above its share. -short races a quarter of it.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out
// the lock waits of a race like this one.
func TestAPIBigDropRace(t *testing.T) {
	qty, threshold, clients := 120, 50, 300
	if testing.Short() {
		qty, threshold, clients = 30, 12, 75
	}
	env := storetest.New(t)
	secret := newAPIKey(t, env.Store, "partner")
	base, _ := startApp(t, env, env.Table, [][]byte{keyA}, withStore(env.Counter, store.WithDropCounterThreshold(threshold)), withRequestTimeout(time.Minute))
	c := newAPIClient(t, base, secret)
	d := c.makeDrop(dropBody("Big", qty))
	stored, err := env.Store.DropConsistent(context.Background(), d.ID)
	if err != nil || len(stored.Counters) < 2 {
		t.Fatalf("a drop of %d over threshold %d has %d counters: %v", qty, threshold, len(stored.Counters), err)
	}
	res := claimBurst(t, c, d.ID, clients, 2)
	checkSoldOut(t, env.Store, d.ID, qty, res)
	stored, _ = env.Store.DropConsistent(context.Background(), d.ID)
	for _, ct := range stored.Counters {
		if ct.Claimed != ct.Quantity {
			t.Errorf("counter %d: %d claimed of %d", ct.N, ct.Claimed, ct.Quantity)
		}
	}
	t.Logf("%d counters: %+v", len(stored.Counters), stored.Counters)
}

// Two replicas (two apps on the same table, each with its own gate) sell
// one drop: still exactly its quantity. Each learns of the other's
// sell-out at its next refresh and answers from memory after that. -short
// races a third of it.
//
// Not parallel: beside other tests' writes, DynamoDB Local times out
// the lock waits of a race like this one.
func TestAPITwoAppsOneDrop(t *testing.T) {
	qty, clients := 50, 300
	if testing.Short() {
		qty, clients = 15, 100
	}
	env := storetest.New(t)
	secret := newAPIKey(t, env.Store, "partner")
	countA, countB := &storetest.Counter{}, &storetest.Counter{}
	baseA, _ := startApp(t, env, env.Table, [][]byte{keyA}, withStore(countA), withRequestTimeout(time.Minute))
	baseB, _ := startApp(t, env, env.Table, [][]byte{keyA}, withStore(countB), withRequestTimeout(time.Minute))
	a, b := newAPIClient(t, baseA, secret), newAPIClient(t, baseB, secret)

	// Both sell the same drop at once; every client claims on both.
	d := a.makeDrop(dropBody("Two replicas", qty))
	var mu sync.Mutex
	res := burstResult{status: map[int]int{}, reasons: map[string]int{}}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range clients {
		for j, cl := range []*apiClient{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				client := fmt.Sprintf("c%03d", i)
				r, err := cl.try(http.MethodPost, "/api/v1/drops/"+d.ID+"/claims", fmt.Sprintf(`{"client": %q}`, client))
				mu.Lock()
				defer mu.Unlock()
				res.add(t, r, err, client, j)
			}()
		}
	}
	close(start)
	wg.Wait()
	checkSoldOut(t, env.Store, d.ID, qty, res)
	t.Logf("tickets sold by A: %d, by B: %d", res.byApp[0], res.byApp[1])

	// A sells a drop that B has only looked at; after B's refresh, B
	// answers sold_out from memory, without a DynamoDB write or read.
	d2 := a.makeDrop(dropBody("Sold by A", 20))
	b.do(http.MethodGet, "/api/v1/drops/"+d2.ID, "").want(t, "B looks at the drop", http.StatusOK, "")
	for i := range 20 {
		r := a.claim(d2.ID, fmt.Sprintf("a%02d", i))
		r.want(t, "claim on A", http.StatusCreated, "")
		if timing := r.header.Get("Server-Timing"); !strings.HasPrefix(timing, "claim;dur=") {
			t.Errorf("a ticket's Server-Timing %q, want its transaction's time", timing)
		}
	}
	a.claim(d2.ID, "a-late").want(t, "A after the last", http.StatusConflict, "sold_out") // its transaction learns it
	late := a.claim(d2.ID, "a-later")
	late.want(t, "A after the sell-out", http.StatusConflict, "sold_out")
	if timing := late.header.Get("Server-Timing"); serverTiming(timing, "wait") || serverTiming(timing, "claim") || !serverTiming(timing, "app") {
		t.Errorf("a refusal from memory has Server-Timing %q, want only its time in the app", timing)
	}
	learned := time.Now()
	for {
		var got handlers.APIDrop
		b.do(http.MethodGet, "/api/v1/drops/"+d2.ID, "").decode(t, &got)
		if got.Status == "sold_out" && got.Claimed == 20 {
			break
		}
		if time.Since(learned) > 5*time.Second {
			t.Fatalf("B still shows %+v 5 s after A sold out", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("B learned of the sell-out after %v", time.Since(learned).Round(time.Millisecond))
	// B's first refusal has it read who holds the drop's tickets (once, in
	// the background); from then on a stranger's claim is refused with no
	// request at all, and a holder's repeat reads its ticket alone.
	b.claim(d2.ID, "b-first").want(t, "claim on B", http.StatusConflict, "sold_out")
	for {
		countB.Reset()
		b.claim(d2.ID, "b-probe").want(t, "claim on B", http.StatusConflict, "sold_out")
		if countB.Ops()["GetItem"] == 0 {
			break
		}
		if time.Since(learned) > 10*time.Second {
			t.Fatalf("B still reads a stranger's ticket 10 s after the sell-out: %v", countB.Ops())
		}
		time.Sleep(20 * time.Millisecond)
	}
	countB.Reset()
	for i := range 10 {
		b.claim(d2.ID, fmt.Sprintf("b%02d", i)).want(t, "claim on B", http.StatusConflict, "sold_out")
	}
	b.claim(d2.ID, "a00").want(t, "a holder's repeat on B", http.StatusOK, "")
	for op, n := range countB.Ops() {
		// Only the background refreshes (drops, keys) read meanwhile, and
		// the holder's repeat reads its ticket: one GetItem, no transaction.
		switch {
		case op == "GetItem" && n == 1:
		case op != "Query":
			t.Errorf("B's claims on a drop it knows sold out cost %d %s", n, op)
		}
	}
	if n := countB.Ops()["Query"]; n > 6 {
		t.Errorf("B made %d Queries while refusing 10 claims from memory", n)
	}
	if n := len(allTickets(t, env.Store, d2.ID)); n != 20 {
		t.Fatalf("%d tickets of the drop of 20", n)
	}
}

// burstResult is what a burst of claims got.
type burstResult struct {
	status  map[int]int
	reasons map[string]int
	won     []string // clients answered 201
	held    []string // clients answered 200: a repeat of a holder's claim
	byApp   [2]int
}

func (res *burstResult) add(t testing.TB, r apiResp, err error, client string, app int) {
	if err != nil {
		t.Errorf("claim %s: %v", client, err)
		return
	}
	res.status[r.status]++
	switch r.status {
	case http.StatusCreated:
		var tk handlers.APITicket
		if json.Unmarshal(r.body, &tk) != nil || tk.Client != "partner:"+client {
			t.Errorf("ticket %s for %s", r.body, client)
		}
		res.won = append(res.won, tk.Client)
		res.byApp[app]++
	case http.StatusOK:
		var tk handlers.APITicket
		if json.Unmarshal(r.body, &tk) != nil || tk.Client != "partner:"+client {
			t.Errorf("held ticket %s for %s", r.body, client)
		}
		res.held = append(res.held, tk.Client)
	case http.StatusConflict, http.StatusTooManyRequests:
		var e handlers.APIErrorBody
		if json.Unmarshal(r.body, &e) != nil || e.Reason == "" {
			t.Errorf("refusal without a reason: %s", r.body)
		}
		res.reasons[e.Reason]++
	default:
		t.Errorf("claim %s: status %d: %s", client, r.status, r.body)
	}
}

// claimBurst sends perClient claims for each of clients at once and
// collects the answers.
func claimBurst(t *testing.T, c *apiClient, dropID string, clients, perClient int) burstResult {
	t.Helper()
	res := burstResult{status: map[int]int{}, reasons: map[string]int{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := make(chan struct{})
	began := time.Now()
	for i := range clients {
		for range perClient {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				client := fmt.Sprintf("c%04d", i)
				r, err := c.try(http.MethodPost, "/api/v1/drops/"+dropID+"/claims", fmt.Sprintf(`{"client": %q}`, client))
				mu.Lock()
				defer mu.Unlock()
				res.add(t, r, err, client, 0)
			}()
		}
	}
	close(start)
	wg.Wait()
	t.Logf("%d claims in %v: %v %v", clients*perClient, time.Since(began).Round(time.Millisecond), res.status, res.reasons)
	return res
}

// checkSoldOut checks a drop raced to its end: exactly qty tickets, each
// to a different client, each one a claim was answered 201 for, and the
// counter at qty.
func checkSoldOut(t *testing.T, st *store.Store, dropID string, qty int, res burstResult) {
	t.Helper()
	if res.status[http.StatusCreated] != qty {
		t.Errorf("%d claims answered 201, want %d: %v", res.status[http.StatusCreated], qty, res.status)
	}
	for reason := range res.reasons {
		switch reason {
		case "already_claimed", "sold_out", "rate_limited":
		default:
			t.Errorf("refused %d times with %q", res.reasons[reason], reason)
		}
	}
	tickets := allTickets(t, st, dropID)
	if len(tickets) != qty {
		t.Errorf("%d tickets, want %d", len(tickets), qty)
	}
	seen := map[string]bool{}
	for _, tk := range tickets {
		if seen[tk.Client] {
			t.Errorf("client %s holds two tickets", tk.Client)
		}
		seen[tk.Client] = true
		if tk.CustomerID != "" {
			t.Errorf("API ticket %s has a customer %q", tk.Client, tk.CustomerID)
		}
	}
	for _, w := range res.won {
		if !seen[w] {
			t.Errorf("client %s was answered 201 but holds no ticket", w)
		}
	}
	for _, h := range res.held {
		if !seen[h] {
			t.Errorf("client %s was answered 200 but holds no ticket", h)
		}
	}
	d, err := st.DropConsistent(context.Background(), dropID)
	if err != nil || d.Claimed != qty {
		t.Errorf("counter %d, want %d (%v)", d.Claimed, qty, err)
	}
}
