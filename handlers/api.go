package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
)

// The JSON API for other systems (/api/v1): no session, no CSRF, JSON in
// and out. Every answer that is not a success is an APIError, written by
// the app's error handler as {"error": message, "reason": word}.

// APIError is a refusal of the JSON API: its status, the reason word
// other systems switch on, a message for the people reading their logs,
// and the field of the request at fault, if one.
type APIError struct {
	Status  int
	Reason  string
	Message string
	Field   string
	Err     error // the cause, for our log only
}

func (e *APIError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%d %s: %s: %v", e.Status, e.Reason, e.Message, e.Err)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Reason, e.Message)
}

func (e *APIError) Unwrap() error { return e.Err }

// APIErrorBody is the JSON of a refusal.
type APIErrorBody struct {
	Error  string `json:"error"`
	Reason string `json:"reason"`
	Field  string `json:"field,omitempty"`
}

// Reasons of refusals that are not a claim's (those are store.ClaimReason's).
const (
	ReasonBadRequest   = "bad_request"
	ReasonUnauthorized = "unauthorized"
	ReasonForbidden    = "forbidden"
	ReasonNotFound     = "not_found"
	ReasonMediaType    = "unsupported_media_type"
	ReasonTooLarge     = "too_large"
	ReasonRateLimited  = "rate_limited"
	ReasonTooMany      = "too_many"
	ReasonBusy         = "busy"
	ReasonUnavailable  = "unavailable"
	ReasonInternal     = "internal"
)

func apiBadRequest(field, msg string) error {
	return &APIError{Status: fiber.StatusBadRequest, Reason: ReasonBadRequest, Message: msg, Field: field}
}

func apiNotFound(what string) error {
	return &APIError{Status: fiber.StatusNotFound, Reason: ReasonNotFound, Message: what + " was not found"}
}

// apiDecode reads the request's body, one JSON object of the shape of into
// and nothing else (decodeStrict): a body that is not JSON, has a key
// twice, a key in the wrong case or one into does not know, or anything
// after the object, is a 400 naming the key. Every API handler that reads
// JSON reads it here.
func apiDecode(c *fiber.Ctx, into any) error {
	mt, _, err := mime.ParseMediaType(c.Get(fiber.HeaderContentType))
	if err != nil || mt != fiber.MIMEApplicationJSON {
		return &APIError{Status: fiber.StatusUnsupportedMediaType, Reason: ReasonMediaType,
			Message: "send a JSON object with Content-Type: application/json"}
	}
	// encoding/json would turn bytes that are not UTF-8 into U+FFFD
	// silently: the client is told instead.
	if !utf8.Valid(c.Body()) {
		return apiBadRequest("", "the body is not valid UTF-8")
	}
	if err := decodeStrict(c.Body(), into); err != nil {
		return apiJSONError(err)
	}
	return nil
}

// apiText is a JSON field's text, cleaned as the forms' is; a 400 naming
// the field when it is refused.
func apiText(field, s string) (string, error) {
	clean, fault := cleanText(s, oneLine)
	if fault != textOK {
		return "", apiBadRequest(field, fault.apiMessage(field))
	}
	return clean, nil
}

// apiJSONError says what is wrong with a body json could not decode.
func apiJSONError(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var fault *jsonFault
	switch {
	case errors.As(err, &fault):
		return apiBadRequest(fault.Field, fault.Msg)
	case errors.Is(err, io.EOF):
		return apiBadRequest("", "the body is empty: send a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return apiBadRequest("", "the JSON ends too early")
	case errors.As(err, &syntax):
		return apiBadRequest("", fmt.Sprintf("malformed JSON at byte %d: %v", syntax.Offset, err))
	case errors.As(err, &typ) && typ.Field != "":
		return apiBadRequest(typ.Field, fmt.Sprintf("%s: want %s, got a JSON %s", typ.Field, apiTypeName(typ.Type.Kind().String()), typ.Value))
	case errors.As(err, &typ):
		return apiBadRequest("", "the body is a JSON object")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return apiBadRequest(field, fmt.Sprintf("unknown field %q", field))
	}
	return apiBadRequest("", "malformed JSON: "+err.Error())
}

func apiTypeName(kind string) string {
	switch kind {
	case "int", "int64", "int32":
		return "a whole number"
	case "string":
		return "a string"
	}
	return kind
}
