package handlers

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/store/dropgate"
	"shop/store/photos"
	"shop/views"
	"shop/views/lang"
	"shop/web/paths"
)

// AdminDropStore is what the staff drop pages read and write.
type AdminDropStore interface {
	// Currency is the ISO 4217 code the shop prices in.
	Currency() string
	AllDrops(ctx context.Context, limit int, cursor string) (store.Page[store.Drop], error)
	Drop(ctx context.Context, id string) (store.Drop, error)
	// ValidateDrop checks a new drop with the shop's bounds (how long a
	// drop may last).
	ValidateDrop(nd store.NewDrop) error
	CreateDrop(ctx context.Context, nd store.NewDrop) (store.Drop, error)
	SetDropDescription(ctx context.Context, dropID, description string) error
	SetDropPhoto(ctx context.Context, dropID string, photo store.Photo) error
	// APIAccess lists the integrations a drop can be made for.
	APIAccess(ctx context.Context) (store.APIAccess, error)
	// SetDropStatusAnnounced closes a drop early, with an integration's
	// drop its drop.closed event.
	SetDropStatusAnnounced(ctx context.Context, id string, to store.DropStatus, a *store.Announcement[store.Drop]) error
	// CancelDropAnnounced cancels a drop (again, to finish one cut short)
	// and voids its tickets, with an integration's drop its events.
	CancelDropAnnounced(ctx context.Context, id string, a store.CancelAnnouncements) ([]store.Ticket, error)
	DropTickets(ctx context.Context, dropID string, limit int, cursor string) (store.Page[store.Ticket], error)
	// TicketConsistent reads one holder's ticket; ReleaseTicket gives it
	// back (as the API does).
	TicketConsistent(ctx context.Context, dropID, client string) (store.Ticket, error)
	ReleaseTicket(ctx context.Context, req store.ReleaseRequest) (store.Ticket, error)
	Customer(ctx context.Context, id string) (store.Customer, error)
	// CustomersByID names a page of holders: one BatchGetItem.
	CustomersByID(ctx context.Context, ids []string) (map[string]store.Customer, error)
	Warehouses(ctx context.Context) ([]store.Warehouse, error)
	PutMail(ctx context.Context, m store.Mail) error
	ListedClaimed(d store.Drop) bool
	Now() time.Time
	Location() *time.Location
}

// AdminDropGate is this replica's gate: its view of a drop's claims, and
// forgetting a drop staff changed so that the next claim reads it again.
type AdminDropGate interface {
	Stats(id string) dropgate.Stats
	Forget(id string)
	// Released: a ticket (of counter n) was given back here.
	Released(id string, n int)
}

// AdminDrops serves /admin/drops: the list, the new-drop form, a drop's
// live count and holders, closing early, cancelling, and the CSV.
type AdminDrops struct {
	Store AdminDropStore
	Gate  AdminDropGate
	Log   *slog.Logger
	// Shelf keeps the drops' photos (the products' shelf).
	Shelf photos.Shelf
	// Catalogue is the shop window's copy of the catalogue: the products
	// the new-drop form picks from and a product drop's name, with no
	// read once it is warm.
	Catalogue AdminDropCatalogue
	// Hooks says which endpoints of an integration's drop want the events
	// of staff's changes (the API key cache's copy); nil: none are written.
	Hooks APIHooks
	// Wake tells this replica's webhook deliverer an event was written.
	Wake func()
}

// adminAnnounce is the announcement of an event of an integration's drop d,
// or nil when it is the shop's or no endpoint wants it.
func adminAnnounce[T any](h *AdminDrops, d store.Drop, typ string, data func(T) any) *store.Announcement[T] {
	integration, _ := store.AudienceIntegration(d.Audience)
	return announceFor(h.Hooks, integration, typ, data)
}

// wake tells the deliverer after a write that carried an event.
func (h *AdminDrops) wake(announced bool) {
	if announced && h.Wake != nil {
		h.Wake()
	}
}

// dropData is a drop as an event of staff's change shows it: as the API
// answers it then.
func (h *AdminDrops) dropData(d store.Drop) any { return apiDropOf(d, h.Store.Now()) }

// AdminDropCatalogue is the catalogue's copy (store.Window).
type AdminDropCatalogue interface {
	CatalogueProducts(ctx context.Context) ([]store.Product, error)
	CatalogueProduct(ctx context.Context, id string) (store.Product, error)
}

const (
	adminDropTicketsPage = 50
	// dropCancelTimeout bounds a cancellation's voiding and mailing, which
	// outlives the request's own deadline (a big drop has many holders).
	dropCancelTimeout = 2 * time.Minute
	dropMailWorkers   = 8
	// datetimeLocal is an <input type="datetime-local"> value.
	datetimeLocal = "2006-01-02T15:04"
	// defaultRedeemHours: a product drop's ticket buys within 48 hours.
	defaultRedeemHours = "48"
)

func (h *AdminDrops) log() *slog.Logger {
	if h.Log != nil {
		return h.Log
	}
	return slog.Default()
}

// newForm is an empty form: for the customers, opening at the next full
// hour, for a day, 100 tickets, published.
func (h *AdminDrops) newForm(c *fiber.Ctx) views.AdminDropForm {
	loc := h.Store.Location()
	opens := h.Store.Now().In(loc).Truncate(time.Hour).Add(time.Hour)
	return views.AdminDropForm{
		Quantity: "100", Opens: opens.Format(datetimeLocal), Closes: opens.AddDate(0, 0, 1).Format(datetimeLocal),
		RedeemHours: defaultRedeemHours, Published: true, Audience: store.DropAudienceShop,
		Zone: loc.String(), CSRF: page.CSRFToken(c), Errors: views.FieldErrors{},
	}
}

// List is every drop, newest first, a page at a time, with the form.
func (h *AdminDrops) List(c *fiber.Ctx) error {
	return h.renderList(c, fiber.StatusOK, h.newForm(c))
}

// withIntegrations gives the form the integrations a drop can be for
// (those not revoked) and the products it can be a drop of.
func (h *AdminDrops) withIntegrations(c *fiber.Ctx, form *views.AdminDropForm) error {
	access, err := h.Store.APIAccess(c.UserContext())
	if err != nil {
		return err
	}
	if form.Products, err = h.Catalogue.CatalogueProducts(c.UserContext()); err != nil {
		return err
	}
	form.Integrations = nil
	for _, in := range access.Integrations {
		if !in.Revoked {
			form.Integrations = append(form.Integrations, in.Name)
		}
	}
	slices.Sort(form.Integrations)
	return nil
}

func (h *AdminDrops) renderList(c *fiber.Ctx, status int, form views.AdminDropForm) error {
	if c.Query("after") == "" { // "Show more" asks for rows, without the form
		if err := h.withIntegrations(c, &form); err != nil {
			return err
		}
	}
	drops, err := h.Store.AllDrops(c.UserContext(), adminPageSize, c.Query("after"))
	if err != nil {
		return err
	}
	data := views.AdminDrops{Now: h.Store.Now(), Loc: h.Store.Location(), Form: form}
	for _, d := range drops.Items {
		data.Drops = append(data.Drops, views.AdminDropRow{Drop: d, Counted: h.Store.ListedClaimed(d)})
	}
	data.NextURL = paths.More(paths.AdminDrops, drops.Next)
	partial := views.AdminDropFormView(form)
	if c.Query("after") != "" {
		partial = views.AdminDropRows(data)
	}
	return page.Render(c, status, page.View{Title: page.T(c, "admin.drops.title"), Page: page.Full(views.AdminDropsView, data), Partial: partial})
}

// parseLocal reads a datetime-local value in the shop's time zone.
// drop reads the drop of the URL; an unknown one is a 404.
func (h *AdminDrops) drop(c *fiber.Ctx) (store.Drop, error) {
	id, err := pathID(c, "id", "error.not_found.drop")
	if err != nil {
		return store.Drop{}, err
	}
	d, err := h.Store.Drop(c.UserContext(), id)
	return d, notFoundAs(err, "error.not_found.drop")
}

// createdBy names who made the drop: the staff member (their name, read
// now: "" if their account is gone) or the integration.
func (h *AdminDrops) createdBy(ctx context.Context, d store.Drop) (string, error) {
	if name, ok := store.AudienceIntegration(d.CreatedBy); ok {
		return lang.T(ctx, "admin.drops.for_integration", "Name", name), nil
	}
	id, ok := store.StaffCreator(d.CreatedBy)
	if !ok {
		if d.Audience == store.DropAudienceShop {
			// A drop for the customers from before its maker was kept:
			// only staff make those.
			return lang.T(ctx, "admin.drops.by_staff"), nil
		}
		return "", nil
	}
	cust, err := h.Store.Customer(ctx, id)
	if errors.Is(err, store.ErrNotFound) || err == nil && cust.Name == "" {
		return lang.T(ctx, "admin.drops.by_staff"), nil
	}
	return cust.Name, err
}

// names fills in what the drop's page names: its product, the warehouses
// its quantity was set aside from, and the page's holders (one
// BatchGetItem; a product drop also reads the warehouses, one Query).
func (h *AdminDrops) names(ctx context.Context, d store.Drop, data *views.AdminDropPage) error {
	var ids []string
	for _, tk := range data.Tickets {
		if tk.CustomerID != "" {
			ids = append(ids, tk.CustomerID)
		}
	}
	var err error
	if len(ids) > 0 {
		if data.Holders, err = h.Store.CustomersByID(ctx, ids); err != nil {
			return err
		}
	}
	if d.ProductID == "" {
		return nil
	}
	p, err := h.Catalogue.CatalogueProduct(ctx, d.ProductID)
	switch {
	case err == nil:
		data.ProductName = p.Name
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	if len(d.SetAside) > 0 {
		ws, err := h.Store.Warehouses(ctx)
		if err != nil {
			return err
		}
		data.Warehouses = warehouseNames(ws)
	}
	return nil
}

func (h *AdminDrops) live(d store.Drop) views.AdminDropLive {
	st := h.Gate.Stats(d.ID)
	return views.AdminDropLive{Drop: d, Now: h.Store.Now(), Loc: h.Store.Location(),
		Stats: views.AdminDropStats{Claims: st.Claims, ClaimsPerSecond: st.ClaimsPerSecond, Rejected: st.Rejected}}
}

// Show is one drop: its facts, the live count, close and cancel, and its
// holders in claim order, a page at a time (htmx asks for the next rows).
func (h *AdminDrops) Show(c *fiber.Ctx) error {
	return h.renderDrop(c, fiber.StatusOK, "")
}

func (h *AdminDrops) renderDrop(c *fiber.Ctx, status int, problem string) error {
	return h.renderDropWith(c, status, problem, nil)
}

// renderDropWith is the drop's page; details, if given, is its details
// form as typed, with its errors.
func (h *AdminDrops) renderDropWith(c *fiber.Ctx, status int, problem string, details *views.AdminDropDetails) error {
	d, err := h.drop(c)
	if err != nil {
		return err
	}
	tickets, err := h.Store.DropTickets(c.UserContext(), d.ID, adminDropTicketsPage, c.Query("after"))
	if err != nil {
		return err
	}
	data := views.AdminDropPage{Live: h.live(d), Tickets: tickets.Items, CSVURL: paths.AdminDropTicketsCSV(d.ID), CSRF: page.CSRFToken(c), Error: problem,
		Details: views.AdminDropDetails{Description: d.Description, Errors: views.FieldErrors{}}}
	if details != nil {
		data.Details = *details
	}
	if c.Query("after") == "" {
		if data.CreatedBy, err = h.createdBy(c.UserContext(), d); err != nil {
			return err
		}
		err = h.names(c.UserContext(), d, &data)
	} else {
		err = h.names(c.UserContext(), store.Drop{}, &data) // rows: their holders only
	}
	if err != nil {
		return err
	}
	data.NextURL = paths.More(paths.AdminDrop(d.ID), tickets.Next)
	v := page.View{Title: d.Title, Page: page.Full(views.AdminDropView, data)}
	if c.Query("after") != "" {
		v.Partial = views.AdminDropTicketRows(data) // "Show more" asks for rows
	}
	return page.Render(c, status, v)
}

// Live is the drop's count and this replica's claims, which htmx asks for
// every second while the drop can change.
func (h *AdminDrops) Live(c *fiber.Ctx) error {
	d, err := h.drop(c)
	if err != nil {
		return err
	}
	return page.Write(c, fiber.StatusOK, views.AdminDropLiveView(h.live(d)))
}

// Close closes an open drop early: no claim succeeds after it.
func (h *AdminDrops) Close(c *fiber.Ctx) error {
	d, err := h.drop(c)
	if err != nil {
		return err
	}
	ann := adminAnnounce(h, d, store.EventDropClosed, h.dropData)
	err = h.Store.SetDropStatusAnnounced(c.UserContext(), d.ID, store.DropClosed, ann)
	h.Gate.Forget(d.ID)
	h.wake(err == nil && ann != nil)
	if errors.Is(err, store.ErrConflict) {
		return h.renderDrop(c, fiber.StatusConflict, page.T(c, "admin.drops.err.already_over"))
	}
	if err != nil {
		return err
	}
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.drops.closed", "Title", d.Title))
	return page.Redirect(c, paths.AdminDrop(d.ID))
}

func dropTicketsCSVHeader(loc *time.Location) []string {
	return []string{"drop_id", "drop_title", csvTimeColumn("claimed_at", loc), "client", "customer_id", "status"}
}

func dropTicketCSVRecord(d store.Drop, t store.Ticket, loc *time.Location) []string {
	return []string{d.ID, csvText(d.Title), t.CreatedAt.In(loc).Format(orderCSVStamp), csvText(t.Client), t.CustomerID, string(t.Status)}
}

// CSV streams the drop's holders in claim order (see streamCSV).
func (h *AdminDrops) CSV(c *fiber.Ctx) error {
	d, err := h.drop(c)
	if err != nil {
		return err
	}
	loc := h.Store.Location()
	return streamCSV(c, h.log().With("drop", d.ID), "drop-"+d.ID+"-tickets.csv", dropTicketsCSVHeader(loc), "drop tickets",
		func(ctx context.Context, cursor string) (csvPage, error) {
			batch, err := h.Store.DropTickets(ctx, d.ID, csvPageSize, cursor)
			p := csvPage{next: batch.Next}
			for _, t := range batch.Items {
				p.records = append(p.records, dropTicketCSVRecord(d, t, loc))
			}
			return p, err
		})
}
