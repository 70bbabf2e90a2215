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
	APIAccess(ctx context.Context) (store.APIAccess, error)
	CreateIntegration(ctx context.Context, name string) (store.Integration, store.APIKey, string, error)
	IssueAPIKey(ctx context.Context, integration string) (store.APIKey, string, error)
	RotateAPIKey(ctx context.Context, id string) (store.APIKey, string, error)
	RevokeAPIKey(ctx context.Context, id string) error
	RevokeIntegration(ctx context.Context, name string) error
}

// AdminAPIKeys serves /admin/api-keys: staff add integrations (other
// systems, each with a name taken for good), issue, rotate and revoke
// their keys (a secret is shown once), and revoke an integration.
type AdminAPIKeys struct {
	Store AdminAPIKeyStore
}

// List shows every integration with its keys, and the form to add one.
func (h *AdminAPIKeys) List(c *fiber.Ctx) error {
	return h.render(c, fiber.StatusOK, views.AdminAPIKeyForm{}, nil)
}

func (h *AdminAPIKeys) render(c *fiber.Ctx, status int, f views.AdminAPIKeyForm, created *views.AdminCreatedAPIKey) error {
	f.CSRF = page.CSRFToken(c)
	access, err := h.Store.APIAccess(c.UserContext())
	if err != nil {
		return err
	}
	data := views.AdminAPIKeys{Form: f, Created: created, CSRF: f.CSRF}
	for _, in := range access.Integrations {
		data.Integrations = append(data.Integrations, views.AdminIntegration{Integration: in, Keys: access.KeysOf(in.Name), Webhooks: access.WebhooksOf(in.Name)})
	}
	// The page may carry a secret: no cache keeps it (page.Write marks a
	// signed-in visit's pages no-store).
	return page.Render(c, status, page.View{Title: page.T(c, "admin.apikeys.title"), Page: page.Full(views.AdminAPIKeysView, data)})
}

// Create adds an integration with its first key and answers the list with
// the key's secret, this once: it is not put in the session's flash,
// which is stored.
func (h *AdminAPIKeys) Create(c *fiber.Ctx) error {
	f := views.AdminAPIKeyForm{Name: strings.TrimSpace(page.Field(c, "name")), Errors: views.FieldErrors{}}
	if f.Name == "" {
		f.Errors["name"] = page.T(c, "admin.apikeys.err.empty")
		return h.render(c, fiber.StatusUnprocessableEntity, f, nil)
	}
	_, key, secret, err := h.Store.CreateIntegration(c.UserContext(), f.Name)
	switch {
	case errors.Is(err, store.ErrBadIntegrationName):
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

// integration finds the integration of the URL among all (they are few).
func (h *AdminAPIKeys) integration(c *fiber.Ctx) (store.Integration, store.APIAccess, error) {
	name := c.Params("name")
	if !store.ValidIntegrationName(name) {
		return store.Integration{}, store.APIAccess{}, page.NotFound("error.not_found.integration")
	}
	access, err := h.Store.APIAccess(c.UserContext())
	if err != nil {
		return store.Integration{}, store.APIAccess{}, err
	}
	in, ok := access.Integration(name)
	if !ok {
		return store.Integration{}, store.APIAccess{}, page.NotFound("error.not_found.integration")
	}
	return in, access, nil
}

// Issue makes another key of an integration (for a system that changes
// keys without a gap: it uses the new one, then staff revoke the old) and
// answers the list with its secret, this once.
func (h *AdminAPIKeys) Issue(c *fiber.Ctx) error {
	in, _, err := h.integration(c)
	if err != nil {
		return err
	}
	key, secret, err := h.Store.IssueAPIKey(c.UserContext(), in.Name)
	if errors.Is(err, store.ErrIntegrationRevoked) {
		page.Flash(c, views.FlashError, page.T(c, "admin.apikeys.err.revoked", "Name", in.Name))
		return page.Redirect(c, paths.AdminAPIKeys)
	}
	if err != nil {
		return notFoundAs(err, "error.not_found.integration")
	}
	return h.render(c, fiber.StatusCreated, views.AdminAPIKeyForm{}, &views.AdminCreatedAPIKey{Key: key, Secret: secret})
}

// key finds a key by its id among all, with its integration.
func (h *AdminAPIKeys) key(c *fiber.Ctx) (store.APIKey, store.Integration, error) {
	id, err := pathID(c, "id", "error.not_found.api_key")
	if err != nil {
		return store.APIKey{}, store.Integration{}, err
	}
	access, err := h.Store.APIAccess(c.UserContext())
	if err != nil {
		return store.APIKey{}, store.Integration{}, err
	}
	for _, k := range access.Keys {
		if k.ID == id {
			in, _ := access.Integration(k.Integration)
			return k, in, nil
		}
	}
	return store.APIKey{}, store.Integration{}, page.NotFound("error.not_found.api_key")
}

// ConfirmRevoke asks before revoking a key.
func (h *AdminAPIKeys) ConfirmRevoke(c *fiber.Ctx) error {
	k, in, err := h.key(c)
	if err != nil {
		return err
	}
	data := views.AdminAPIKeyConfirm{Key: k, Integration: in, CSRF: page.CSRFToken(c)}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "admin.apikeys.revoke_title", "Name", k.Integration), Page: page.Full(views.AdminAPIKeyRevokeView, data)})
}

// Revoke stops a key; every replica refuses it within a few seconds.
func (h *AdminAPIKeys) Revoke(c *fiber.Ctx) error {
	k, _, err := h.key(c)
	if err != nil {
		return err
	}
	if k.Revoked {
		page.Flash(c, views.FlashInfo, page.T(c, "admin.apikeys.flash_already", "Name", k.Integration))
		return page.Redirect(c, paths.AdminAPIKeys)
	}
	if err := h.Store.RevokeAPIKey(c.UserContext(), k.ID); err != nil {
		return notFoundAs(err, "error.not_found.api_key")
	}
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.apikeys.flash_revoked", "Name", k.Integration))
	return page.Redirect(c, paths.AdminAPIKeys)
}

// ConfirmRotate asks before replacing a key with a new one.
func (h *AdminAPIKeys) ConfirmRotate(c *fiber.Ctx) error {
	k, in, err := h.key(c)
	if err != nil {
		return err
	}
	data := views.AdminAPIKeyConfirm{Key: k, Integration: in, CSRF: page.CSRFToken(c)}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "admin.apikeys.rotate_title", "Name", k.Integration), Page: page.Full(views.AdminAPIKeyRotateView, data)})
}

// Rotate revokes a key and makes its integration a new one, at once, and
// answers the list with the new secret, this once. The integration keeps
// its drops and its clients' tickets.
func (h *AdminAPIKeys) Rotate(c *fiber.Ctx) error {
	k, _, err := h.key(c)
	if err != nil {
		return err
	}
	key, secret, err := h.Store.RotateAPIKey(c.UserContext(), k.ID)
	switch {
	case errors.Is(err, store.ErrIntegrationRevoked):
		page.Flash(c, views.FlashError, page.T(c, "admin.apikeys.err.revoked", "Name", k.Integration))
		return page.Redirect(c, paths.AdminAPIKeys)
	case errors.Is(err, store.ErrConflict): // revoked meanwhile
		page.Flash(c, views.FlashInfo, page.T(c, "admin.apikeys.flash_already", "Name", k.Integration))
		return page.Redirect(c, paths.AdminAPIKeys)
	case err != nil:
		return notFoundAs(err, "error.not_found.api_key")
	}
	return h.render(c, fiber.StatusCreated, views.AdminAPIKeyForm{}, &views.AdminCreatedAPIKey{Key: key, Secret: secret, Replaces: k})
}

// ConfirmRevokeIntegration asks before revoking an integration.
func (h *AdminAPIKeys) ConfirmRevokeIntegration(c *fiber.Ctx) error {
	in, access, err := h.integration(c)
	if err != nil {
		return err
	}
	data := views.AdminIntegrationRevoke{Integration: views.AdminIntegration{Integration: in, Keys: access.KeysOf(in.Name)}, CSRF: page.CSRFToken(c)}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "admin.apikeys.integration_revoke_title", "Name", in.Name), Page: page.Full(views.AdminIntegrationRevokeView, data)})
}

// RevokeIntegration stops every key of an integration for good; its name
// is never used again.
func (h *AdminAPIKeys) RevokeIntegration(c *fiber.Ctx) error {
	in, _, err := h.integration(c)
	if err != nil {
		return err
	}
	err = h.Store.RevokeIntegration(c.UserContext(), in.Name)
	switch {
	case in.Revoked, errors.Is(err, store.ErrConflict):
		page.Flash(c, views.FlashInfo, page.T(c, "admin.apikeys.flash_integration_already", "Name", in.Name))
		return page.Redirect(c, paths.AdminAPIKeys)
	case err != nil:
		return notFoundAs(err, "error.not_found.integration")
	}
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.apikeys.flash_integration_revoked", "Name", in.Name))
	return page.Redirect(c, paths.AdminAPIKeys)
}
