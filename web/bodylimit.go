package web

import (
	"io"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store/photos"
)

// Bodies are limited per route. Fiber's BodyLimit is one for the whole app,
// so it is raised to the largest (a photo upload) and the app streams
// request bodies (StreamRequestBody): bodyLimits then refuses a body by its
// Content-Length before reading it, and every other route keeps its small
// limit.
const (
	smallBodyLimit = 1 << 20
	// photoBodyLimit is a 10 MB photo and the form around it.
	photoBodyLimit = photos.MaxBytes + 64<<10
	// webhookBodyLimit is a card provider's event: a few KB, with room.
	webhookBodyLimit = 64 << 10
	// photoUploadTimeout is a photo upload's deadline, longer than a page's.
	photoUploadTimeout = time.Minute
)

// bodyLimits refuses a body larger than its route's limit by its
// Content-Length (413), and a body without one (chunked, 411: every
// browser sends the length of a form), before it is read (fasthttp reads
// at most its first 8 KB with the head); the
// connection is closed after the answer rather than read to its end. A body
// a handler left unread is read to its end afterwards, so the connection's
// next request does not start inside it; but not after a refusal (a 4xx or
// 5xx): a customer's photo upload to the console is refused on its head,
// and reading its 10 MB anyway would undo what the refusal saves. Such a
// connection is closed instead.
func bodyLimits() fiber.Handler {
	return func(c *fiber.Ctx) error {
		limit, msg := smallBodyLimit, "web.body.too_large"
		switch {
		case c.Method() == fiber.MethodPost && photoUpload(c.Path()):
			limit, msg = photoBodyLimit, "web.body.photo_too_large"
		case strings.HasPrefix(strings.ToLower(c.Path()), "/webhooks/"):
			limit = webhookBodyLimit
		}
		switch n := c.Request().Header.ContentLength(); {
		case n == -1:
			c.Context().SetConnectionClose()
			return page.Err(fiber.StatusLengthRequired, "web.body.no_length")
		case n > limit:
			c.Context().SetConnectionClose()
			return page.Err(fiber.StatusRequestEntityTooLarge, msg)
		}
		err := c.Next()
		rest := c.Request().BodyStream() // nil once a form parse read it all
		if rest == nil {
			return err
		}
		if err != nil || c.Response().StatusCode() >= fiber.StatusBadRequest {
			c.Context().SetConnectionClose()
			return err
		}
		if _, derr := io.Copy(io.Discard, io.LimitReader(rest, int64(limit))); derr != nil {
			c.Context().SetConnectionClose()
		}
		return err
	}
}

// photoUpload tells the route of a product photo upload,
// /admin/products/:id/photo (Fiber's routes ignore case and a trailing
// slash).
func photoUpload(path string) bool {
	p := strings.TrimSuffix(strings.ToLower(path), "/")
	rest, ok := strings.CutPrefix(p, "/admin/products/")
	if !ok {
		return false
	}
	id, ok := strings.CutSuffix(rest, "/photo")
	return ok && id != "" && !strings.Contains(id, "/")
}
