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

// Catalogue search: an index of every product's name and category kept in
// the shop window, built from the window's copy of the whole catalogue
// (GSI2 "catalogue", the copy the sorted lists are cut from) and the
// categories, a minute at a time like the other lists. A
// search as you type reads nothing from the table once the index is warm,
// and never scans it. Names are folded (case, accents: "ö" finds "o"), and
// every word typed must appear. A product takes about 150 bytes here, so
// tens of thousands fit; a catalogue past that wants a search engine fed
// from the table's stream (OpenSearch, for one) instead.

// SearchResult is one page of a search: the products found (best first)
// and how many there are in all.
type SearchResult struct {
	Products []Product
	Total    int
}

type searchEntry struct {
	product      Product
	name, within string // folded name; folded name and category name
}

// Search finds products whose name or category holds every word of q,
// those whose name starts with the query first, then by name; at most
// limit of them, and how many matched.
func (w *Window) Search(ctx context.Context, q string, limit int) (SearchResult, error) {
	words := strings.Fields(FoldText(q))
	if len(words) == 0 {
		return SearchResult{}, nil
	}
	index, err := windowGet(ctx, w, "search-index", windowListTTL, &w.lists, w.searchIndex)
	if err != nil {
		return SearchResult{}, err
	}
	folded := strings.Join(words, " ")
	type hit struct {
		e    searchEntry
		rank int
	}
	var hits []hit
	for _, e := range index {
		all := true
		for _, word := range words {
			if !strings.Contains(e.within, word) {
				all = false
				break
			}
		}
		if !all {
			continue
		}
		rank := 2
		switch {
		case strings.HasPrefix(e.name, folded):
			rank = 0
		case strings.Contains(e.name, folded):
			rank = 1
		}
		hits = append(hits, hit{e, rank})
	}
	slices.SortFunc(hits, func(a, b hit) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.e.name, b.e.name), cmp.Compare(a.e.product.ID, b.e.product.ID))
	})
	out := SearchResult{Total: len(hits)}
	for _, h := range hits[:min(max(limit, 0), len(hits))] {
		out.Products = append(out.Products, h.e.product)
	}
	return out, nil
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
	index := make([]searchEntry, 0, len(all))
	for _, p := range all {
		name := FoldText(p.Name)
		index = append(index, searchEntry{product: p, name: name, within: name + " " + FoldText(catName[p.Category])})
	}
	return index, nil
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
