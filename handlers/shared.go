package handlers

import (
	"context"

	"shop/handlers/page"
)

// Helpers every area of handlers uses, kept in one known place.

// refusalText is what a form says of a store error at its top: a refusal
// in the language of ctx; any other error keeps the store's English words.
func refusalText(ctx context.Context, err error) string {
	if r, ok := page.RefusalOf(ctx, err); ok {
		return r.Text
	}
	return sentence(err)
}
