package handlers

import (
	"context"
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/views/lang"
	"shop/web/paths"
)

// DropStore is what the customer's drop pages read from the table.
type DropStore interface {
	Ticket(ctx context.Context, dropID, client string) (store.Ticket, error)
	CustomerTickets(ctx context.Context, customerID string, limit int, cursor string) (store.Page[store.Ticket], error)
	Product(ctx context.Context, id string) (store.Product, error)
	AddTicketToCart(ctx context.Context, owner string, d store.Drop, p store.Product) error
	Cart(ctx context.Context, owner string) (store.Cart, error)
	Now() time.Time
	Location() *time.Location
}

// DropsWindow is /drops read through the store's shop window (a second).
type DropsWindow interface {
	PublishedDrops(ctx context.Context, limit int, cursor string) (store.Page[store.Drop], error)
	// CatalogueProduct is what a product drop's ticket buys, from the
	// window's copy of the catalogue (no read of its own once warm).
	CatalogueProduct(ctx context.Context, id string) (store.Product, error)
}

// DropGate answers claims and counts from this replica's memory, asking
// DynamoDB only when it must (*dropgate.Gate).
type DropGate interface {
	Claim(ctx context.Context, req store.ClaimRequest) (store.Ticket, error)
	Count(ctx context.Context, id string) (store.Drop, error)
	Prime(drops ...store.Drop)
	Allow(client string) bool
}

const (
	dropsPageSize   = 12
	ticketsPageSize = 20
)

// Drops serves /drops, a drop's page, its live count, the claim, and the
// customer's tickets.
type Drops struct {
	Store  DropStore
	Window DropsWindow
	Gate   DropGate
}

// published reads a drop through the gate (memory, after its first read);
// a drop nobody published (an API client's) is a 404 here, as is an
// unknown one.
func (h *Drops) published(ctx context.Context, id string) (store.Drop, error) {
	d, err := h.Gate.Count(ctx, id)
	if err != nil {
		return store.Drop{}, notFoundAs(err, "error.not_found.drop")
	}
	if !d.Published {
		return store.Drop{}, page.NotFound("error.not_found.drop")
	}
	return d, nil
}

// List is the published drops that are open or coming, those closing
// soonest first; the open ones with their live count from the gate, which
// learns them from the list itself if it does not know them yet.
func (h *Drops) List(c *fiber.Ctx) error {
	ctx := c.UserContext()
	drops, err := h.Window.PublishedDrops(ctx, dropsPageSize, c.Query("after"))
	if err != nil {
		return err
	}
	now := h.Store.Now()
	data := views.DropsPage{Now: now, Loc: h.Store.Location()}
	for _, d := range drops.Items {
		switch views.PhaseOf(d, now) {
		case views.PhaseClosed, views.PhaseCancelled:
			continue // over early: not on the list
		case views.PhaseOpen, views.PhaseSoldOut:
			h.Gate.Prime(d)
			if live, err := h.Gate.Count(ctx, d.ID); err == nil {
				d = live
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
			if p := views.PhaseOf(d, now); p == views.PhaseClosed || p == views.PhaseCancelled {
				continue
			}
		}
		data.Drops = append(data.Drops, d)
		prod, ok, err := h.product(ctx, d)
		if err != nil {
			return err
		}
		if ok {
			if data.Products == nil {
				data.Products = map[string]store.Product{}
			}
			data.Products[d.ProductID] = prod
		}
	}
	data.NextURL = paths.More(paths.Drops, drops.Next)
	return page.List(c, page.T(c, "drops.title"), views.DropsView, views.DropCards, data)
}

// claimArea is the claim area of a drop for this visit: the customer's
// ticket if they have one. A visitor gets a sign-in link and no session.
func (h *Drops) claimArea(c *fiber.Ctx, d store.Drop) (views.DropClaim, error) {
	v := page.Viewer(c)
	area := views.DropClaim{Drop: d, Now: h.Store.Now(), Loc: h.Store.Location(), SignedIn: v.SignedIn()}
	if !v.SignedIn() {
		return area, nil
	}
	area.CSRF = page.CSRFToken(c)
	t, err := h.Store.Ticket(c.UserContext(), d.ID, v.ID)
	switch {
	case err == nil && t.Status == store.TicketReleased: // given back: they may claim again
	case err == nil:
		area.Ticket = &t
		area.Offer = views.OfferOf(t, d, area.Now)
	case !errors.Is(err, store.ErrNotFound):
		return area, err
	}
	if area.Offer != nil {
		inCart, err := h.ticketsInCart(c)
		if err != nil {
			return area, err
		}
		area.Offer.InCart = inCart[d.ID]
	}
	return area, nil
}

// ticketsInCart is the drops whose ticket lines are in the visit's cart:
// a ticket already there is offered the cart, not "Add to cart" again. One
// Query of the cart, made only for a ticket that has an offer.
func (h *Drops) ticketsInCart(c *fiber.Ctx) (map[string]bool, error) {
	cart, err := h.Store.Cart(c.UserContext(), page.CartOwner(c, false))
	if err != nil {
		return nil, err
	}
	in := map[string]bool{}
	for _, l := range cart.Lines {
		if l.DropID != "" {
			in[l.DropID] = true
		}
	}
	return in, nil
}

// areaOf reads the drop of the URL (through the gate) and this visit's
// claim area of it.
func (h *Drops) areaOf(c *fiber.Ctx) (views.DropClaim, error) {
	id, err := pathID(c, "id", "error.not_found.drop")
	if err != nil {
		return views.DropClaim{}, err
	}
	d, err := h.published(c.UserContext(), id)
	if err != nil {
		return views.DropClaim{}, err
	}
	return h.claimArea(c, d)
}

// product is what a product drop's ticket buys; false for another drop
// or a product gone from the catalogue (the page then says the drop's own).
func (h *Drops) product(ctx context.Context, d store.Drop) (store.Product, bool, error) {
	if d.ProductID == "" {
		return store.Product{}, false, nil
	}
	p, err := h.Window.CatalogueProduct(ctx, d.ProductID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Product{}, false, nil
	case err != nil:
		return store.Product{}, false, err
	}
	return p, true, nil
}

// liveOf is the live part of a drop's page for this visit: a holder's
// says so.
func liveOf(area views.DropClaim) views.DropLive {
	return views.DropLive{Drop: area.Drop, Now: area.Now, Holder: area.Ticket != nil}
}

// dropView is a drop's whole page.
func (h *Drops) dropView(ctx context.Context, area views.DropClaim) (page.View, error) {
	prod, ok, err := h.product(ctx, area.Drop)
	if err != nil {
		return page.View{}, err
	}
	data := views.DropPage{Live: liveOf(area), Claim: area}
	if ok {
		data.Product = &prod
	}
	return page.View{Title: area.Drop.Title, Page: page.Full(views.DropView, data)}, nil
}

// Show is a drop's page: what a ticket gets, the countdown to its opening
// or what is left, and the claim area.
func (h *Drops) Show(c *fiber.Ctx) error {
	area, err := h.areaOf(c)
	if err != nil {
		return err
	}
	v, err := h.dropView(c.UserContext(), area)
	if err != nil {
		return err
	}
	return page.Render(c, fiber.StatusOK, v)
}

// ClaimArea is the claim area alone, which htmx fetches at the opening
// (the Claim button appears without a reload) and when the live count
// finds the drop over; without htmx it is the drop's page.
func (h *Drops) ClaimArea(c *fiber.Ctx) error {
	area, err := h.areaOf(c)
	if err != nil {
		return err
	}
	v, err := h.dropView(c.UserContext(), area)
	if err != nil {
		return err
	}
	v.Partial = views.DropClaimView(area)
	return page.Render(c, fiber.StatusOK, v)
}

// Count is the live part of a drop's page: the countdown, then what is
// left. It is served before the session middleware (no cookie is read or
// set) and answers from the gate's memory: no DynamoDB request once this
// replica knows the drop. The answer that first finds the drop over tells
// the page (HX-Trigger drop-final) so that its claim area catches up.
func (h *Drops) Count(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "error.not_found.drop")
	if err != nil {
		return err
	}
	d, err := h.published(c.UserContext(), id)
	if err != nil {
		return err
	}
	live := views.DropLive{Drop: d, Now: h.Store.Now(), Holder: c.Query("holder") == "1"}
	if live.Phase().Final() && page.IsHTMX(c) {
		c.Set("HX-Trigger", "drop-final")
	}
	c.Set(fiber.HeaderCacheControl, "public, max-age=1")
	c.Vary("HX-Request")
	c.Status(fiber.StatusOK)
	c.Set(fiber.HeaderContentType, "text/html; charset=utf-8")
	return views.DropLiveView(live).Render(c.UserContext(), c.Response().BodyWriter())
}

// Claim claims the customer's ticket through the gate. htmx gets the claim
// area back: 200 with the ticket, or 409/422 saying why not (already
// yours, sold out, not open yet, closed, cancelled), 429 when claiming too
// fast. A plain form goes back to the drop's page with a flash. A visitor
// is sent to sign in and back to the drop.
func (h *Drops) Claim(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "error.not_found.drop")
	if err != nil {
		return err
	}
	back := paths.Drop(id)
	if !page.Viewer(c).SignedIn() {
		page.Flash(c, views.FlashInfo, page.T(c, "drops.flash.sign_in"))
	}
	v, err := signedInFor(c, back)
	if err != nil || !v.SignedIn() {
		return err
	}
	ctx := c.UserContext()
	d, err := h.published(ctx, id)
	if err != nil {
		return err
	}
	if !h.Gate.Allow(v.ID) {
		area, err := h.claimArea(c, d)
		if err != nil {
			return err
		}
		area.Error = page.T(c, "drops.refused.too_fast")
		return h.answerClaim(c, fiber.StatusTooManyRequests, area, back)
	}
	t, claimErr := h.Gate.Claim(ctx, store.ClaimRequest{DropID: id, Client: v.ID, CustomerID: v.ID, DropTitle: d.Title,
		RedeemWithin: d.TicketRedeemWithin()})
	// A refused claim says itself (already yours, sold out, not open,
	// closed, cancelled, busy), with its status.
	refusal, refused := page.RefusalOf(ctx, claimErr)
	if claimErr != nil && !refused {
		return notFoundAs(claimErr, "error.not_found.drop")
	}
	// The drop as the gate knows it now (a refusal taught it something).
	if now, err := h.Gate.Count(ctx, id); err == nil {
		d = now
	}
	area := views.DropClaim{Drop: d, Now: h.Store.Now(), Loc: h.Store.Location(), SignedIn: true, CSRF: page.CSRFToken(c)}
	if claimErr == nil {
		page.Written(c, "drop", id, "customer", v.ID)
		area.Ticket, area.Notice = &t, page.T(c, "drops.claim.claimed")
		area.Offer = views.OfferOf(t, d, area.Now)
		return h.answerClaim(c, fiber.StatusOK, area, back)
	}
	area.Error = refusal.Text
	if errors.Is(claimErr, store.ErrAlreadyClaimed) {
		if mine, err := h.Store.Ticket(ctx, id, v.ID); err == nil {
			area.Ticket = &mine
		}
	}
	return h.answerClaim(c, refusal.Status, area, back)
}

// answerClaim swaps the claim area for htmx, or goes back to the drop's
// page with the outcome as a flash.
func (h *Drops) answerClaim(c *fiber.Ctx, status int, area views.DropClaim, back string) error {
	if page.IsHTMX(c) {
		live := liveOf(area)
		live.OOB = true
		return page.Write(c, status, views.DropClaimAnswer(area, live))
	}
	if area.Error != "" {
		page.Flash(c, views.FlashError, area.Error)
	} else {
		page.Flash(c, views.FlashSuccess, area.Notice)
	}
	return page.Redirect(c, back)
}

// Tickets is the customer's tickets, newest first, a page at a time.
func (h *Drops) Tickets(c *fiber.Ctx) error {
	v, err := signedInFor(c, paths.Tickets)
	if err != nil || !v.SignedIn() {
		return err
	}
	tickets, err := h.Store.CustomerTickets(c.UserContext(), v.ID, ticketsPageSize, c.Query("after"))
	if err != nil {
		return err
	}
	data := views.TicketsPage{Tickets: tickets.Items, Loc: h.Store.Location(), Offers: map[string]views.TicketOffer{}, CSRF: page.CSRFToken(c)}
	now := h.Store.Now()
	for _, t := range tickets.Items {
		if t.Status != store.TicketValid {
			continue
		}
		// The drop as this replica's gate knows it (memory after its first
		// read): whether it is a product drop, its price and redeem time.
		d, err := h.Gate.Count(c.UserContext(), t.DropID)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if o := views.OfferOf(t, d, now); o != nil {
			data.Offers[t.DropID] = *o
		}
	}
	if len(data.Offers) > 0 {
		inCart, err := h.ticketsInCart(c)
		if err != nil {
			return err
		}
		for id, o := range data.Offers {
			o.InCart = inCart[id]
			data.Offers[id] = o
		}
	}
	data.NextURL = paths.More(paths.Tickets, tickets.Next)
	return page.List(c, page.T(c, "tickets.title"), views.TicketsView, views.TicketRows, data)
}

// Buy puts the unit a valid ticket of a product drop buys in the cart, as
// a line of its own at the drop's price; checkout redeems the ticket. A
// ticket that cannot buy (used, void, expired) is told with a flash.
func (h *Drops) Buy(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "error.not_found.ticket")
	if err != nil {
		return err
	}
	v, err := signedInFor(c, paths.Tickets)
	if err != nil || !v.SignedIn() {
		return err
	}
	ctx := c.UserContext()
	t, err := h.Store.Ticket(ctx, id, v.ID)
	if err != nil {
		return notFoundAs(err, "error.not_found.ticket")
	}
	d, err := h.Gate.Count(ctx, id)
	if err != nil {
		return notFoundAs(err, "error.not_found.drop")
	}
	if views.OfferOf(t, d, h.Store.Now()) == nil {
		page.Flash(c, views.FlashError, page.T(c, "tickets.cannot_buy"))
		return page.Redirect(c, paths.Tickets)
	}
	p, err := h.Store.Product(ctx, d.ProductID)
	if err != nil {
		return notFoundAs(err, "error.not_found.drop_product")
	}
	err = h.Store.AddTicketToCart(ctx, page.CartOwner(c, true), d, p)
	switch {
	case errors.Is(err, store.ErrOneTicketPerOrder), errors.Is(err, store.ErrCartFull):
		page.Flash(c, views.FlashError, refusalText(ctx, err))
		return page.Redirect(c, paths.Cart)
	case err != nil:
		return err
	}
	// The cart page it goes to counts the items again (a ticket already in
	// the cart is left as it was, so this cannot simply add one).
	page.Flash(c, views.FlashSuccess, page.T(c, "tickets.added", "Product", p.Name, "Price", lang.Money(ctx, d.Price)))
	return page.Redirect(c, paths.Cart)
}
