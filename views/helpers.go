package views

import (
	"strconv"
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
