package store

import (
	"fmt"
	"testing"
)

func TestTypoDistance(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		limit int
		want  int
	}{
		{"coffee", "coffee", 2, 0},
		{"cofee", "coffee", 2, 1},      // a letter missing
		{"cofffee", "coffee", 2, 1},    // one added
		{"expresso", "espresso", 2, 1}, // one changed
		{"cofefe", "coffee", 2, 1},     // two neighbours swapped
		{"grnider", "grinder", 2, 1},
		{"", "abc", 5, 3},
		{"abc", "", 5, 3},
		{"kitten", "sitting", 5, 3},
		{"kitten", "sitting", 1, 2}, // past the limit: limit+1
		{"göteborg", "goteborg", 2, 1},
	} {
		if got := typoDistance([]rune(c.a), []rune(c.b), c.limit); got != c.want {
			t.Errorf("typoDistance(%q, %q, %d) = %d, want %d", c.a, c.b, c.limit, got, c.want)
		}
	}
}

func TestNearWord(t *testing.T) {
	for _, c := range []struct {
		typed, word string
		want        bool
	}{
		{"cofee", "coffee", true},
		{"expresso", "espresso", true},
		{"expres", "espresso", true}, // still typing
		{"grindr", "grinder", true},
		{"dripr", "dripper", true},
		{"cof", "coffee", false},   // too short for a typo
		{"tea", "tee", false},      // three letters must be right
		{"roost", "roast", true},   // five letters, one typo
		{"rooost", "roast", false}, // two typos in six letters
		{"espressso", "espresso", true},
		{"harbuor", "harbour", true},
		{"archipelgo", "archipelago", true},
		{"archipxlgo", "archipelago", true}, // ten letters, two typos
		{"acrhipxlgo", "archipelago", false},
		{"books", "boots", true},
		{"blend", "coffee", false},
	} {
		if got := newTypedWord(c.typed).nearAny([][]rune{[]rune(c.word)}); got != c.want {
			t.Errorf("%q near %q: %v, want %v", c.typed, c.word, got, c.want)
		}
	}
}

// The distance is a distance: none to itself, the same both ways, never
// more than the longer word, and past the limit it says limit+1.
func FuzzTypoDistance(f *testing.F) {
	for _, s := range [][2]string{{"cofee", "coffee"}, {"expresso", "espresso"}, {"", "x"}, {"ab", "ba"}, {"göteborg", "goteborg"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ra, rb := []rune(a), []rune(b)
		if len(ra) > 64 || len(rb) > 64 {
			return
		}
		limit := max(len(ra), len(rb))
		d := typoDistance(ra, rb, limit)
		same := string(ra) == string(rb) // bytes that are not UTF-8 read as U+FFFD
		if d != typoDistance(rb, ra, limit) || d > limit || (same && d != 0) || (!same && d == 0) {
			t.Fatalf("typoDistance(%q, %q) = %d, the other way %d", a, b, d, typoDistance(rb, ra, limit))
		}
		if d > 0 && typoDistance(ra, rb, d-1) != d {
			t.Fatalf("typoDistance(%q, %q, %d) = %d, want %d: one past the limit", a, b, d-1, typoDistance(ra, rb, d-1), d)
		}
	})
}

// What typo tolerance costs a search of a large catalogue (10,000
// products, no DynamoDB: the index is in memory): a word spelt right is a
// substring test per product; a typo, or a word found nowhere, compares it
// with every word of every product. Compare the three in one run.
func BenchmarkSearchTenThousandProducts(b *testing.B) {
	words := []string{"harbour", "espresso", "roast", "light", "dark", "grinder", "dripper", "filter", "kettle", "mug", "book", "fika", "linen", "wool", "jacket"}
	var all []Product
	for i := range 10_000 {
		name := fmt.Sprintf("%s %s %s %d", words[i%len(words)], words[(i/len(words))%len(words)], words[(i*7)%len(words)], i)
		all = append(all, Product{ID: fmt.Sprintf("p%d", i), Name: name, Category: "c", Price: Money{Amount: int64(i), Currency: "EUR"}})
	}
	index := indexFor(all, map[string]string{"c": "Coffee"})
	for _, q := range []string{"espresso", "expresso", "xqzzyvwk"} {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				findIn(index, q, ByRelevance, 24)
			}
		})
	}
}
