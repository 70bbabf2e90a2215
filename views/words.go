package views

import (
	"context"
	"net/url"

	"shop/store"
	"shop/views/lang"
)

// t is the message id in the page's language (see package lang); args
// are name, value pairs.
func t(ctx context.Context, id string, args ...any) string { return lang.T(ctx, id, args...) }

// tn is the message id in its form for count.
func tn(ctx context.Context, id string, count int, args ...any) string {
	return lang.N(ctx, id, count, args...)
}

// money is an amount as the page's language writes it.
func money(ctx context.Context, m store.Money) string { return lang.Money(ctx, m) }

// pageLang is the page's language code, for lang and hreflang attributes.
func pageLang(ctx context.Context) string { return string(lang.From(ctx)) }

// inLang is the page at path in language l: the link of the language
// switcher and of the hreflang alternates.
func inLang(path string, l lang.Lang) string {
	return path + "?" + url.Values{"lang": {string(l)}}.Encode()
}
