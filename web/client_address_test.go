package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
)

// What a request counts under, behind proxies or not. (fiber's app.Test
// connects from 0.0.0.0, which stands for the proxy here.)
func TestClientAddressIsTheRightMostUntrustedHop(t *testing.T) {
	t.Parallel()
	serve := func(header string, trusted ...string) *fiber.App {
		prefixes, err := parseTrustedProxies(trusted)
		if err != nil {
			t.Fatal(err)
		}
		app := fiber.New()
		app.Use(clientAddress(header, prefixes))
		app.Get("/", func(c *fiber.Ctx) error { return c.SendString(page.ClientAddress(c)) })
		return app
	}
	behindProxy := serve("X-Forwarded-For", "0.0.0.0", "192.168.0.0/16")
	for _, tc := range []struct {
		name    string
		app     *fiber.App
		headers []string
		want    string
		status  int
	}{
		{"a client's own hops are ignored", behindProxy, []string{"10.9.9.9, 10.0.0.2"}, "10.0.0.2", 200},
		{"whatever the client wrote before", behindProxy, []string{"0.1.1.1, 10.0.0.2"}, "10.0.0.2", 200},
		{"headers on several lines are one list", behindProxy, []string{"0.1.1.1", "10.0.0.3"}, "10.0.0.3", 200},
		{"a second trusted proxy is skipped", behindProxy, []string{"7.7.7.7, 1.2.3.4, 192.168.0.5"}, "1.2.3.4", 200},
		{"a port is dropped", behindProxy, []string{"1.2.3.4:5678"}, "1.2.3.4", 200},
		{"IPv6 counts by its /64", behindProxy, []string{"2001:db8:1:2:3:4:5:6"}, "2001:db8:1:2::/64", 200},
		{"another address of that /64", behindProxy, []string{"[2001:db8:1:2::9]:443"}, "2001:db8:1:2::/64", 200},
		{"IPv4 mapped in IPv6 is IPv4", behindProxy, []string{"::ffff:1.2.3.4"}, "1.2.3.4", 200},
		{"no header: the proxy's own address", behindProxy, nil, "0.0.0.0", 200},
		{"all hops trusted: the left-most", behindProxy, []string{"192.168.0.9, 192.168.0.5"}, "192.168.0.9", 200},
		{"garbage is refused", behindProxy, []string{"1.2.3.4, not-an-address"}, "", 400},
		{"an empty hop is refused", behindProxy, []string{"1.2.3.4,"}, "", 400},
		{"a peer that is no trusted proxy is believed alone", serve("X-Forwarded-For", "10.0.0.1"), []string{"1.2.3.4"}, "0.0.0.0", 200},
		{"no proxy header configured", serve(""), []string{"1.2.3.4"}, "0.0.0.0", 200},
	} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		for _, h := range tc.headers {
			req.Header.Add("X-Forwarded-For", h)
		}
		resp, err := tc.app.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != tc.status || (tc.status == 200 && string(body) != tc.want) {
			t.Errorf("%s: %d %q, want %d %q", tc.name, resp.StatusCode, body, tc.status, tc.want)
		}
	}
	if _, err := parseTrustedProxies([]string{"10.0.0.0/8", "nonsense"}); err == nil {
		t.Error("a trusted proxy that is no address was taken")
	}
}
