// Package paths builds the shop's URLs: the one place a link, a form's
// action, an htmx request or a redirect gets its path. web/app.go registers
// the routes they lead to, and web/paths_test.go checks that every builder
// here meets a route of the right method.
//
// It imports only the standard library and the embedded static files (for
// their versions), so every package may use it.
//
// Ids go through url.PathEscape (a valid id needs none, but a link must not
// change shape whatever it is given); queries through url.Values.
package paths

import (
	"net/url"

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

// under joins a base path and escaped segments: under("/orders", id) is
// "/orders/<id>".
func under(base string, segments ...string) string {
	for _, s := range segments {
		base += "/" + url.PathEscape(s)
	}
	return base
}
