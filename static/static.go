// Package static holds the CSS and images, and the files copied from npm
// packages at build time (htmx, Pico CSS) into vendor/, embedded in the binary.
package static

import "embed"

// FS is served under /static.
//
//go:embed css vendor
var FS embed.FS
