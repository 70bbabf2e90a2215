package web

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
)

// parseTrustedProxies reads the proxies whose header is believed: addresses
// or CIDRs.
func parseTrustedProxies(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q: not an address or CIDR", s)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// clientAddress decides the address a request counts under (the sign-in
// and sign-up limits, the metrics' loopback check): the peer's own, or,
// from a trusted proxy, the right-most address of the proxy header that is
// not a trusted proxy, since everything left of it the client wrote
// itself. A header that does not parse is refused. A trusted proxy's
// request without the header counts under the proxy's address.
func clientAddress(header string, trusted []netip.Prefix) fiber.Handler {
	isTrusted := func(a netip.Addr) bool {
		for _, p := range trusted {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	return func(c *fiber.Ctx) error {
		peer, _ := netip.AddrFromSlice(c.Context().RemoteIP())
		addr := peer.Unmap()
		if header != "" && isTrusted(addr) {
			var hops []string
			for _, v := range c.Request().Header.PeekAll(header) {
				hops = append(hops, strings.Split(string(v), ",")...)
			}
			for i := len(hops) - 1; i >= 0; i-- {
				hop, err := parseHop(hops[i])
				if err != nil {
					return fiber.NewError(fiber.StatusBadRequest, "The "+header+" header does not hold an address.")
				}
				addr = hop
				if !isTrusted(hop) {
					break
				}
			}
		}
		c.Locals(page.ClientAddressKey, addressKey(addr))
		return c.Next()
	}
}

// parseHop reads one entry of a forwarding header: an address, maybe with
// a port.
func parseHop(s string) (netip.Addr, error) {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), nil
	}
	ap, err := netip.ParseAddrPort(s)
	if err != nil {
		return netip.Addr{}, err
	}
	return ap.Addr().Unmap(), nil
}

// addressKey is what a client counts under: an IPv4 address, or an IPv6
// client's /64 (one host is usually given the whole /64, so counting its
// addresses apart would give it 2^64 buckets).
func addressKey(a netip.Addr) string {
	if a.Is6() && !a.IsLoopback() {
		return netip.PrefixFrom(a, 64).Masked().String()
	}
	return a.String()
}
