package handlers

import (
	"context"
	"errors"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// AdminSellerStore is what the seller's details page reads and writes.
type AdminSellerStore interface {
	SellerNow(ctx context.Context) (store.Seller, error)
	SaveSeller(ctx context.Context, sel store.Seller) (store.Seller, error)
}

// AdminSeller serves /admin/settings/seller: the legal name, address and
// VAT number every invoice, receipt and credit note prints.
type AdminSeller struct {
	Store AdminSellerStore
}

// Show is the form with the details as they are.
func (h *AdminSeller) Show(c *fiber.Ctx) error {
	sel, err := h.Store.SellerNow(c.UserContext())
	if err != nil {
		return err
	}
	f := views.AdminSellerForm{Name: sel.LegalName, Address: sel.Address, VAT: sel.VATNumber, Version: sel.Version, Saved: sel, Errors: views.FieldErrors{}}
	return h.render(c, fiber.StatusOK, f)
}

func (h *AdminSeller) render(c *fiber.Ctx, status int, f views.AdminSellerForm) error {
	f.CSRF = page.CSRFToken(c)
	return page.Render(c, status, page.View{Title: page.T(c, "admin.seller.title"), Page: page.Full(views.AdminSellerView, f)})
}

// Save checks the fields (each one's error at it, 422) and saves them over
// the version the form showed (another's change meanwhile: 409, the form
// as typed with the details as they are now).
func (h *AdminSeller) Save(c *fiber.Ctx) error {
	version, err := strconv.Atoi(page.Field(c, "version"))
	if err != nil || version < 0 {
		return page.BadRequest("error.form_broken")
	}
	f := views.AdminSellerForm{Name: page.Field(c, "name"), Address: page.Field(c, "address"), VAT: page.Field(c, "vat"), Version: version, Errors: views.FieldErrors{}}
	sel := store.Seller{LegalName: f.Name, Address: f.Address, VATNumber: f.VAT, ChangedBy: page.Viewer(c).Name, Version: version}
	ctx := c.UserContext()
	if errs := sel.Check(); errs != nil {
		for k, key := range map[string]string{"name": "admin.seller.err.name", "address": "admin.seller.err.address", "vat": "admin.seller.err.vat"} {
			if errs[k] != nil {
				f.Errors[k] = page.T(c, key)
			}
		}
		if f.Saved, err = h.Store.SellerNow(ctx); err != nil {
			return err
		}
		return h.render(c, fiber.StatusUnprocessableEntity, f)
	}
	_, err = h.Store.SaveSeller(ctx, sel)
	if errors.Is(err, store.ErrConflict) {
		now, rerr := h.Store.SellerNow(ctx)
		if rerr != nil {
			return rerr
		}
		f.Saved, f.Version, f.Error = now, now.Version, page.T(c, "admin.seller.conflict")
		return h.render(c, fiber.StatusConflict, f)
	}
	if err != nil {
		return err
	}
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.seller.saved"))
	return page.Redirect(c, paths.AdminSeller)
}
