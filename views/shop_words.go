package views

import (
	"context"
	"strings"

	"shop/store"
	"shop/views/lang"
)

// The shop's fixed categories have their names and descriptions in the
// catalogue; a category staff added or renamed shows as staff typed it.
var categoryWords = map[string][2]string{
	"books":   {"catalogue.category.books", "catalogue.category.books.about"},
	"coffee":  {"catalogue.category.coffee", "catalogue.category.coffee.about"},
	"kitchen": {"catalogue.category.kitchen", "catalogue.category.kitchen.about"},
	"music":   {"catalogue.category.music", "catalogue.category.music.about"},
	"outdoor": {"catalogue.category.outdoor", "catalogue.category.outdoor.about"},
}

// CategoryName is a category's name in the language of ctx.
func CategoryName(ctx context.Context, c store.Category) string {
	if ids, ok := categoryWords[c.Slug]; ok && lang.In(lang.English, ids[0]) == c.Name {
		return t(ctx, ids[0])
	}
	return c.Name
}

// categoryDescription is a category's description in the language of ctx.
func categoryDescription(ctx context.Context, c store.Category) string {
	if ids, ok := categoryWords[c.Slug]; ok && lang.In(lang.English, ids[1]) == c.Description {
		return t(ctx, ids[1])
	}
	return c.Description
}

// slot stands for an element inside a sentence while it is translated.
const slot = "\x00"

// around is the message id split where its value named by name stands,
// so that an element (a link, a time) can go between the halves in the
// language's word order. args are the message's other values.
func around(ctx context.Context, id, name string, args ...any) (before, after string) {
	before, after, _ = strings.Cut(t(ctx, id, append(args, name, slot)...), slot)
	return before, after
}
