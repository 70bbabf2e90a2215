package web

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/views/lang"
)

// langCookie keeps the language a visitor chose, for a year.
const langCookie = "lang"

// language decides the language a request is answered in and puts it in
// the request's context (lang.From): a language chosen by link (?lang=ko,
// kept in a cookie so the next page follows), the one kept, or the
// browser's Accept-Language on a first visit. No DynamoDB request: a
// signed-in customer's own language reaches the cookie when they sign in.
func language(secure bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		l, chosen := lang.Parse(c.Query("lang"))
		if chosen {
			if c.Cookies(langCookie) != string(l) {
				c.Cookie(&fiber.Cookie{
					Name: langCookie, Value: string(l), Path: "/",
					Expires: time.Now().AddDate(1, 0, 0), MaxAge: 365 * 24 * 3600,
					Secure: secure, HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode,
				})
			}
		} else if kept, ok := lang.Parse(c.Cookies(langCookie)); ok {
			l = kept
		} else {
			l = lang.FromAcceptLanguage(c.Get(fiber.HeaderAcceptLanguage))
		}
		c.SetUserContext(lang.With(c.UserContext(), l))
		c.Set(fiber.HeaderContentLanguage, string(l))
		page.Vary(c, fiber.HeaderAcceptLanguage)
		return c.Next()
	}
}
