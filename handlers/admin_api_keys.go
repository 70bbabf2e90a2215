package handlers

import (
	"context"
	"errors"
	"strings"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// AdminAPIKeyStore is what the API keys page reads and writes.
type AdminAPIKeyStore interface {
	APIKeys(ctx context.Context) ([]store.APIKey, error)
	CreateAPIKey(ctx context.Context, name string) (store.APIKey, string, error)
	RevokeAPIKey(ctx context.Context, id string) error
}

// AdminAPIKeys serves /admin/api-keys: staff make keys for other systems
// (the secret is shown once) and revoke them.
type AdminAPIKeys struct {
	Store AdminAPIKeyStore
}

// List shows every key with the form to make one.
func (h *AdminAPIKeys) List(c *fiber.Ctx) error {
	return h.render(c, fiber.StatusOK, views.AdminAPIKeyForm{}, nil)
}

func (h *AdminAPIKeys) render(c *fiber.Ctx, status int, f views.AdminAPIKeyForm, created *views.AdminCreatedAPIKey) error {
	f.CSRF = page.CSRFToken(c)
	keys, err := h.Store.APIKeys(c.UserContext())
	if err != nil {
		return err
	}
	data := views.AdminAPIKeys{Keys: keys, Form: f, Created: created}
	// The page may carry a secret: no cache keeps it (page.Write marks a
	// signed-in visit's pages no-store).
	return page.Render(c, status, page.View{Title: page.T(c, "admin.apikeys.title"), Page: page.Full(views.AdminAPIKeysView, data)})
}

// Create makes a key and answers the list with its secret, this once: it
// is not put in the session's flash, which is stored.
func (h *AdminAPIKeys) Create(c *fiber.Ctx) error {
	f := views.AdminAPIKeyForm{Name: strings.TrimSpace(page.Field(c, "name")), Errors: views.FieldErrors{}}
	if f.Name == "" {
		f.Errors["name"] = page.T(c, "admin.apikeys.err.empty")
		return h.render(c, fiber.StatusUnprocessableEntity, f, nil)
	}
	key, secret, err := h.Store.CreateAPIKey(c.UserContext(), f.Name)
	switch {
	case errors.Is(err, store.ErrBadKeyName):
		f.Errors["name"] = page.T(c, "admin.apikeys.err.bad")
	case errors.Is(err, store.ErrConflict):
		f.Errors["name"] = page.T(c, "admin.apikeys.err.in_use")
	case err != nil:
		return err
	}
	if f.Errors.Any() {
		return h.render(c, fiber.StatusUnprocessableEntity, f, nil)
	}
	return h.render(c, fiber.StatusCreated, views.AdminAPIKeyForm{}, &views.AdminCreatedAPIKey{Key: key, Secret: secret})
}

// key finds a key by its id among all (keys are few).
func (h *AdminAPIKeys) key(c *fiber.Ctx) (store.APIKey, error) {
	id, err := pathID(c, "id", "This API key")
	if err != nil {
		return store.APIKey{}, err
	}
	keys, err := h.Store.APIKeys(c.UserContext())
	if err != nil {
		return store.APIKey{}, err
	}
	for _, k := range keys {
		if k.ID == id {
			return k, nil
		}
	}
	return store.APIKey{}, page.NotFound("This API key")
}

// ConfirmRevoke asks before revoking a key.
func (h *AdminAPIKeys) ConfirmRevoke(c *fiber.Ctx) error {
	k, err := h.key(c)
	if err != nil {
		return err
	}
	data := views.AdminAPIKeyRevoke{Key: k, CSRF: page.CSRFToken(c)}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "admin.apikeys.revoke_title", "Name", k.Name), Page: page.Full(views.AdminAPIKeyRevokeView, data)})
}

// Revoke stops a key; every replica refuses it within a few seconds.
func (h *AdminAPIKeys) Revoke(c *fiber.Ctx) error {
	k, err := h.key(c)
	if err != nil {
		return err
	}
	if k.Revoked {
		page.Flash(c, views.FlashInfo, page.T(c, "admin.apikeys.flash_already", "Name", k.Name))
		return page.Redirect(c, paths.AdminAPIKeys)
	}
	if err := h.Store.RevokeAPIKey(c.UserContext(), k.ID); err != nil {
		return notFoundAs(err, "This API key")
	}
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.apikeys.flash_revoked", "Name", k.Name))
	return page.Redirect(c, paths.AdminAPIKeys)
}
