package page

import (
	"bytes"

	"github.com/gofiber/fiber/v2"
)

// Vary adds name to the answer's Vary header, once, as c.Vary does. c.Vary
// copies the header's value into a new string on every call (the app is
// Immutable): two allocations on every page, which names the same two
// headers every time.
func Vary(c *fiber.Ctx, name string) {
	h := &c.Response().Header
	old := h.Peek(fiber.HeaderVary)
	if len(old) == 0 {
		h.Set(fiber.HeaderVary, name)
		return
	}
	for rest := old; len(rest) > 0; {
		v := rest
		if i := bytes.IndexByte(rest, ','); i >= 0 {
			v, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if string(bytes.TrimSpace(v)) == name {
			return
		}
	}
	var scratch [128]byte
	h.SetBytesV(fiber.HeaderVary, append(append(append(scratch[:0], old...), ", "...), name...))
}
