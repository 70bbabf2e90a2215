package pdfdoc

import (
	"sync"

	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
)

// NanumGothic has Hangul and most Latin, but not every letter the shop's
// words use (Swedish å is not in it). A rune it lacks is written in Go's
// own font (golang.org/x/image's goregular, BSD-licensed, Latin, Greek and
// Cyrillic), so "Borås" prints whole: a cell's text is split into runs of
// one font each.

const fallback = "goregular"

type fonts struct {
	nanum, gofont *sfnt.Font
	mu            sync.Mutex
	has           map[rune]bool // whether NanumGothic has a rune, once asked
}

var parsed = sync.OnceValues(func() (*fonts, error) {
	n, err := sfnt.Parse(nanumGothic)
	if err != nil {
		return nil, err
	}
	g, err := sfnt.Parse(goregular.TTF)
	if err != nil {
		return nil, err
	}
	return &fonts{nanum: n, gofont: g, has: map[rune]bool{}}, nil
})

// inNanum says whether NanumGothic draws r (a rune no font has counts as
// NanumGothic's: it prints its box).
func (f *fonts) inNanum(r rune) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	has, ok := f.has[r]
	if !ok {
		var b sfnt.Buffer
		i, err := f.nanum.GlyphIndex(&b, r)
		has = err == nil && i != 0
		if !has {
			j, err := f.gofont.GlyphIndex(&b, r)
			has = err != nil || j == 0 // Go's font lacks it too
		}
		f.has[r] = has
	}
	return has
}

// run is text in one font.
type run struct {
	family, text string
}

// runs splits s where its font changes.
func (f *fonts) runs(s string) []run {
	var out []run
	for _, r := range s {
		fam := family
		if !f.inNanum(r) {
			fam = fallback
		}
		if n := len(out); n > 0 && out[n-1].family == fam {
			out[n-1].text += string(r)
			continue
		}
		out = append(out, run{fam, string(r)})
	}
	return out
}
