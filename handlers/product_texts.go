package handlers

import (
	"context"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/views/lang"
)

// productIn is the product as the request's reader sees it: its name and
// description in the request's language where staff gave them.
func productIn(ctx context.Context, p store.Product) store.Product {
	return p.In(string(lang.From(ctx)))
}

// productsIn is productIn of each, in a new slice: the window's lists are
// shared by every request.
func productsIn(ctx context.Context, ps []store.Product) []store.Product {
	out := make([]store.Product, len(ps))
	for i, p := range ps {
		out[i] = productIn(ctx, p)
	}
	return out
}

// productTextsForm are the form's fields of p's texts in the shop's other
// languages, in the order the language switcher lists them.
func productTextsForm(p store.Product) []views.AdminProductText {
	var out []views.AdminProductText
	for _, l := range lang.All {
		if l == lang.English { // Name and Description
			continue
		}
		t := p.TextIn(string(l))
		out = append(out, views.AdminProductText{Lang: l, Name: t.Name, Description: t.Description})
	}
	return out
}

// productTextsFromForm reads and checks the texts in the other languages
// into the form and p, as productFromForm does the English: each is
// optional, and an empty one falls back to the English.
func productTextsFromForm(c *fiber.Ctx, f *views.AdminProductForm, p *store.Product) {
	ctx := c.UserContext()
	f.Texts = productTextsForm(store.Product{})
	texts := map[string]store.ProductText{}
	for i := range f.Texts {
		tx := &f.Texts[i]
		tx.Name = formTextIn(ctx, f.Errors, tx.NameField(), page.Field(c, tx.NameField()), oneLine)
		tx.Description = formTextIn(ctx, f.Errors, tx.DescriptionField(), page.Field(c, tx.DescriptionField()), multiLine)
		if utf8.RuneCountInString(tx.Name) > maxProductNameRunes && !f.Errors.Has(tx.NameField()) {
			f.Errors[tx.NameField()] = page.T(c, "admin.products.err.name_long")
		}
		if utf8.RuneCountInString(tx.Description) > maxDescriptionRunes && !f.Errors.Has(tx.DescriptionField()) {
			f.Errors[tx.DescriptionField()] = page.T(c, "admin.products.err.description_long")
		}
		texts[string(tx.Lang)] = store.ProductText{Name: tx.Name, Description: tx.Description}
	}
	p.Texts = texts
}
