package handlers

import (
	"errors"
	"strings"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/store/photos"
)

// Media serves the products' pictures: uploaded photos from the shelf and
// the pictures the shop draws. Their names carry their content's hash, so
// they are cached for a year and never change; no session, no DynamoDB.
type Media struct {
	Shelf photos.Shelf
}

// immutable is the caching of a name that changes with its content.
const immutable = "public, max-age=31536000, immutable"

// Photo is /media/photos/<key>/<width>.<ext>.
func (h *Media) Photo(c *fiber.Ctx) error {
	key, file := c.Params("key"), c.Params("file")
	format, ok := photoFile(file)
	if !validPhotoKey(key) || !ok || h.Shelf == nil {
		return page.NotFound("error.not_found.picture")
	}
	etag := `"` + key + "-" + file + `"`
	if notModified(c, etag) {
		return nil
	}
	body, size, err := h.Shelf.Open(c.UserContext(), "photos/"+key+"/"+file)
	if errors.Is(err, store.ErrNotFound) {
		return page.NotFound("error.not_found.picture")
	}
	if err != nil {
		return err
	}
	mediaHeaders(c, etag, photos.ContentType(format))
	// fasthttp closes body once it is sent.
	c.Context().SetBodyStream(body, int(size))
	return nil
}

// Drawn is /media/drawn/<category>/<seed>.svg.
func (h *Media) Drawn(c *fiber.Ctx) error {
	category, file := c.Params("category"), c.Params("file")
	seed, ok := strings.CutSuffix(file, ".svg")
	if !store.ValidID(category) || !ok || !photos.ValidSeed(seed) {
		return page.NotFound("error.not_found.picture")
	}
	etag := `"drawn-` + category + "-" + seed + `"`
	if notModified(c, etag) {
		return nil
	}
	svg, err := photos.Draw(category, seed)
	if err != nil {
		return page.NotFound("error.not_found.picture")
	}
	mediaHeaders(c, etag, "image/svg+xml")
	return c.Send(svg)
}

func mediaHeaders(c *fiber.Ctx, etag, contentType string) {
	c.Set(fiber.HeaderCacheControl, immutable)
	c.Set(fiber.HeaderETag, etag)
	c.Set(fiber.HeaderContentType, contentType)
	c.Set("X-Content-Type-Options", "nosniff")
}

// notModified answers 304 to a browser that has the picture already.
func notModified(c *fiber.Ctx, etag string) bool {
	if c.Get(fiber.HeaderIfNoneMatch) != etag {
		return false
	}
	c.Set(fiber.HeaderCacheControl, immutable)
	c.Set(fiber.HeaderETag, etag)
	c.Status(fiber.StatusNotModified)
	return true
}

// validPhotoKey: a key is 32 lowercase hex digits (photos.Process).
func validPhotoKey(key string) bool {
	if len(key) != 32 {
		return false
	}
	for _, r := range key {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

// photoFile checks a copy's file name, "<width>.<jpg|png>", and gives its
// format. The original is not served: the copies are what pages use.
func photoFile(file string) (string, bool) {
	for _, format := range []string{"jpeg", "png"} {
		w, ok := strings.CutSuffix(file, "."+photos.Extension(format))
		if !ok || w == "" || len(w) > 5 || w[0] == '0' {
			continue
		}
		digits := true
		for _, r := range w {
			digits = digits && r >= '0' && r <= '9'
		}
		if digits {
			return format, true
		}
	}
	return "", false
}
