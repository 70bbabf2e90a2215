package web

import (
	_ "embed"
	"errors"
	"strings"

	"github.com/gofiber/fiber/v2"

	"shop/handlers"
)

// OpenAPI is the description of the JSON API under /api/v1 (OpenAPI 3.0),
// served at /api/v1/openapi.json; a test keeps it true to the routes.
//
//go:embed openapi.json
var OpenAPI []byte

// apiPrefix is where the JSON API for other systems lives.
const apiPrefix = "/api/"

func isAPI(c *fiber.Ctx) bool { return strings.HasPrefix(c.Path(), apiPrefix) }

// apiHeaders marks every answer of the API as not for caches: counts move.
func apiHeaders() fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderCacheControl, "no-store")
		return c.Next()
	}
}

func serveOpenAPI(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	c.Set(fiber.HeaderCacheControl, "public, max-age=300")
	return c.Send(OpenAPI)
}

// writeAPIError answers a request of the API that failed with
// {"error": message, "reason": word}.
func writeAPIError(c *fiber.Ctx, err error, status int, msg string) error {
	body := handlers.APIErrorBody{Error: msg, Reason: apiReason(status)}
	var ae *handlers.APIError
	var fe *fiber.Error
	switch {
	case errors.As(err, &ae):
		body.Reason, body.Field = ae.Reason, ae.Field
	case errors.As(err, &fe) && fe.Code == fiber.StatusNotFound:
		body.Error = "there is no such endpoint: see /api/v1/openapi.json"
	case errors.As(err, &fe) && fe.Code == fiber.StatusMethodNotAllowed:
		body.Error = "this endpoint does not take this method: see /api/v1/openapi.json"
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Status(status).JSON(body)
}

// apiReasons names each status the API answers with in its error body.
var apiReasons = map[int]string{
	fiber.StatusBadRequest:            handlers.ReasonBadRequest,
	fiber.StatusUnauthorized:          handlers.ReasonUnauthorized,
	fiber.StatusForbidden:             handlers.ReasonForbidden,
	fiber.StatusNotFound:              handlers.ReasonNotFound,
	fiber.StatusMethodNotAllowed:      "method_not_allowed",
	fiber.StatusRequestEntityTooLarge: handlers.ReasonTooLarge,
	fiber.StatusUnsupportedMediaType:  handlers.ReasonMediaType,
	fiber.StatusTooManyRequests:       handlers.ReasonRateLimited,
	fiber.StatusServiceUnavailable:    handlers.ReasonUnavailable,
}

func apiReason(status int) string {
	if r, ok := apiReasons[status]; ok {
		return r
	}
	if status >= 500 {
		return handlers.ReasonInternal
	}
	return handlers.ReasonBadRequest
}
