package page

import "github.com/gofiber/fiber/v2"

// Field is the named field of a POST's form, from its body only
// (urlencoded or multipart), "" when the body has none. Fiber's FormValue
// looks at the query string first, so POST /cart/items?quantity=99 would
// win over the 1 the form sent: a link, or a cross-site form's action, could
// set a field the person never saw. GET handlers read the query (c.Query).
func Field(c *fiber.Ctx, name string) string {
	if v := c.Request().PostArgs().Peek(name); len(v) > 0 {
		return string(v)
	}
	if form, err := c.MultipartForm(); err == nil && len(form.Value[name]) > 0 {
		return form.Value[name][0]
	}
	return ""
}
