package web

import (
	"github.com/gofiber/fiber/v2"

	"shop/handlers"
)

// customerLanguage keeps a language a signed-in customer chooses by link on
// their record, which decides the language of their mail. It runs after
// the session middleware (it needs to know who is signed in, and what the
// session knows the record says) and writes only when the choice differs.
func customerLanguage(st handlers.CustomerLanguageStore) fiber.Handler {
	return handlers.KeepCustomerLanguage(st)
}
