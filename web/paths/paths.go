// Package paths builds the shop's URLs: the one place a link, a form's
// action, an htmx request or a redirect gets its path, and the one place
// each route's pattern is written. web/routes.go registers its routes with
// these patterns (Order's route is OrderPattern, "/orders/:id"), and a
// builder fills the same pattern (Order(id)), so a link cannot lead
// elsewhere than its route. web/paths_test.go checks that every pattern is
// routed, every route is a pattern of here, and what a builder adds to its
// pattern (a query, a file name) still meets the route.
//
// It imports only the standard library and the embedded static files (for
// their versions), so every package may use it.
//
// Ids go through url.PathEscape (a valid id needs none, but a link must not
// change shape whatever it is given); queries through url.Values.
//
// A pattern is written as Fiber reads it: a parameter is a whole segment,
// ":name", and named as its handler reads it (c.Params("name")).
package paths

import (
	"net/url"
	"strings"

	"shop/static"
)

// WithQuery returns path with the query parameters (name, value pairs) set,
// skipping empty values: a "show more" link carries only what it needs.
func WithQuery(path string, kv ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			q.Set(kv[i], kv[i+1])
		}
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// More is the "show more" link of a list at path: the next page after
// cursor, with the list's other parameters (name, value pairs); "" when
// there is no next page, so the link is not drawn.
func More(path, cursor string, kv ...string) string {
	if cursor == "" {
		return ""
	}
	return WithQuery(path, append(kv, "after", cursor)...)
}

// Static is a file of the static/ directory, name relative to it
// ("css/shop.css"), with its content's hash as ?v= (web serves such a URL
// as immutable).
func Static(name string) string {
	if v := static.Version(name); v != "" {
		return "/static/" + name + "?v=" + v
	}
	return "/static/" + name
}

// The machine endpoints: health (the process serves and has its engine),
// readiness (DynamoDB answers) and the metrics, from this machine only.
const (
	Healthz = "/healthz"
	Readyz  = "/readyz"
	Metrics = "/metrics"
)

// fill puts the values, escaped, in the parameters of a route's pattern,
// in order: fill("/orders/:id/returns/:rid", "o1", "r1") is
// "/orders/o1/returns/r1". A builder gives as many values as its pattern
// has parameters (web/paths_test.go checks each call); a mismatch is a
// bug, and panics.
func fill(pattern string, values ...string) string {
	var b strings.Builder
	b.Grow(len(pattern) + 16)
	rest := pattern
	for rest != "" {
		i := strings.Index(rest, "/:")
		if i < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i+1])
		rest = rest[i+2:]
		if len(values) == 0 {
			panic("paths: too few values for " + pattern)
		}
		b.WriteString(url.PathEscape(values[0]))
		values = values[1:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			rest = rest[j:]
		} else {
			rest = ""
		}
	}
	if len(values) > 0 {
		panic("paths: too many values for " + pattern)
	}
	return b.String()
}
