package handlers

import (
	"errors"
	"io"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store/photos"
	"shop/views"
	"shop/web/paths"
)

// photoWork lets two photos be decoded and resized at once: a large one
// takes a few hundred MB while it is worked on.
var photoWork = make(chan struct{}, 2)

// UploadPhoto takes a product's new photo: checked by its content, resized,
// its copies put on the shelf, and only then recorded on the product, so a
// refused or failed upload leaves the product as it was. A refusal comes
// back on the product's page with its reason (413 too large, 415 not a
// picture, 422 no file or too many pixels).
func (h *AdminProducts) UploadPhoto(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "error.not_found.product")
	if err != nil {
		return err
	}
	if h.Shelf == nil {
		return errors.New("upload photo: the app has no photo shelf (web.Config.Shelf)")
	}
	ctx := c.UserContext()
	if _, _, err := h.Store.ProductWithStock(ctx, id); err != nil {
		return notFoundAs(err, "error.not_found.product")
	}
	upload, status, msg := readPhoto(c)
	if msg != "" {
		return h.refusePhoto(c, id, status, msg)
	}
	select {
	case photoWork <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	photo, copies, err := photos.Process(upload)
	<-photoWork
	if errors.Is(err, photos.ErrNotAPicture) {
		// The header was a picture's, the rest is not (cut short, say).
		return h.refusePhoto(c, id, fiber.StatusUnsupportedMediaType, page.T(c, "admin.products.err.photo_damaged"))
	}
	if err != nil {
		return err
	}
	if err := photos.PutAll(ctx, h.Shelf, copies); err != nil {
		return err
	}
	if err := h.Store.SetProductPhoto(ctx, id, photo); err != nil {
		return notFoundAs(err, "error.not_found.product")
	}
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.products.photo_saved", "Width", photo.Width, "Height", photo.Height))
	return page.Redirect(c, paths.AdminProduct(id))
}

// readPhoto reads the form's file and checks it; a refusal is a status and
// a message for staff.
func readPhoto(c *fiber.Ctx) (photos.Upload, int, string) {
	fh, err := c.FormFile("photo")
	if err != nil || fh.Size == 0 {
		return photos.Upload{}, fiber.StatusUnprocessableEntity, page.T(c, "admin.products.err.photo_none")
	}
	tooLarge := page.T(c, "admin.products.err.photo_large")
	if fh.Size > photos.MaxBytes {
		return photos.Upload{}, fiber.StatusRequestEntityTooLarge, tooLarge
	}
	f, err := fh.Open()
	if err != nil {
		return photos.Upload{}, fiber.StatusBadRequest, page.T(c, "admin.products.err.photo_read")
	}
	data, err := io.ReadAll(io.LimitReader(f, photos.MaxBytes+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return photos.Upload{}, fiber.StatusBadRequest, page.T(c, "admin.products.err.photo_read")
	}
	upload, err := photos.Inspect(data)
	switch {
	case errors.Is(err, photos.ErrTooLarge):
		return photos.Upload{}, fiber.StatusRequestEntityTooLarge, tooLarge
	case errors.Is(err, photos.ErrTooManyPixels):
		return photos.Upload{}, fiber.StatusUnprocessableEntity, page.T(c, "admin.products.err.photo_pixels")
	case err != nil:
		return photos.Upload{}, fiber.StatusUnsupportedMediaType, page.T(c, "admin.products.err.photo_format")
	}
	return upload, 0, ""
}

// refusePhoto shows the product's page with the reason at the photo field.
func (h *AdminProducts) refusePhoto(c *fiber.Ctx, id string, status int, msg string) error {
	data, err := h.productPage(c, id)
	if err != nil {
		return err
	}
	data.Photo.Error = msg
	return page.Render(c, status, page.View{Title: data.Product.Name, Page: page.Full(views.AdminProductView, data)})
}
