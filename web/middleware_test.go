package web

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/helmet"

	"shop/handlers/page"
)

// A panic in a handler is a 500 with the request's id, and the stack goes
// to the log, not to the visitor.
func TestPanicIsA500WithTheStackInTheLog(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	app := fiber.New(fiber.Config{ErrorHandler: errorHandler(log, nil)})
	app.Use(requestID(), recoverPanic(log))
	app.Get("/boom", func(c *fiber.Ctx) error { panic("the scale broke") })

	resp, err := app.Test(httptest.NewRequest("GET", "/boom", nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	id := resp.Header.Get(fiber.HeaderXRequestID)
	if resp.StatusCode != fiber.StatusInternalServerError || id == "" {
		t.Fatalf("status %d, request id %q", resp.StatusCode, id)
	}
	if strings.Contains(string(body), "the scale broke") || strings.Contains(string(body), "goroutine") {
		t.Fatalf("the page leaks the panic: %s", body)
	}
	if l := logs.String(); !strings.Contains(l, "request_id="+id) || !strings.Contains(l, "the scale broke") || !strings.Contains(l, "middleware_test.go") {
		t.Fatalf("the log lacks the panic, its stack or the request id:\n%s", l)
	}
}

// A proxy's request id is kept; a client's odd one is replaced.
func TestRequestIDFromAProxyIsKeptWhenItLooksLikeOne(t *testing.T) {
	app := fiber.New()
	app.Use(requestID())
	app.Get("/", func(c *fiber.Ctx) error { return c.SendString(page.RequestID(c)) })
	for _, tc := range []struct {
		sent string
		kept bool
	}{
		{"", false},
		{"lb-7f3a9c.1_2", true},
		{"<script>alert(1)</script>", false},
		{strings.Repeat("a", 65), false},
		{"id with spaces", false},
	} {
		req := httptest.NewRequest("GET", "/", nil)
		if tc.sent != "" {
			req.Header.Set(fiber.HeaderXRequestID, tc.sent)
		}
		resp, err := app.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		got := resp.Header.Get(fiber.HeaderXRequestID)
		if string(body) != got || got == "" {
			t.Errorf("sent %q: header %q, handler saw %q", tc.sent, got, body)
		}
		if (got == tc.sent) != tc.kept {
			t.Errorf("sent %q: got %q, kept = %v, want %v", tc.sent, got, got == tc.sent, tc.kept)
		}
	}
}

// Every answer says its time in the app in Server-Timing, after the parts
// its handler gave (a claim's wait), errors included: what a client sees
// beyond it was spent on the connection.
func TestServerTimingEndsWithTheAppsTime(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	errs := errorHandler(log, nil)
	app := fiber.New(fiber.Config{ErrorHandler: errs})
	app.Use(requestID(), accessLog(log, nil, NewMetrics(), errs))
	app.Get("/plain", func(c *fiber.Ctx) error { return c.SendString("ok") })
	app.Get("/waited", func(c *fiber.Ctx) error {
		c.Set("Server-Timing", "wait;dur=3.0")
		return fiber.ErrConflict
	})
	for path, want := range map[string]string{"/plain": "app;dur=", "/waited": "wait;dur=3.0, app;dur="} {
		resp, err := app.Test(httptest.NewRequest("GET", path, nil), -1)
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Header.Get("Server-Timing"); !strings.HasPrefix(got, want) {
			t.Errorf("%s: Server-Timing %q, want it to begin %q", path, got, want)
		}
	}
}

// The security headers set once are those Fiber's helmet set with the
// shop's policy, name for name and value for value.
func TestSecurityHeadersAreHelmetsWithTheShopsPolicy(t *testing.T) {
	headersOf := func(h fiber.Handler) http.Header {
		app := fiber.New()
		app.Use(h)
		app.Get("/", func(c *fiber.Ctx) error { return c.SendString("ok") })
		resp, err := app.Test(httptest.NewRequest("GET", "/", nil), -1)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"Content-Type", "Content-Length", "Date"} {
			resp.Header.Del(k)
		}
		return resp.Header
	}
	want := headersOf(helmet.New(helmet.Config{
		ContentSecurityPolicy:   contentSecurityPolicy,
		XFrameOptions:           "DENY",
		ReferrerPolicy:          "same-origin",
		CrossOriginOpenerPolicy: "same-origin",
		PermissionPolicy:        "camera=(), microphone=(), geolocation=()",
	}))
	if got := headersOf(securityHeaders()); !reflect.DeepEqual(got, want) {
		t.Fatalf("security headers:\n got %v\nwant %v", got, want)
	}
}
