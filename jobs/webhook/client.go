package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"
)

// No SSRF: an endpoint's URL is the integration's to choose, so the shop
// must not be made to POST to itself, its network or the cloud's metadata
// service. The check is made on the address actually dialled, in the
// dialer's Control hook, so a name that resolves to a public address when
// it is registered and to 127.0.0.1 when it is called is refused all the
// same; no proxy is used and redirects are not followed.

// ErrRefusedAddress is a dial to an address that is not public.
var ErrRefusedAddress = errors.New("not a public address")

// Timeout is how long one delivery may take, answer included.
const Timeout = 10 * time.Second

// ClientConfig configures NewClient; the zero value is production's.
type ClientConfig struct {
	// AllowPrivate lets http:// URLs and every address through
	// (SHOP_WEBHOOK_ALLOW_PRIVATE, for development).
	AllowPrivate bool
	// Lookup resolves a host's addresses (default net.DefaultResolver).
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	// Allowed are addresses dialled even though they are not public: a
	// test's own server.
	Allowed []netip.AddrPort
	// RootCAs are the certificates trusted (default the system's).
	RootCAs *x509.CertPool
	// Timeout bounds a delivery (default Timeout).
	Timeout time.Duration
}

// blocked are the ranges that are not public beyond what netip's
// predicates say (loopback, RFC 1918 and fc00::/7, link-local,
// multicast, unspecified).
var blocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, and the broadcast address
	netip.MustParsePrefix("fec0::/10"),      // site-local (deprecated)
	netip.MustParsePrefix("100::/64"),       // discard-only
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
	netip.MustParsePrefix("fd00:ec2::/32"),  // AWS's metadata service (fd00:ec2::254; also in fc00::/7)
	netip.MustParsePrefix("2002::/16"),      // 6to4: an IPv4 address inside
	netip.MustParsePrefix("2001::/32"),      // Teredo: an IPv4 address inside
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
}

// embedsIPv4 are IPv6 ranges whose last 32 bits are an IPv4 address that
// a gateway or stack reaches: that address must be public too.
var embedsIPv4 = []netip.Prefix{
	netip.MustParsePrefix("::ffff:0:0/96"), // IPv4-mapped (Unmap handles it; kept for clarity)
	netip.MustParsePrefix("::/96"),         // IPv4-compatible (deprecated)
	netip.MustParsePrefix("64:ff9b::/96"),  // NAT64
}

// Public reports whether a may be dialled for a webhook: not loopback,
// private (RFC 1918, fc00::/7), carrier-grade NAT, link-local (the
// metadata address 169.254.169.254 among them), multicast, unspecified or
// reserved, in any IPv4-mapped or -embedding IPv6 form either.
func Public(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range blocked {
		if p.Contains(a) {
			return false
		}
	}
	if a.Is6() {
		for _, p := range embedsIPv4 {
			if p.Contains(a) {
				b := a.As16()
				return Public(netip.AddrFrom4([4]byte(b[12:])))
			}
		}
	}
	return true
}

// CheckURL says what is wrong with an endpoint's URL when it is
// registered: https (http too with allowPrivate), a host, no user or
// fragment, and no host that is plainly not public (an address literal
// that is not, localhost). A name is checked again each time it is
// dialled, as it may resolve elsewhere later.
func CheckURL(raw string, allowPrivate bool) error {
	u, err := url.Parse(raw)
	switch {
	case len(raw) > 2000:
		return errors.New("the URL is longer than 2,000 characters")
	case err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "":
		return errors.New("not an absolute URL like https://example.com/hooks")
	case u.Scheme == "http" && !allowPrivate:
		return errors.New("the URL must be https://")
	case u.Scheme != "https" && u.Scheme != "http":
		return errors.New("the URL must be https://")
	case u.User != nil:
		return errors.New("the URL may not carry a user or password")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return errors.New("the URL may not have a fragment (#)")
	case allowPrivate:
		return nil
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return errors.New("the URL's host is not a public address")
	}
	if a, err := netip.ParseAddr(host); err == nil && !Public(a) {
		return errors.New("the URL's host is not a public address")
	}
	return nil
}

// NewClient is the HTTP client deliveries go out with: no proxy, no
// redirects followed, at most cfg.Timeout per delivery, and unless
// AllowPrivate only public addresses (or cfg.Allowed) dialled.
func NewClient(cfg ClientConfig) *http.Client {
	if cfg.Timeout <= 0 {
		cfg.Timeout = Timeout
	}
	lookup := cfg.Lookup
	if lookup == nil {
		lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	dialer := &net.Dialer{Timeout: cfg.Timeout, Control: func(network, address string, _ syscall.RawConn) error {
		return checkDial(address, cfg.AllowPrivate, cfg.Allowed)
	}}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		addrs := []netip.Addr{}
		if a, err := netip.ParseAddr(host); err == nil {
			addrs = append(addrs, a)
		} else if addrs, err = lookup(ctx, host); err != nil {
			return nil, fmt.Errorf("resolve %s: %w", host, err)
		}
		var errs []error
		for _, a := range addrs {
			c, err := dialer.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
			if err == nil {
				return c, nil
			}
			errs = append(errs, err)
		}
		if len(errs) == 0 {
			return nil, fmt.Errorf("resolve %s: no address", host)
		}
		return nil, errors.Join(errs...)
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           dial,
		TLSClientConfig:       &tls.Config{RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   cfg.Timeout,
		ResponseHeaderTimeout: cfg.Timeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{Transport: tr, Timeout: cfg.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// checkDial is the Control hook's check of the address being dialled.
func checkDial(address string, allowPrivate bool, allowed []netip.AddrPort) error {
	if allowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("dial %s: %w", address, ErrRefusedAddress)
	}
	ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	if slices.Contains(allowed, ap) || Public(ap.Addr()) {
		return nil
	}
	return fmt.Errorf("dial %s: %w", address, ErrRefusedAddress)
}
