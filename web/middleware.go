package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/compress"
	"github.com/gofiber/fiber/v2/middleware/recover"
	"github.com/gofiber/fiber/v2/middleware/requestid"

	"shop/handlers/page"
	"shop/static"
	"shop/store"
	"shop/views"
	"shop/web/paths"
	"shop/web/requestlog"
)

// requestID gives every request an id for its log lines and error page
// (Fiber's requestid, keeping it where page.RequestID looks). An id a proxy
// sent along is kept when it looks like one; anything else is replaced,
// so a client cannot put a long or odd string into every log line.
// shopZone gives every page the shop's time zone, in which it shows times
// (views.Zone).
func shopZone(loc *time.Location) fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.SetUserContext(views.WithZone(c.UserContext(), loc))
		return c.Next()
	}
}

func requestID() fiber.Handler {
	ids := requestid.New(requestid.Config{
		Header:     fiber.HeaderXRequestID,
		ContextKey: page.RequestIDKey,
		Generator: func() string {
			var b [8]byte
			_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
			return hex.EncodeToString(b[:])
		},
	})
	return func(c *fiber.Ctx) error {
		if id := c.Get(fiber.HeaderXRequestID); id != "" && !plausibleRequestID(id) {
			c.Request().Header.Del(fiber.HeaderXRequestID)
		}
		return ids(c)
	}
}

func plausibleRequestID(id string) bool {
	if len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// accessLog logs and counts every request once it is answered, errors
// included (the error handler has run by then).
func accessLog(log *slog.Logger, lines *requestlog.Lines, m *Metrics, errorHandler fiber.ErrorHandler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		start := time.Now()
		if err := c.Next(); err != nil {
			if herr := errorHandler(c, err); herr != nil {
				log.Error("error handler failed", "request_id", page.RequestID(c), "err", herr)
				c.Status(fiber.StatusInternalServerError)
			}
		}
		took := time.Since(start)
		appTiming(c, took)
		route := c.Route().Path
		status := c.Response().StatusCode()
		if status == fiber.StatusNotFound && route == "/" && c.Path() != "/" {
			route = "unmatched" // keep unknown paths out of the metric labels
		}
		m.observeHTTP(route, c.Method(), status, took)
		logRequest(c, log, lines, route, status, took)
		return nil
	}
}

// logRequest writes a request's access log line. The record is made here,
// not by log.Info: Info looks up its caller's frame (no handler of the
// shop's shows it) and boxes every value, a fifth of the line's cost.
func logRequest(c *fiber.Ctx, log *slog.Logger, lines *requestlog.Lines, route string, status int, took time.Duration) {
	ctx := c.UserContext()
	if !log.Enabled(ctx, slog.LevelInfo) {
		return
	}
	size := -1 // a streamed body (the CSV export) is not read just to measure it
	if !c.Response().IsBodyStream() {
		size = len(c.Response().Body())
	}
	if lines != nil {
		// As log.Info does, a failure to write is not the request's.
		_ = lines.Write(requestlog.Line{At: time.Now(), Method: c.Method(), Path: c.Path(), Route: route, ID: page.RequestID(c),
			Status: status, Bytes: size, Took: took})
		return
	}
	r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
	r.AddAttrs(slog.String("method", c.Method()), slog.String("path", c.Path()), slog.String("route", route),
		slog.Int("status", status), slog.Float64("duration_ms", float64(took.Microseconds())/1000),
		slog.Int("bytes", size), slog.String("request_id", page.RequestID(c)))
	// As log.Info does, a handler's failure to write is not the request's.
	_ = log.Handler().Handle(ctx, r)
}

// appTiming adds the answer's whole time in the app to its Server-Timing
// ("app", after any parts a handler gave, such as a claim's wait): what a
// client sees beyond it was spent queued on the connection or the network.
func appTiming(c *fiber.Ctx, took time.Duration) {
	h := &c.Response().Header
	var buf [64]byte
	timing := append(buf[:0], h.Peek(serverTiming)...)
	if len(timing) > 0 {
		timing = append(timing, ", "...)
	}
	timing = append(timing, "app;dur="...)
	timing = strconv.AppendFloat(timing, float64(took.Microseconds())/1000, 'f', 1, 64)
	h.SetBytesV(serverTiming, timing)
}

const serverTiming = "Server-Timing"

// recoverPanic turns a panic into an error for the error handler (a 500)
// with the stack in the log.
func recoverPanic(log *slog.Logger) fiber.Handler {
	return recover.New(recover.Config{
		EnableStackTrace: true,
		StackTraceHandler: func(c *fiber.Ctx, r any) {
			log.Error("panic", "request_id", page.RequestID(c), "panic", r, "stack", string(debug.Stack()))
		},
	})
}

// compressed gzips or brotlis what the client accepts, fast: HTML shrinks to
// a fifth. Streamed exports are left alone (they are written as they are
// read), and so are photos (JPEG and PNG are compressed already). The CSRF
// tokens in a compressed page are masked afresh each time.
func compressed() fiber.Handler {
	return compress.New(compress.Config{
		Level: compress.LevelBestSpeed,
		Next: func(c *fiber.Ctx) bool {
			return strings.HasSuffix(c.Path(), ".csv") || strings.HasPrefix(c.Path(), "/media/photos/")
		},
	})
}

// staticCache lets a browser keep a static file for a year when its URL
// carries the file's current version (paths.Static adds it); any other URL
// of it keeps the hour the file server gives.
func staticCache() fiber.Handler {
	return func(c *fiber.Ctx) error {
		err := c.Next()
		name := strings.TrimPrefix(c.Path(), "/static/")
		if v := c.Query("v"); err == nil && c.Response().StatusCode() == fiber.StatusOK && v != "" && v == static.Version(name) {
			c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
		}
		return err
	}
}

// privateAnswers keeps every answer of a visit with a session (a
// signed-in customer, a flash) or a CSRF token out of shared caches:
// pages, downloads and error pages alike, whatever the handler set. It is
// the one place this is decided, outside the error handler, so that no
// answer of a signed-in request can miss it.
func privateAnswers() fiber.Handler {
	return func(c *fiber.Ctx) error {
		err := c.Next()
		if page.Private(c) {
			c.Set(fiber.HeaderCacheControl, "private, no-store")
		}
		return err
	}
}

// deadline gives the request's context a timeout; the store gives up with
// it. A GET or HEAD also ends when its client hangs up (clientGone): no one
// waits for it. Other methods run to the end, so that what the person asked
// for is done (or not) whole, and shows when they look again.
func deadline(d time.Duration) fiber.Handler {
	return func(c *fiber.Ctx) error {
		limit := d
		if c.Method() == fiber.MethodPost && photoUpload(c.Path()) {
			// Up to 10 MB to receive, decode and resize.
			limit = max(d, photoUploadTimeout)
		}
		// One context for both ends: a client gone cancels it (Canceled,
		// a 499), the limit ends it (DeadlineExceeded, a 503). Only a
		// GET or HEAD is given up when its client leaves: a form's post
		// runs to its end.
		var conn net.Conn
		if c.Method() == fiber.MethodGet || c.Method() == fiber.MethodHead {
			conn = c.Context().Conn()
		}
		ctx := newRequestContext(c.UserContext(), time.Now().Add(limit), conn)
		defer ctx.end()
		c.SetUserContext(ctx)
		return c.Next()
	}
}

// contentSecurityPolicy lets htmx and the pages work with no inline script
// or style at all.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'self'; object-src 'none'"

// securityHeaders are the headers Fiber's helmet sets, with the shop's
// policy: no framing, no referrer beyond the shop, no camera or
// microphone. They are the same on every answer, so they are made once
// and set as they are (helmet built each name afresh on every request).
func securityHeaders() fiber.Handler {
	headers := [][2][]byte{}
	for _, h := range [][2]string{
		{fiber.HeaderXXSSProtection, "0"},
		{fiber.HeaderXContentTypeOptions, "nosniff"},
		{fiber.HeaderXFrameOptions, "DENY"},
		{"Cross-Origin-Embedder-Policy", "require-corp"},
		{"Cross-Origin-Opener-Policy", "same-origin"},
		{"Cross-Origin-Resource-Policy", "same-origin"},
		{"Origin-Agent-Cluster", "?1"},
		{"Referrer-Policy", "same-origin"},
		{"X-DNS-Prefetch-Control", "off"},
		{"X-Download-Options", "noopen"},
		{"X-Permitted-Cross-Domain-Policies", "none"},
		{fiber.HeaderContentSecurityPolicy, contentSecurityPolicy},
		{fiber.HeaderPermissionsPolicy, "camera=(), microphone=(), geolocation=()"},
	} {
		headers = append(headers, [2][]byte{[]byte(h[0]), []byte(h[1])})
	}
	return func(c *fiber.Ctx) error {
		for _, h := range headers {
			c.Response().Header.SetCanonical(h[0], h[1])
		}
		return c.Next()
	}
}

// csrfProtect refuses a state-changing request whose token (form field
// _csrf in the body, or header X-CSRF-Token from htmx) is not the session's.
func csrfProtect() fiber.Handler {
	return func(c *fiber.Ctx) error {
		switch c.Method() {
		case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions:
			return c.Next()
		}
		got := c.Get("X-CSRF-Token")
		if got == "" {
			// The body's field, never the query string's: a token in a URL
			// leaks into access logs, history and Referer headers, and a
			// link can carry it.
			got = page.Field(c, "_csrf")
		}
		if !page.CSRFValid(c, got) {
			return staleToken(c)
		}
		return c.Next()
	}
}

// staleTokenNote is the note on the reloaded page, by its message id.
const staleTokenNote = "web.csrf.reloaded"

// staleToken answers a request whose token is not the visit's. Mostly that
// is a page left open (its session ended, or the person signed in or out
// in another tab), not an attack. A request that can only come from the
// shop's own pages gets its page back with a fresh token and a note saying
// nothing was done: htmx sends HX-Request, which a form on another site
// cannot (nor can a script there, without CORS), and it reloads the page
// on HX-Refresh (static/js/shop.js keeps what was typed); a plain form of
// ours says Sec-Fetch-Site: same-origin and is sent back to its page.
// Anything else is refused as before.
func staleToken(c *fiber.Ctx) error {
	refused := page.Err(fiber.StatusForbidden, "web.csrf.refused")
	switch {
	case c.Get("HX-Request") == "true":
		page.Flash(c, views.FlashInfo, page.T(c, staleTokenNote))
		c.Set("HX-Refresh", "true")
		c.Set("Shop-Page-Expired", "true")
		return c.SendStatus(fiber.StatusForbidden)
	case c.Get("Sec-Fetch-Site") == "same-origin":
		back, ok := sameSitePath(c.Get(fiber.HeaderReferer), c.Hostname())
		if !ok {
			return refused
		}
		page.Flash(c, views.FlashInfo, page.T(c, staleTokenNote))
		return c.Redirect(back, fiber.StatusSeeOther)
	}
	return refused
}

// sameSitePath is the path and query of a Referer on this host, to send a
// person back to; ok is false for any other.
func sameSitePath(referer, host string) (string, bool) {
	u, err := url.Parse(referer)
	if err != nil || u.Host != host || !strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") {
		return "", false
	}
	if u.RawQuery != "" {
		return u.Path + "?" + u.RawQuery, true
	}
	return u.Path, true
}

// StaffCheck reads the customer behind a session, so that a demoted staff
// member loses /admin at once rather than when the session ends.
type StaffCheck interface {
	Customer(ctx context.Context, id string) (store.Customer, error)
	// Location is the shop's time zone, which the console shows.
	Location() *time.Location
}

// requireStaff keeps /admin for staff: a visitor is sent to sign in, a
// customer gets 403. The role is read from the customer record on every
// request, not trusted from the session: a demoted or deactivated person
// is refused at once (their sessions are ended too), and someone made
// staff while signed in gets in without signing in again. The role read
// is what the request's Viewer says (page.ConfirmStaff), so the owner's
// buttons and checks follow the record too.
func requireStaff(st StaffCheck) fiber.Handler {
	return func(c *fiber.Ctx) error {
		v := page.Viewer(c)
		if !v.SignedIn() {
			if c.Method() != fiber.MethodGet {
				return page.Err(fiber.StatusForbidden, "web.staff.sign_in")
			}
			return page.Redirect(c, paths.LoginThen(c.OriginalURL()))
		}
		cust, err := st.Customer(c.UserContext(), v.ID)
		if errors.Is(err, store.ErrNotFound) || (err == nil && (!cust.Role.Staff() || cust.Deactivated)) {
			return page.Err(fiber.StatusForbidden, "web.staff.only")
		}
		if err != nil {
			return err
		}
		page.ConfirmStaff(c, cust)
		page.ShowZone(c, st.Location())
		return c.Next()
	}
}

// loopbackOnly keeps an endpoint (the metrics) for this machine: a
// Prometheus beside the shop, or an SSH tunnel.
func loopbackOnly() fiber.Handler {
	return func(c *fiber.Ctx) error {
		if ip := net.ParseIP(page.ClientAddress(c)); ip == nil || !ip.IsLoopback() {
			return fiber.ErrNotFound
		}
		return c.Next()
	}
}
