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

// errorCount says how many of fields have an error, in words ("" for none).
func errorCount(errs FieldErrors, fields []string) string {
	n := 0
	for _, f := range fields {
		if errs[f] != "" {
			n++
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		return "one field"
	default:
		return strconv.Itoa(n) + " fields"
	}
}
