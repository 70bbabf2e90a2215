package page

import (
	"context"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"

	"shop/store"
	"shop/views/lang"
)

// Refused is how the shop answers a store refusal: the status, the form
// field it is about ("" for the whole form), its sentence, and the
// heading over the form it brings back ("" for none).
type Refused struct {
	Status int
	Field  string
	Text   string
	Title  string
}

// refusalStatus is the status of each kind of refusal: a request not well
// formed is unprocessable, one the thing's state forbids is a conflict,
// one the shop's pages never send is a bad request.
var refusalStatus = map[store.RefusalKind]int{
	store.Invalid:  fiber.StatusUnprocessableEntity,
	store.Conflict: fiber.StatusConflict,
	store.Broken:   fiber.StatusBadRequest,
}

// RefusalOf is the answer to the store refusal err carries, in the
// language of ctx; false when err carries none. The error handler answers
// with it, and a form that shows the refusal at its field reads it here.
func RefusalOf(ctx context.Context, err error) (Refused, bool) {
	r, ok := store.RefusalOf(err)
	if !ok {
		return Refused{}, false
	}
	status, ok := refusalStatus[r.Kind]
	if !ok {
		status = fiber.StatusBadRequest
	}
	out := Refused{Status: status, Field: r.Field, Text: lang.T(ctx, r.Message, refusalArgs(ctx, r.Args)...)}
	if r.Title != "" {
		out.Title = lang.T(ctx, r.Title)
	}
	return out, true
}

// refusalArgs are a refusal's values as its sentence shows them in the
// language of ctx: money in the reader's format, a product's name in
// the reader's language; the rest as they are.
func refusalArgs(ctx context.Context, args []any) []any {
	if len(args) == 0 {
		return nil
	}
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case store.Money:
			out[i] = lang.Money(ctx, v)
		case store.LocalName:
			out[i] = v.In(string(lang.From(ctx)))
		case *store.Refusal: // a refusal said inside another's sentence
			r, _ := RefusalOf(ctx, v)
			out[i] = r.Text
		default:
			out[i] = a
		}
	}
	return out
}

// Error is an HTTP error with a message that is safe to show; Err is the
// cause, for the log only. Message is the English text (logs, the JSON
// API); ID and Args, when ID is set, are the message in the catalogue, so
// that the error page says it in the reader's language (Text).
type Error struct {
	Status  int
	Message string
	ID      string
	Args    []any
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%d %s: %v", e.Status, e.Message, e.Err)
	}
	return fmt.Sprintf("%d %s", e.Status, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Text is the message in the language of ctx; a message given as English
// text only (not yet in the catalogue) is shown as it is.
func (e *Error) Text(ctx context.Context) string {
	if e.ID == "" {
		return e.Message
	}
	return lang.T(ctx, e.ID, e.Args...)
}

// Err is an error of status with the catalogue's message id and its
// values as name, value pairs (see lang.T).
func Err(status int, id string, args ...any) error {
	return &Error{Status: status, ID: id, Args: args, Message: lang.In(lang.English, id, args...)}
}

// message is an error of status saying msg: a message id of the catalogue
// ("cart.cannot_add") or, until its area is translated, English text.
func message(status int, msg string) *Error {
	if isMessageID(msg) {
		return &Error{Status: status, ID: msg, Message: lang.In(lang.English, msg)}
	}
	return &Error{Status: status, Message: msg}
}

// isMessageID tells a catalogue id ("area.what", no spaces) from text.
func isMessageID(s string) bool {
	return s != "" && !strings.ContainsAny(s, " \t\n") && strings.Contains(s, ".") &&
		lang.In(lang.English, s) != lang.Missing(s)
}

// NotFound is a 404 saying what was not found, by its sentence's message
// id ("error.not_found.order"): each thing has a sentence of its own, as
// the words change with what they follow in Korean.
func NotFound(id string) error {
	return &Error{Status: fiber.StatusNotFound, ID: id, Message: lang.In(lang.English, id)}
}

// BadRequest is a 400 with a message for the person: a message id of the
// catalogue, or English text.
func BadRequest(msg string) error { return message(fiber.StatusBadRequest, msg) }

// Forbidden is a 403 with a message for the person: a message id of the
// catalogue, or English text.
func Forbidden(msg string) error { return message(fiber.StatusForbidden, msg) }
