package handlers

import (
	"errors"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store/photos"
	"shop/views"
	"shop/web/paths"
)

// Describe replaces what a drop says it gives, in words. A description
// too long comes back at its field with a 422, nothing changed.
func (h *AdminDrops) Describe(c *fiber.Ctx) error {
	d, err := h.drop(c)
	if err != nil {
		return err
	}
	details := views.AdminDropDetails{Errors: views.FieldErrors{}}
	details.Description = formTextIn(c.UserContext(), details.Errors, "description", page.Field(c, "description"), multiLine)
	if !details.Errors.Any() {
		err = h.Store.SetDropDescription(c.UserContext(), d.ID, details.Description)
		switch {
		case refusedAtField(c.UserContext(), details.Errors, err): // too long
		case err != nil:
			return notFoundAs(err, "error.not_found.drop")
		}
	}
	if details.Errors.Any() {
		return h.renderDropWith(c, fiber.StatusUnprocessableEntity, "", &details)
	}
	h.Gate.Forget(d.ID)
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.drops.description_saved"))
	return page.Redirect(c, paths.AdminDrop(d.ID))
}

// UploadPhoto takes a drop's photo as a product's is taken: checked by its
// content, resized, its copies on the shelf, and only then recorded on the
// drop, so a refused upload leaves the drop as it was (413, 415, 422 with
// the reason at the field).
func (h *AdminDrops) UploadPhoto(c *fiber.Ctx) error {
	d, err := h.drop(c)
	if err != nil {
		return err
	}
	if h.Shelf == nil {
		return errors.New("upload drop photo: the app has no photo shelf (web.Config.Shelf)")
	}
	refuse := func(status int, msg string) error {
		return h.renderDropWith(c, status, "", &views.AdminDropDetails{Description: d.Description, Errors: views.FieldErrors{"photo": msg}})
	}
	upload, status, msg := readPhoto(c)
	if msg != "" {
		return refuse(status, msg)
	}
	ctx := c.UserContext()
	select {
	case photoWork <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	photo, copies, err := photos.Process(upload)
	<-photoWork
	if errors.Is(err, photos.ErrNotAPicture) {
		return refuse(fiber.StatusUnsupportedMediaType, page.T(c, "admin.products.err.photo_damaged"))
	}
	if err != nil {
		return err
	}
	if err := photos.PutAll(ctx, h.Shelf, copies); err != nil {
		return err
	}
	if err := h.Store.SetDropPhoto(ctx, d.ID, photo); err != nil {
		return notFoundAs(err, "error.not_found.drop")
	}
	h.Gate.Forget(d.ID)
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.products.photo_saved", "Width", photo.Width, "Height", photo.Height))
	return page.Redirect(c, paths.AdminDrop(d.ID))
}
