package views

import (
	"strconv"
	"strings"
	"unicode"
)

func itoa(n int) string { return strconv.Itoa(n) }

func stockWord(n int) string {
	switch {
	case n == 0:
		return "Out of stock"
	case n < 5:
		return "Only " + strconv.Itoa(n) + " left"
	default:
		return strconv.Itoa(n) + " in stock"
	}
}

// initials are the placeholder picture of a product without a photo.
func initials(name string) string {
	var out []rune
	for _, w := range strings.Fields(name) {
		r := []rune(w)
		if len(r) > 0 && unicode.IsLetter(r[0]) && len(out) < 2 {
			out = append(out, r[0])
		}
	}
	return strings.ToUpper(string(out))
}
