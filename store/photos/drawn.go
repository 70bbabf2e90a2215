package photos

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math"
)

// The drawn pictures' size: 4:3, like most product photos.
const (
	DrawnWidth  = 640
	DrawnHeight = 480
)

// drawingVersion is part of every seed: a change to Draw must change it, so
// that the year-long cached pictures under the old names are not wrong.
const drawingVersion = "1"

// DrawnSeed names the picture the shop draws for a product without a photo:
// 16 hex digits of a hash of its category and name (and the drawing's
// version). The picture is a function of the category and the seed alone,
// so it is served with no read of the product.
func DrawnSeed(category, name string) string {
	h := fnv.New64a()
	for _, s := range []string{drawingVersion, category, name} {
		_, _ = h.Write([]byte(s)) // a hash's Write never fails
		_, _ = h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ValidSeed tells whether s could be a DrawnSeed.
func ValidSeed(s string) bool {
	_, err := hex.DecodeString(s)
	return len(s) == 16 && err == nil
}

// categoryHues are the demo categories' colours (those of their swatches);
// another category gets a hue from its name.
var categoryHues = map[string]float64{"coffee": 25, "books": 212, "music": 275, "outdoor": 150, "kitchen": 355}

// Draw is the SVG picture of a seed in the colours of a category: a
// background and a few soft shapes, each drawn from the seed's bits.
func Draw(category, seed string) ([]byte, error) {
	raw, err := hex.DecodeString(seed)
	if err != nil || len(raw) != 8 {
		return nil, fmt.Errorf("drawn picture seed %q: not 16 hex digits", seed)
	}
	hue, ok := categoryHues[category]
	if !ok {
		h := fnv.New32a()
		_, _ = h.Write([]byte(category))
		hue = float64(h.Sum32() % 360)
	}
	// A small generator over the seed: the same seed, the same picture.
	state := binary.BigEndian.Uint64(raw) | 1
	next := func(n int) int {
		state ^= state << 13
		state ^= state >> 7
		state ^= state << 17
		return int(state % uint64(n))
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`, DrawnWidth, DrawnHeight, DrawnWidth, DrawnHeight)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="%s"/>`, DrawnWidth, DrawnHeight, hsl(hue, 0.35, 0.88))
	// A horizon, like a table or a shelf the things stand on.
	horizon := DrawnHeight*3/5 + next(DrawnHeight/5)
	fmt.Fprintf(&b, `<rect y="%d" width="%d" height="%d" fill="%s"/>`, horizon, DrawnWidth, DrawnHeight-horizon, hsl(hue, 0.30, 0.78))
	shapes := 3 + next(3)
	for i := range shapes {
		h := math.Mod(hue+float64(next(60)-30)+360, 360)
		fill := hsl(h, 0.45+float64(next(30))/100, 0.35+float64(next(30))/100)
		cx := DrawnWidth*(i+1)/(shapes+1) + next(60) - 30
		size := 50 + next(70)
		base := horizon + next(20)
		switch next(3) {
		case 0:
			fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="%d" fill="%s"/>`, cx, base-size, size, fill)
		case 1:
			w := size + next(size)
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" rx="%d" fill="%s"/>`, cx-w/2, base-2*size, w, 2*size, size/5, fill)
		default:
			fmt.Fprintf(&b, `<path d="M%d %dL%d %dL%d %dZ" fill="%s"/>`, cx-size, base, cx+size, base, cx, base-2*size, fill)
		}
	}
	// A sun or a lamp, up in a corner.
	fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="%d" fill="%s" opacity="0.8"/>`, 60+next(DrawnWidth-120), 50+next(60), 20+next(25), hsl(math.Mod(hue+180, 360), 0.6, 0.75))
	b.WriteString(`</svg>`)
	return b.Bytes(), nil
}

// hsl is a colour as #rrggbb.
func hsl(h, s, l float64) string {
	c := (1 - math.Abs(2*l-1)) * s
	x := c * (1 - math.Abs(math.Mod(h/60, 2)-1))
	m := l - c/2
	var r, g, b float64
	switch {
	case h < 60:
		r, g, b = c, x, 0
	case h < 120:
		r, g, b = x, c, 0
	case h < 180:
		r, g, b = 0, c, x
	case h < 240:
		r, g, b = 0, x, c
	case h < 300:
		r, g, b = x, 0, c
	default:
		r, g, b = c, 0, x
	}
	to := func(v float64) int { return int(math.Round((v + m) * 255)) }
	return fmt.Sprintf("#%02x%02x%02x", to(r), to(g), to(b))
}
