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

// pathID reads an id from the URL, a 404 saying notFound (a message id)
// when it cannot be one.
func pathID(c *fiber.Ctx, name, notFound string) (string, error) {
	id := c.Params(name)
	if !store.ValidID(id) {
		return "", page.NotFound(notFound)
	}
	return id, nil
}

// notFoundAs turns store.ErrNotFound into a 404 saying notFound, the
// message id of what was missing.
func notFoundAs(err error, notFound string) error {
	if errors.Is(err, store.ErrNotFound) {
		return page.NotFound(notFound)
	}
	return err
}
