package page

import (
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// Vary names each header once, in the order added, after what the answer
// varies on already, as c.Vary does.
func TestVaryNamesEachHeaderOnce(t *testing.T) {
	app := fiber.New()
	for _, tc := range []struct {
		before string
		names  []string
		want   string
	}{
		{"", []string{"HX-Request"}, "HX-Request"},
		{"", []string{"Accept-Language", "HX-Request", "HX-Request"}, "Accept-Language, HX-Request"},
		{"Accept-Encoding", []string{"HX-Request"}, "Accept-Encoding, HX-Request"},
		{"HX-Request,Accept-Encoding", []string{"Accept-Encoding", "HX-Request"}, "HX-Request,Accept-Encoding"},
		{"HX-Requested", []string{"HX-Request"}, "HX-Requested, HX-Request"},
	} {
		c := app.AcquireCtx(&fasthttp.RequestCtx{})
		if tc.before != "" {
			c.Set(fiber.HeaderVary, tc.before)
		}
		for _, n := range tc.names {
			Vary(c, n)
		}
		if got := string(c.Response().Header.Peek(fiber.HeaderVary)); got != tc.want {
			t.Errorf("%q then %v: Vary %q, want %q", tc.before, tc.names, got, tc.want)
		}
		app.ReleaseCtx(c)
	}
}
