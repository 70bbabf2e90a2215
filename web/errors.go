package web

import (
	"context"
	"errors"
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"shop/handlers"
	"shop/handlers/page"
	"shop/store"
	"shop/views"
)

// classify maps an error to a status and a message safe to show.
func classify(err error) (int, string) {
	var pe *page.Error
	var fe *fiber.Error
	var ae *handlers.APIError
	switch {
	case errors.As(err, &ae):
		return ae.Status, ae.Message
	case errors.As(err, &pe):
		return pe.Status, pe.Message
	case errors.Is(err, store.ErrNotFound):
		return fiber.StatusNotFound, "We could not find what you were looking for."
	case errors.Is(err, store.ErrBadCursor):
		return fiber.StatusBadRequest, "That page link is broken. Start again from the first page."
	case errors.Is(err, context.DeadlineExceeded):
		return fiber.StatusServiceUnavailable, "The shop took too long to answer. Try again in a moment."
	case errors.As(err, &fe):
		switch fe.Code {
		case fiber.StatusNotFound:
			return fe.Code, "There is no page at this address."
		case fiber.StatusMethodNotAllowed:
			return fe.Code, "That action is not available here."
		case fiber.StatusRequestEntityTooLarge:
			return fe.Code, "What you sent is too large."
		}
		if fe.Code < 500 {
			return fe.Code, "That request could not be handled."
		}
	}
	return fiber.StatusInternalServerError, "Something went wrong on our side. Please try again."
}

// errorHandler is the one place errors become pages: 5xx are logged with
// their cause, the person sees only the safe message and a reference.
func errorHandler(log *slog.Logger) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		status, msg := classify(err)
		if status >= 500 {
			log.Error("request failed", "request_id", page.RequestID(c), "method", c.Method(), "path", c.Path(), "status", status, "err", err)
		} else {
			log.Debug("request refused", "request_id", page.RequestID(c), "status", status, "err", err)
		}
		c.Response().ResetBody()
		if isAPI(c) {
			return writeAPIError(c, err, status, msg)
		}
		// The request's own context may be over (that can be the error); the
		// error page must still render.
		c.SetUserContext(context.WithoutCancel(c.UserContext()))
		// No page.Layout here: the session was already saved, so the error
		// page must not take the flash message.
		l := views.Layout{Title: views.ErrorTitle(status), Viewer: page.Viewer(c), CSRF: page.LayoutToken(c), Path: c.Path(), RequestID: page.RequestID(c)}
		e := views.ErrorPage{Status: status, Message: msg, RequestID: page.RequestID(c)}
		c.Vary("HX-Request")
		if page.IsHTMX(c) {
			return page.Write(c, status, views.ErrorPanel(e))
		}
		return page.Write(c, status, views.ErrorView(l, e))
	}
}
