package web

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views/lang"
)

// TestClassify is the one error mapper's table: what each kind of error
// answers with.
func TestClassify(t *testing.T) {
	t.Parallel()
	refusal := store.Refuse(store.Conflict, "subs.error.paused", "this subscription is paused; resume it first")
	ctx := lang.With(context.Background(), lang.English)
	for _, tc := range []struct {
		name   string
		err    error
		status int
		msg    string
	}{
		{"a store refusal", fmt.Errorf("pause: %w", refusal), fiber.StatusConflict, lang.In(lang.English, "subs.error.paused")},
		{"a page error before the refusal it wraps", &page.Error{Status: fiber.StatusBadRequest, ID: "error.bad_cursor", Err: refusal}, fiber.StatusBadRequest, lang.In(lang.English, "error.bad_cursor")},
		{"not found", fmt.Errorf("read: %w", store.ErrNotFound), fiber.StatusNotFound, lang.In(lang.English, "error.not_found.anything")},
		{"a not found page", page.NotFound("error.not_found.order"), fiber.StatusNotFound, lang.In(lang.English, "error.not_found.order")},
		{"the engine down", store.ErrEngineDown, fiber.StatusServiceUnavailable, lang.In(lang.English, "error.engine_down")},
		{"the client gone", context.Canceled, statusClientGone, ""},
		{"anything else", errors.New("disk on fire"), fiber.StatusInternalServerError, lang.In(lang.English, "error.internal")},
	} {
		status, msg := classify(ctx, tc.err)
		if status != tc.status || msg != tc.msg {
			t.Errorf("%s: classify = %d %q; want %d %q", tc.name, status, msg, tc.status, tc.msg)
		}
	}
}
