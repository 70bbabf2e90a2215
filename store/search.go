package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Catalogue search: an index of every product's names (in each language
// staff gave one) and category kept in
// the shop window, built from the window's copy of the whole catalogue
// (GSI2 "catalogue", the copy the sorted lists are cut from) and the
// categories, a minute at a time like the other lists. A
// search as you type reads nothing from the table once the index is warm,
// and never scans it. Names are folded (case, accents: "ö" finds "o"), and
// every word typed must appear. A product takes about 150 bytes here, so
// tens of thousands fit; a catalogue past that wants a search engine fed
// from the table's stream (OpenSearch, for one) instead. A word typed
// that is in no product may be a typo of one that is (search_typo.go).

// SearchResult is one page of a search: the products found (best first)
// and how many there are in all.
type SearchResult struct {
	Products []Product
	Total    int
}

type searchEntry struct {
	product Product
	name    string   // folded English name: the order among equals
	names   []string // folded names in every language the product has
	within  string   // folded names and category name
	words   [][]rune // within's words, for the typos (search_typo.go)
}

// ByRelevance is search's own order and its default: the best matches
// first (SearchSorted).
const ByRelevance CatalogueOrder = "relevance"

// SearchOrders are the orders a search's results can be put in.
var SearchOrders = append([]CatalogueOrder{ByRelevance}, CatalogueOrders...)

// ParseSearchOrder reads a search's order as a URL spells it; "" is
// ByRelevance.
func ParseSearchOrder(s string) (CatalogueOrder, bool) {
	if s == "" {
		return ByRelevance, true
	}
	o := CatalogueOrder(s)
	return o, slices.Contains(SearchOrders, o)
}

// Search is SearchSorted by relevance.
func (w *Window) Search(ctx context.Context, q string, limit int) (SearchResult, error) {
	return w.SearchSorted(ctx, q, ByRelevance, limit)
}

// SearchSorted finds products whose name or category holds every word of
// q, or for a word it lacks, a word a typo or two from it; at most limit of
// them in order, and how many matched. By relevance, those whose name
// starts with the query come first, then those whose name holds it, then
// the other exact matches, then those found despite a typo, each by name.
func (w *Window) SearchSorted(ctx context.Context, q string, order CatalogueOrder, limit int) (SearchResult, error) {
	if strings.TrimSpace(q) == "" {
		return SearchResult{}, nil
	}
	index, err := windowGet(ctx, w, "search-index", windowListTTL, &w.lists, w.searchIndex)
	if err != nil {
		return SearchResult{}, err
	}
	return findIn(index, q, order, limit), nil
}

// findIn is SearchSorted over an index.
func findIn(index []searchEntry, q string, order CatalogueOrder, limit int) SearchResult {
	words := strings.Fields(FoldText(q))
	if len(words) == 0 {
		return SearchResult{}
	}
	folded := strings.Join(words, " ")
	typed := typedWords(words)
	type hit struct {
		e    searchEntry
		rank int
	}
	var hits []hit
	for _, e := range index {
		all, typo := true, false
		for i, word := range words {
			if strings.Contains(e.within, word) {
				continue
			}
			if typed[i] == nil || !typed[i].nearAny(e.words) {
				all = false
				break
			}
			typo = true
		}
		if !all {
			continue
		}
		rank := 2
		switch {
		case typo:
			rank = 3
		case slices.ContainsFunc(e.names, func(n string) bool { return strings.HasPrefix(n, folded) }):
			rank = 0
		case slices.ContainsFunc(e.names, func(n string) bool { return strings.Contains(n, folded) }):
			rank = 1
		}
		hits = append(hits, hit{e, rank})
	}
	by := productOrder(order)
	slices.SortFunc(hits, func(a, b hit) int {
		c := by(a.e.product, b.e.product)
		if order == ByRelevance {
			c = cmp.Compare(a.rank, b.rank)
		}
		return cmp.Or(c, cmp.Compare(a.e.name, b.e.name), cmp.Compare(a.e.product.ID, b.e.product.ID))
	})
	out := SearchResult{Total: len(hits)}
	for _, h := range hits[:min(max(limit, 0), len(hits))] {
		out.Products = append(out.Products, h.e.product)
	}
	return out
}

// searchIndex indexes the window's whole catalogue and categories.
func (w *Window) searchIndex(ctx context.Context) ([]searchEntry, error) {
	cats, err := w.Categories(ctx)
	if err != nil {
		return nil, err
	}
	catName := map[string]string{}
	for _, c := range cats {
		catName[c.Slug] = c.Name
	}
	all, err := w.allProducts(ctx)
	if err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	return indexFor(all, catName), nil
}

// indexFor is the search index of products, with their categories' names.
func indexFor(all []Product, catName map[string]string) []searchEntry {
	index := make([]searchEntry, 0, len(all))
	for _, p := range all {
		names := []string{FoldText(p.Name)}
		for _, lang := range productTextLanguages {
			if n := p.TextIn(lang).Name; n != "" {
				names = append(names, FoldText(n))
			}
		}
		within := strings.Join(names, " ") + " " + FoldText(catName[p.Category])
		index = append(index, searchEntry{product: p, name: names[0], names: names, within: within, words: runeWords(strings.Fields(within))})
	}
	return index
}

// foldReplacer spells letters that do not decompose into a base letter and
// a mark the way people type them without the key.
var foldReplacer = strings.NewReplacer("ø", "o", "æ", "ae", "œ", "oe", "ß", "ss", "đ", "d", "ł", "l", "ı", "i")

// FoldText is text as search compares it: lower case, accents removed
// ("Göteborg" is "goteborg"), runs of space one space.
func FoldText(s string) string {
	s = strings.ToLower(s)
	s = foldReplacer.Replace(s)
	if stripped, _, err := transform.String(transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC), s); err == nil {
		s = stripped
	}
	return strings.Join(strings.Fields(s), " ")
}
