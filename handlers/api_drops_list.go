package handlers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/store"
)

// Reading an integration's drops and one client's ticket.

// Bounds of GET /api/v1/drops.
const (
	apiDropsDefault  = 50
	apiDropsMaxLimit = 100
)

// apiDropStatuses are the statuses GET /api/v1/drops filters by.
var apiDropStatuses = []string{"upcoming", "open", "sold_out", "closed", "cancelled"}

// APIDropList is a page of the key's drops, newest first; Next is the
// cursor of the page after it, empty on the last page.
type APIDropList struct {
	Drops []APIDrop `json:"drops"`
	Next  string    `json:"next"`
}

// apiLimit reads the limit query parameter: def when absent.
func apiLimit(c *fiber.Ctx, def, most int) (int, error) {
	s := c.Query("limit")
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > most {
		return 0, apiBadRequest("limit", fmt.Sprintf("limit: a whole number from 1 to %d", most))
	}
	return n, nil
}

// List answers the key's integration's drops, newest first, a page at a
// time, those of one status if asked (?status=open). A filtered page may
// hold fewer drops than the limit, even none, with a next cursor.
func (h *APIDrops) List(c *fiber.Ctx) error {
	limit, err := apiLimit(c, apiDropsDefault, apiDropsMaxLimit)
	if err != nil {
		return err
	}
	status := c.Query("status")
	if status != "" && !slices.Contains(apiDropStatuses, status) {
		return apiBadRequest("status", "status: one of "+strings.Join(apiDropStatuses, ", "))
	}
	now := h.Store.Now()
	var keep func(store.Drop) bool
	if status != "" {
		keep = func(d store.Drop) bool { return APIDropStatus(d, now) == status }
	}
	page, err := h.Store.IntegrationDrops(c.UserContext(), APIKeyOf(c).Integration, limit, strings.TrimSpace(c.Query("after")), keep)
	if errors.Is(err, store.ErrBadCursor) {
		return apiBadRequest("after", "after: this cursor is not one this list gave")
	}
	if err != nil {
		return err
	}
	out := APIDropList{Drops: make([]APIDrop, 0, len(page.Items)), Next: page.Next}
	for _, d := range page.Items {
		out.Drops = append(out.Drops, apiDropOf(d, now))
		h.noticeListed(c, d, now)
	}
	return c.JSON(out)
}

// noticeListed tells Notice of a listed drop that sold out or is open
// past its close: a drop no gate holds (nobody claimed or read it around
// its deadline) is announced at its next read here. Notice writes each
// once per replica; not waited for.
func (h *APIDrops) noticeListed(c *fiber.Ctx, d store.Drop, now time.Time) {
	if h.Notice == nil || d.Status != store.DropOpen {
		return
	}
	var typs []string
	if d.Claimed >= d.Quantity {
		typs = append(typs, store.EventDropSoldOut)
	}
	if !now.Before(d.Closes) {
		typs = append(typs, store.EventDropClosed)
	}
	for _, typ := range typs {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(c.UserContext()), 10*time.Second)
		go func() {
			defer cancel()
			h.Notice(ctx, d, typ)
		}()
	}
}

// Ticket answers one client's ticket of one of the integration's drops,
// or 404 when the client holds none.
func (h *APIDrops) Ticket(c *fiber.Ctx) error {
	d, err := h.apiDrop(c)
	if err != nil {
		return err
	}
	client := c.Params("client")
	if !ValidAPIClient(client) {
		return apiNotFound("the ticket")
	}
	t, err := h.Store.TicketConsistent(c.UserContext(), d.ID, APIKeyOf(c).Integration+":"+client)
	if errors.Is(err, store.ErrNotFound) {
		return apiNotFound("the ticket")
	}
	if err != nil {
		return err
	}
	return c.JSON(apiTicketOf(t))
}
