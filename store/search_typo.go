package store

import "unicode/utf8"

// Typo tolerance: a word typed that is in no product's name or category
// may still find it by a word there that is one or two typos away
// ("cofee" finds Coffee, "expresso" Espresso). A typo is a letter missing,
// added, changed, or two neighbours swapped (the optimal string alignment
// distance). Short words must be right: three letters one typo away match
// half the catalogue.

// typoBudget is how many typos a typed word of n letters may hold.
func typoBudget(n int) int {
	switch {
	case n < 4:
		return 0
	case n < 8:
		return 1
	}
	return 2
}

// nearWord reports whether typed is within its typo budget of word, or of
// the start of word as long as typed (a word being typed: "expres" finds
// Espresso).
func nearWord(typed, word string) bool {
	t, w := []rune(typed), []rune(word)
	budget := typoBudget(len(t))
	if budget == 0 {
		return false
	}
	if len(w) > len(t) && typoDistance(t, w[:len(t)], budget) <= budget {
		return true
	}
	if d := len(w) - len(t); d > budget || -d > budget {
		return false
	}
	return typoDistance(t, w, budget) <= budget
}

// typoDistance is the optimal string alignment distance of a and b, or
// more than limit as soon as every alignment costs more (a search tries
// every word of the catalogue, so most comparisons stop early).
func typoDistance(a, b []rune, limit int) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// matchesNear reports whether typed is near one of words.
func matchesNear(typed string, words []string) bool {
	if utf8.RuneCountInString(typed) < 4 {
		return false
	}
	for _, w := range words {
		if nearWord(typed, w) {
			return true
		}
	}
	return false
}
