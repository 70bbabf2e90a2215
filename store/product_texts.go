package store

import "maps"

// A product's name and description are English, the shop's first
// language; staff may give them in the shop's other languages too. A
// customer reading the shop in one of those sees its text where there is
// one, and the English where not (a language's name alone falls back
// alone: a Korean name over an English description is allowed).

// ProductText is a product's name and description in one language.
type ProductText struct {
	Name, Description string
}

// productTextLanguages are the languages besides English a product's
// texts may be given in, as language codes.
var productTextLanguages = []string{"ko", "id"}

// In is the product as a customer reading lang sees it: its name and
// description in lang where staff gave them, else the English.
func (p Product) In(lang string) Product {
	t, ok := p.Texts[lang]
	if !ok {
		return p
	}
	if t.Name != "" {
		p.Name = t.Name
	}
	if t.Description != "" {
		p.Description = t.Description
	}
	return p
}

// TextIn is the product's own text in lang, empty where staff gave none
// (the staff form's fields).
func (p Product) TextIn(lang string) ProductText { return p.Texts[lang] }

// productTexts is the Texts attribute of a product's item: the languages
// with a text, none empty; nil when there are none (the attribute is left
// out).
func productTexts(texts map[string]ProductText) map[string]ProductText {
	out := maps.Clone(texts)
	maps.DeleteFunc(out, func(_ string, t ProductText) bool { return t == ProductText{} })
	if len(out) == 0 {
		return nil
	}
	return out
}

// ProductNames is a product's name in the shop's other languages by
// language code, as staff gave them when it was put in a cart or sold: a
// cart's line and an order's line keep them, so a customer reads the line
// in their language with no read of the product (nil when staff gave none).
type ProductNames map[string]string

// In is the name in lang, else english.
func (n ProductNames) In(lang, english string) string {
	if name := n[lang]; name != "" {
		return name
	}
	return english
}

// LocalName is a product's name to be said in the reader's language (a
// refusal's value): its English name and its names in the others.
type LocalName struct {
	English string
	Names   ProductNames
}

// In is the name in lang, else English.
func (n LocalName) In(lang string) string { return n.Names.In(lang, n.English) }

// Names is the product's ProductNames, nil when it has none: what a line
// made of it keeps.
func (p Product) Names() ProductNames {
	var out ProductNames
	for l, t := range p.Texts {
		if t.Name == "" {
			continue
		}
		if out == nil {
			out = ProductNames{}
		}
		out[l] = t.Name
	}
	return out
}
