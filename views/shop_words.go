package views

import (
	"context"

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
