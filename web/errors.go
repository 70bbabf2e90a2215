package web

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"time"

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
	case errors.Is(err, store.ErrEngineDown):
		return fiber.StatusServiceUnavailable, "The shop cannot reach its records just now. Try again in a few seconds."
	case errors.Is(err, context.Canceled):
		return statusClientGone, ""
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

// statusClientGone is the status logged for a request whose client went
// away before its answer (nginx's 499): no one to answer, nothing wrong.
const statusClientGone = 499

// errorHandler is the one place errors become pages: 5xx are logged with
// their cause, the person sees only the safe message and a reference.
// While the engine is down (health may be nil) the 503 says when to retry;
// its cause is logged once, by the watcher or the breaker, so each request
// is only a warning.
func errorHandler(log *slog.Logger, health *store.Health) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		status, msg := classify(err)
		engineDown := errors.Is(err, store.ErrEngineDown)
		switch {
		case status == statusClientGone:
			log.Debug("client went away", "request_id", page.RequestID(c), "err", err)
			c.Response().ResetBody()
			c.Status(status)
			return nil
		case engineDown:
			log.Warn("request refused: the engine is down", "request_id", page.RequestID(c), "method", c.Method(), "path", c.Path(), "err", err)
			retry := 5 * time.Second
			if health != nil {
				retry = health.RetryAfter()
			}
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(int((retry+time.Second-1)/time.Second)))
		case status >= 500:
			log.Error("request failed", "request_id", page.RequestID(c), "method", c.Method(), "path", c.Path(), "status", status, "err", err)
		default:
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
