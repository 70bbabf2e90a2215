package page

import (
	"github.com/gofiber/fiber/v2"

	"shop/views/lang"
)

// T is the message id in the language of the request (see package lang):
// a page's title, a form's error, a flash message.
func T(c *fiber.Ctx, id string, args ...any) string { return lang.T(c.UserContext(), id, args...) }

// N is the message id in its form for count.
func N(c *fiber.Ctx, id string, count int, args ...any) string {
	return lang.N(c.UserContext(), id, count, args...)
}

// Lang is the language the request is answered in.
func Lang(c *fiber.Ctx) lang.Lang { return lang.From(c.UserContext()) }
