package page

import (
	"fmt"

	"github.com/gofiber/fiber/v2"
)

// Error is an HTTP error with a message that is safe to show; Err is the
// cause, for the log only.
type Error struct {
	Status  int
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%d %s: %v", e.Status, e.Message, e.Err)
	}
	return fmt.Sprintf("%d %s", e.Status, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// NotFound is a 404 saying what was not found.
func NotFound(what string) error {
	return &Error{Status: fiber.StatusNotFound, Message: what + " was not found."}
}

// BadRequest is a 400 with a message for the person.
func BadRequest(msg string) error { return &Error{Status: fiber.StatusBadRequest, Message: msg} }

// Forbidden is a 403 with a message for the person.
func Forbidden(msg string) error { return &Error{Status: fiber.StatusForbidden, Message: msg} }
