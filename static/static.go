// Package static holds the CSS, the shop's script, and the files copied from npm
// packages at build time (htmx, Pico CSS) into vendor/, embedded in the binary.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"sync"
)

// FS is served under /static.
//
//go:embed css js vendor favicon.svg
var FS embed.FS

var versions = sync.OnceValue(func() map[string]string {
	v := map[string]string{}
	// The files are embedded: walking them cannot fail but for a bug.
	_ = fs.WalkDir(FS, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := FS.ReadFile(name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		v[name] = hex.EncodeToString(sum[:6])
		return nil
	})
	return v
})

// Version is a hash of the file's content ("" for no such file): its URL
// carries it, so a browser may keep the file for a year and still gets the
// new one the moment it changes.
func Version(name string) string { return versions()[name] }
