package jobs

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// Where the deliverer sends mail: an SMTP server's URL, read and checked.

// SMTPSecurity is how the connection to the SMTP server is protected.
type SMTPSecurity int

const (
	SMTPImplicitTLS           SMTPSecurity = iota + 1 // smtps://: TLS from the first byte
	SMTPStartTLS                                      // smtp://: STARTTLS, required (the default)
	SMTPStartTLSOpportunistic                         // smtp://…?starttls=opportunistic: STARTTLS if offered, else plain
	SMTPNoTLS                                         // smtp://…?starttls=none: plain text (a local test server)
)

func (s SMTPSecurity) String() string {
	switch s {
	case SMTPImplicitTLS:
		return "tls"
	case SMTPStartTLS:
		return "starttls"
	case SMTPStartTLSOpportunistic:
		return "opportunistic"
	case SMTPNoTLS:
		return "none"
	}
	return "unknown"
}

// Default SMTP ports: submission over TLS (RFC 8314) and with STARTTLS.
const (
	DefaultSMTPSPort = 465
	DefaultSMTPPort  = 587
)

// SMTPConfig is where and how the deliverer sends mail. ParseSMTPURL makes
// one from a URL.
type SMTPConfig struct {
	Host     string // a DNS name (lower case) or an IP address, IPv6 without brackets
	Port     int
	Username string // empty: no SMTP AUTH
	Password string
	Security SMTPSecurity
}

// ParseSMTPURL reads an SMTP server's URL:
//
//	smtps://user:pass@host:465                     TLS from the start (port 465 if none is given)
//	smtp://user:pass@host:587                      STARTTLS, required (port 587 if none is given)
//	smtp://user:pass@host:587?starttls=opportunistic  STARTTLS if the server offers it
//	smtp://127.0.0.1:2525?starttls=none            no TLS (a local test server)
//
// User and password are optional (no SMTP AUTH without them) and must be
// percent-encoded where they hold reserved characters (@ : / ? # %). Errors
// never repeat the password.
func ParseSMTPURL(raw string) (SMTPConfig, error) {
	fail := func(err error) (SMTPConfig, error) {
		return SMTPConfig{}, fmt.Errorf("SMTP URL: %v", err)
	}
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return fail(errors.New("empty; want smtps://user:pass@host:465 or smtp://user:pass@host:587"))
	}
	u, err := url.Parse(raw)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // url.Error repeats the whole URL, password included
		}
		return fail(err)
	}
	var c SMTPConfig
	if c.Security, c.Port, err = smtpScheme(u); err != nil {
		return fail(err)
	}
	if c.Username, c.Password, err = smtpUser(u); err != nil {
		return fail(err)
	}
	if c.Host, err = smtpHost(u); err != nil {
		return fail(err)
	}
	if c.Port, err = smtpPort(u, c.Port); err != nil {
		return fail(err)
	}
	if c.Security, err = smtpStartTLS(u, c.Security); err != nil {
		return fail(err)
	}
	return c, nil
}

// smtpScheme checks the URL's shape (scheme://host, no path or fragment)
// and says what its scheme means: the security and the default port.
func smtpScheme(u *url.URL) (SMTPSecurity, int, error) {
	var sec SMTPSecurity
	var port int
	switch u.Scheme {
	case "smtps":
		sec, port = SMTPImplicitTLS, DefaultSMTPSPort
	case "smtp":
		sec, port = SMTPStartTLS, DefaultSMTPPort
	case "":
		return 0, 0, errors.New("no scheme; want smtps://host (TLS) or smtp://host (STARTTLS)")
	default:
		return 0, 0, fmt.Errorf("scheme %q is not smtps or smtp", u.Scheme)
	}
	if u.Opaque != "" {
		return 0, 0, fmt.Errorf("want %s://host, with the two slashes", u.Scheme)
	}
	if u.Path != "" && u.Path != "/" {
		return 0, 0, fmt.Errorf("unexpected path %q", u.Path)
	}
	if u.Fragment != "" {
		return 0, 0, fmt.Errorf("unexpected fragment %q", u.Fragment)
	}
	return sec, port, nil
}

// smtpUser is the URL's user and password for SMTP AUTH (none without a
// user). The errors never repeat the password.
func smtpUser(u *url.URL) (user, password string, err error) {
	if u.User == nil {
		return "", "", nil
	}
	user = u.User.Username()
	password, _ = u.User.Password() // a user without one: AUTH with an empty password
	if user == "" {
		return "", "", errors.New("empty user name before @")
	}
	if strings.ContainsFunc(user, unicode.IsControl) {
		return "", "", errors.New("the user name holds a control character")
	}
	if strings.ContainsFunc(password, unicode.IsControl) {
		return "", "", errors.New("the password holds a control character")
	}
	return user, password, nil
}

// smtpPort is the URL's port, or def (the scheme's) when it gives none.
func smtpPort(u *url.URL, def int) (int, error) {
	p := u.Port()
	if p == "" {
		if strings.HasSuffix(u.Host, ":") {
			return 0, fmt.Errorf("empty port after %q; leave out the colon for the default port", u.Host)
		}
		return def, nil
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("port %q is not a number from 1 to 65535", p)
	}
	return n, nil
}

// smtpStartTLS reads the query's one parameter, starttls, which changes how
// an smtp:// connection is protected; sec is the scheme's.
func smtpStartTLS(u *url.URL, sec SMTPSecurity) (SMTPSecurity, error) {
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return 0, fmt.Errorf("query: %v", err)
	}
	for key, vals := range q {
		if key != "starttls" {
			return 0, fmt.Errorf("unknown query parameter %q (the only one is starttls)", key)
		}
		if len(vals) != 1 {
			return 0, fmt.Errorf("starttls is given %d times", len(vals))
		}
		if sec == SMTPImplicitTLS {
			return 0, errors.New("starttls is for smtp://; smtps:// is TLS from the start")
		}
		switch vals[0] {
		case "required":
			sec = SMTPStartTLS
		case "opportunistic":
			sec = SMTPStartTLSOpportunistic
		case "none":
			sec = SMTPNoTLS
		default:
			return 0, fmt.Errorf("starttls=%q: want required, opportunistic or none", vals[0])
		}
	}
	return sec, nil
}

// smtpHost checks the URL's host: an IP address (IPv6 in brackets) or a
// DNS name.
func smtpHost(u *url.URL) (string, error) {
	h := u.Hostname()
	if h == "" {
		return "", errors.New("no host; want smtps://host or smtp://host")
	}
	if strings.HasPrefix(u.Host, "[") || strings.Contains(h, ":") {
		a, err := netip.ParseAddr(h)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", fmt.Errorf("host %q is not an IPv6 address", h)
		}
		return a.String(), nil
	}
	h = strings.ToLower(h)
	if len(h) > 253 {
		return "", fmt.Errorf("host name is %d characters long, the most is 253", len(h))
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" || len(label) > 63 || strings.ContainsFunc(label, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_')
		}) {
			return "", fmt.Errorf("host %q is not a host name or IP address", h)
		}
	}
	return h, nil
}

// Addr is host:port.
func (c SMTPConfig) Addr() string { return net.JoinHostPort(c.Host, strconv.Itoa(c.Port)) }

// URL is the configuration as a URL that ParseSMTPURL reads back, password
// included: not for logs (String is).
func (c SMTPConfig) URL() string { return c.url().String() }

// String is the URL with the password masked.
func (c SMTPConfig) String() string { return c.url().Redacted() }

func (c SMTPConfig) url() *url.URL {
	u := &url.URL{Scheme: "smtp", Host: c.Addr()}
	switch c.Security {
	case SMTPImplicitTLS:
		u.Scheme = "smtps"
	case SMTPStartTLSOpportunistic, SMTPNoTLS:
		u.RawQuery = "starttls=" + c.Security.String()
	}
	switch {
	case c.Username != "" && c.Password != "":
		u.User = url.UserPassword(c.Username, c.Password)
	case c.Username != "":
		u.User = url.User(c.Username)
	}
	return u
}
