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

// typedWord is a word of a search, ready to be compared with every word of
// the index: its letters and its budget worked out once, and the rows of
// the distance's table kept between comparisons (a search compares it with
// each word of each product that lacks it).
type typedWord struct {
	runes  []rune
	budget int
	rows   [3][]int
}

func newTypedWord(word string) *typedWord {
	r := []rune(word)
	t := &typedWord{runes: r, budget: typoBudget(len(r))}
	for i := range t.rows {
		t.rows[i] = make([]int, len(r)+t.budget+1)
	}
	return t
}

// nearAny reports whether the typed word is within its budget of one of
// words, or of the start of one as long as it (a word being typed:
// "expres" finds Espresso).
func (t *typedWord) nearAny(words [][]rune) bool {
	if t.budget == 0 {
		return false
	}
	for _, w := range words {
		if t.near(w) {
			return true
		}
	}
	return false
}

func (t *typedWord) near(w []rune) bool {
	if len(w) > len(t.runes) && t.distance(w[:len(t.runes)]) <= t.budget {
		return true
	}
	if d := len(w) - len(t.runes); d > t.budget || -d > t.budget {
		return false
	}
	return t.distance(w) <= t.budget
}

// distance is typoDistance to w with the kept rows (w is never longer than
// the word plus its budget here).
func (t *typedWord) distance(w []rune) int {
	return typoDistanceIn(t.rows, t.runes, w, t.budget)
}

// typoDistance is the optimal string alignment distance of a and b, or
// limit+1 as soon as every alignment costs more than limit.
func typoDistance(a, b []rune, limit int) int {
	var rows [3][]int
	for i := range rows {
		rows[i] = make([]int, len(b)+1)
	}
	return typoDistanceIn(rows, a, b, limit)
}

// typoDistanceIn is typoDistance in rows of at least len(b)+1 cells (a
// search tries every word of the catalogue, so most comparisons stop
// early, and none allocates).
func typoDistanceIn(rows [3][]int, a, b []rune, limit int) int {
	prev2, prev, cur := rows[0][:len(b)+1], rows[1][:len(b)+1], rows[2][:len(b)+1]
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

// runeWords are words as the typo comparison reads them.
func runeWords(words []string) [][]rune {
	out := make([][]rune, len(words))
	for i, w := range words {
		out[i] = []rune(w)
	}
	return out
}

// typedWords are a search's words ready for the typo comparison; nil for
// a word too short to have typos.
func typedWords(words []string) []*typedWord {
	out := make([]*typedWord, len(words))
	for i, w := range words {
		if utf8.RuneCountInString(w) >= 4 {
			out[i] = newTypedWord(w)
		}
	}
	return out
}
