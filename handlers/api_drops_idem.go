package handlers

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"

	"github.com/gofiber/fiber/v2"

	"shop/store"
	"shop/web/paths"
)

// POST /api/v1/drops under an Idempotency-Key header: the key is the API
// key's (another key's same words are another key), kept 24 hours. The
// same key with the same decoded body answers what the first answered
// (201, the same drop and bytes); with another body 409.

const (
	headerIdempotencyKey = "Idempotency-Key"
	apiIdempotencyKeyMax = 255
	// ReasonIdempotencyMismatch: the Idempotency-Key was used with another body.
	ReasonIdempotencyMismatch = "idempotency_key_reused"
)

// apiIdempotency is the request's Idempotency-Key for the drop in, and
// false without one; 400 when it is not 1 to 255 visible ASCII characters.
func apiIdempotency(c *fiber.Ctx, in apiDropInput) (*store.DropIdempotency, bool, error) {
	key := c.Get(headerIdempotencyKey)
	if key == "" {
		return nil, false, nil
	}
	if len(key) > apiIdempotencyKeyMax || !visibleASCII(key) {
		return nil, false, apiBadRequest(headerIdempotencyKey, "Idempotency-Key: 1 to 255 visible ASCII characters")
	}
	// The decoded body: spacing and the order of its keys do not matter.
	canon, err := json.Marshal(in)
	if err != nil {
		return nil, false, err
	}
	sum := sha256.Sum256(canon)
	return &store.DropIdempotency{Scope: APIKeyOf(c).ID, Key: key, Hash: hex.EncodeToString(sum[:]), Answer: apiDropAnswer}, true, nil
}

func visibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// apiDropAnswer is the body POST /api/v1/drops answers for a drop made:
// the drop as it was made, so that a repeat answers the same bytes.
func apiDropAnswer(d store.Drop) ([]byte, error) { return json.Marshal(apiDropOf(d, d.CreatedAt)) }

// apiCreated answers a drop made (or made before under the same key).
func apiCreated(c *fiber.Ctx, dropID string, body []byte) error {
	c.Location(paths.APIDrop(dropID))
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Status(fiber.StatusCreated).Send(body)
}

// apiIdempotent answers a request whose key was used before (err is
// CreateDrop's or IdempotentDrop's): handled is false for any other err.
func apiIdempotent(c *fiber.Ctx, err error) (handled bool, answer error) {
	var replay *store.DropReplay
	switch {
	case errors.As(err, &replay):
		return true, apiCreated(c, replay.DropID, replay.Body)
	case errors.Is(err, store.ErrIdempotencyMismatch):
		return true, &APIError{Status: fiber.StatusConflict, Reason: ReasonIdempotencyMismatch,
			Message: "this Idempotency-Key was used with another request in the last 24 hours"}
	}
	return false, nil
}
