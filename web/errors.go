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
	"shop/views/lang"
)

// classify maps an error to a status and a message safe to show, in the
// language of ctx.
func classify(ctx context.Context, err error) (int, string) {
	var pe *page.Error
	var fe *fiber.Error
	var ae *handlers.APIError
	switch {
	case errors.As(err, &ae):
		return ae.Status, ae.Message
	case errors.As(err, &pe):
		return pe.Status, pe.Text(ctx)
	}
	if r, ok := page.RefusalOf(ctx, err); ok {
		return r.Status, r.Text
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fiber.StatusNotFound, lang.T(ctx, "error.not_found.anything")
	case errors.Is(err, store.ErrBadCursor):
		return fiber.StatusBadRequest, lang.T(ctx, "error.bad_cursor")
	case errors.Is(err, store.ErrEngineDown):
		return fiber.StatusServiceUnavailable, lang.T(ctx, "error.engine_down")
	case errors.Is(err, context.Canceled):
		return statusClientGone, ""
	case errors.Is(err, context.DeadlineExceeded):
		return fiber.StatusServiceUnavailable, lang.T(ctx, "error.too_slow")
	case errors.As(err, &fe):
		switch fe.Code {
		case fiber.StatusNotFound:
			return fe.Code, lang.T(ctx, "error.no_page")
		case fiber.StatusMethodNotAllowed:
			return fe.Code, lang.T(ctx, "error.method")
		case fiber.StatusRequestEntityTooLarge:
			return fe.Code, lang.T(ctx, "error.too_large")
		}
		if fe.Code < 500 {
			return fe.Code, lang.T(ctx, "error.refused")
		}
	}
	return fiber.StatusInternalServerError, lang.T(ctx, "error.internal")
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
		status, msg := classify(c.UserContext(), err)
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
			// The API's errors are read by programs: in English.
			_, msg := classify(lang.With(c.UserContext(), lang.English), err)
			return writeAPIError(c, err, status, msg)
		}
		// The request's own context may be over (that can be the error); the
		// error page must still render.
		c.SetUserContext(context.WithoutCancel(c.UserContext()))
		l := page.ErrorLayout(c, views.ErrorTitle(c.UserContext(), status))
		// A console page's error is shown in the console, to staff only: the
		// staff check let the request through (every /admin path is behind
		// it); a visitor's or a customer's refusal there stays in the shop's.
		_, console := page.StaffMember(c)
		e := views.ErrorPage{Status: status, Message: msg, RequestID: page.RequestID(c), Console: console}
		c.Vary("HX-Request")
		if page.IsHTMX(c) {
			return page.Write(c, status, views.ErrorPanel(e))
		}
		return page.Write(c, status, views.ErrorView(l, e))
	}
}
