package page

import "github.com/gofiber/fiber/v2"

// VisitorCookie names the cookie of a visitor's id (its CSRF token's
// seed); a page kept for visitors may be served to a request carrying it.
const VisitorCookie = visitorCookie

// NoteTokens makes the visit list the CSRF tokens its page is given
// (TokensShown), so that a page kept for visitors can carry the next
// visitor's token in their place.
func NoteTokens(c *fiber.Ctx) { VisitOf(c).noting = true }

// TokensShown are the masked tokens handed out since NoteTokens.
func TokensShown(c *fiber.Ctx) []string { return VisitOf(c).shown }

// HasVisitor reports whether the request carries a valid visitor cookie:
// its page's layout then carries the visitor's token, which a new
// visitor's does not.
func HasVisitor(c *fiber.Ctx) bool { return visitorID(c, false) != "" }

func (v *Visit) show(token string) string {
	if v.noting {
		v.shown = append(v.shown, token)
	}
	return token
}
