// Package handlers turns requests into pages: each handler parses and
// validates its input, calls the store through the small interface declared
// beside it, and renders a view. No DynamoDB types here.
package handlers

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
)

// pathID reads an id from the URL, a 404 when it cannot be one.
func pathID(c *fiber.Ctx, name, what string) (string, error) {
	id := c.Params(name)
	if !store.ValidID(id) {
		return "", page.NotFound(what)
	}
	return id, nil
}

// notFoundAs turns store.ErrNotFound into a 404 naming what was missing.
func notFoundAs(err error, what string) error {
	if errors.Is(err, store.ErrNotFound) {
		return page.NotFound(what)
	}
	return err
}
