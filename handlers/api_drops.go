package handlers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/store"
	"shop/store/dropgate"
)

// APIDropStore is what the drops API writes and lists in DynamoDB.
type APIDropStore interface {
	// Now is the shop's clock (the store's, set in tests).
	Now() time.Time
	// ValidateDrop checks a new drop with the shop's bounds (how long a
	// drop may last).
	ValidateDrop(nd store.NewDrop) error
	CreateDrop(ctx context.Context, nd store.NewDrop) (store.Drop, error)
	DropTickets(ctx context.Context, dropID string, limit int, cursor string) (store.Page[store.Ticket], error)
	// TicketConsistent reads one client's ticket (a GetItem).
	TicketConsistent(ctx context.Context, dropID, client string) (store.Ticket, error)
	// IntegrationDrops lists an integration's drops, newest first.
	IntegrationDrops(ctx context.Context, integration string, limit int, cursor string, keep func(store.Drop) bool) (store.Page[store.Drop], error)
	DropConsistent(ctx context.Context, id string) (store.Drop, error)
	// SetDropStatusAnnounced closes a drop, with its drop.closed event.
	SetDropStatusAnnounced(ctx context.Context, id string, to store.DropStatus, a *store.Announcement[store.Drop]) error
	// CancelDropAnnounced cancels a drop, with its drop.cancelled and
	// ticket.voided events.
	CancelDropAnnounced(ctx context.Context, id string, a store.CancelAnnouncements) ([]store.Ticket, error)
	// ReleaseTicket gives a client's ticket back (store.ReleaseTicket).
	ReleaseTicket(ctx context.Context, req store.ReleaseRequest) (store.Ticket, error)
	// IdempotentDrop is what a live Idempotency-Key says of a request.
	IdempotentDrop(ctx context.Context, scope, key, hash string) error
}

// APIDropGate answers claims and counts from memory when it can (the
// process's one *dropgate.Gate, shared with the customers' pages).
type APIDropGate interface {
	ClaimTimed(ctx context.Context, req store.ClaimRequest) (store.Ticket, dropgate.Timing, error)
	Allow(client string) bool
	Count(ctx context.Context, id string) (store.Drop, error)
	// Forget drops what the gate knows of a drop whose status changed.
	Forget(id string)
	// Released tells this replica's gate a ticket (of counter n) was given
	// back, so that its place is claimable here at once.
	Released(id string, n int)
}

// APIDrops serves /api/v1/drops: integrations make drops and claim
// tickets for their own clients. Every route of one drop answers 404
// unless the drop's audience is the key's integration, the same 404 as a
// drop that does not exist, so ids of others' drops cannot be probed.
type APIDrops struct {
	Store APIDropStore
	Gate  APIDropGate
	// Hooks says which endpoints want an event (the key cache's copy);
	// nil: no events are written.
	Hooks APIHooks
	// Wake tells this replica's webhook deliverer an event was written.
	Wake func()
	// Notice announces a listed drop's sell-out or deadline once
	// (DropNotices.Notice); nil: the list announces nothing.
	Notice func(ctx context.Context, d store.Drop, typ string)
}

// APIHooks finds the webhook endpoints that want an event.
type APIHooks interface {
	Subscribed(integration, typ string) []string
}

// announce is the announcement of an event of the key's integration, or
// nil when no endpoint wants it.
func announce[T any](h APIHooks, c *fiber.Ctx, typ string, data func(T) any) *store.Announcement[T] {
	return announceFor(h, APIKeyOf(c).Integration, typ, data)
}

// announceFor is the announcement of an event of an integration, or nil
// when no endpoint wants it (or integration is empty: the shop's).
func announceFor[T any](h APIHooks, integration, typ string, data func(T) any) *store.Announcement[T] {
	if h == nil || integration == "" {
		return nil
	}
	ids := h.Subscribed(integration, typ)
	if len(ids) == 0 {
		return nil
	}
	return &store.Announcement[T]{Integration: integration, Endpoints: ids, Data: data}
}

// wake tells the deliverer after a write that carried an event.
func (h *APIDrops) wake() {
	if h.Wake != nil {
		h.Wake()
	}
}

// Bounds of the API's inputs.
const (
	apiClientMax       = 64
	apiTicketsDefault  = 100
	apiTicketsMaxLimit = 1000
)

// APIDrop is a drop as the API shows it.
type APIDrop struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Quantity int       `json:"quantity"`
	Claimed  int       `json:"claimed"`
	Status   string    `json:"status"`
	Opens    time.Time `json:"opens"`
	Closes   time.Time `json:"closes"`
}

// APITicket is a ticket as the API shows it.
type APITicket struct {
	Drop    string    `json:"drop"`
	Client  string    `json:"client"`
	Created time.Time `json:"created"`
	Status  string    `json:"status"`
}

// APITickets is a page of a drop's tickets in claim order; Next is the
// cursor of the page after it, empty on the last page.
type APITickets struct {
	Tickets []APITicket `json:"tickets"`
	Next    string      `json:"next"`
}

// APIDropStatus is a drop's state now: upcoming, open, sold_out, closed or
// cancelled.
func APIDropStatus(d store.Drop, now time.Time) string {
	why := d.Why(now)
	switch {
	case why == nil:
		return "open"
	case errors.Is(why, store.ErrDropNotOpen):
		return "upcoming"
	}
	return store.ClaimReason(why)
}

func apiDropOf(d store.Drop, now time.Time) APIDrop {
	return APIDrop{ID: d.ID, Title: d.Title, Quantity: d.Quantity, Claimed: d.Claimed, Status: APIDropStatus(d, now),
		Opens: d.Opens.UTC(), Closes: d.Closes.UTC()}
}

func apiTicketOf(t store.Ticket) APITicket {
	return APITicket{Drop: t.DropID, Client: t.Client, Created: t.CreatedAt.UTC(), Status: string(t.Status)}
}

// apiAudience is the audience of the drops the request's key may see.
func apiAudience(c *fiber.Ctx) string { return store.IntegrationAudience(APIKeyOf(c).Integration) }

// apiDropInput is the body of POST /api/v1/drops. Times are strings so
// that a malformed one is named in the answer.
type apiDropInput struct {
	Title    string `json:"title"`
	Quantity int    `json:"quantity"`
	Opens    string `json:"opens"`
	Closes   string `json:"closes"`
}

func apiTime(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil // ValidateDrop says it is missing
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, apiBadRequest(field, field+": not an RFC 3339 time like 2026-05-01T10:00:00Z")
	}
	return t, nil
}

// Create makes a drop for the key's integration, never published: 201
// with the drop, or 400 naming the field at fault, with nothing written.
// Under an Idempotency-Key a repeat answers the first answer.
func (h *APIDrops) Create(c *fiber.Ctx) error {
	var in apiDropInput
	if err := apiDecode(c, &in); err != nil {
		return err
	}
	idem, keyed, err := apiIdempotency(c, in)
	if err != nil {
		return err
	}
	nd, err := apiNewDrop(c, in)
	if err == nil {
		err = h.Store.ValidateDrop(nd)
	}
	if err != nil {
		// A repeat after the opening passed is no longer valid: the key
		// still answers it.
		if keyed {
			if done, answer := apiIdempotent(c, h.Store.IdempotentDrop(c.UserContext(), idem.Scope, idem.Key, idem.Hash)); done {
				return answer
			}
		}
		return apiDropError(err)
	}
	if keyed {
		nd.Idempotency = idem
	}
	// The drop as the API shows it at its making.
	nd.Announce = announce(h.Hooks, c, store.EventDropCreated, func(d store.Drop) any { return apiDropOf(d, d.CreatedAt) })
	d, err := h.Store.CreateDrop(c.UserContext(), nd)
	if done, answer := apiIdempotent(c, err); done {
		return answer
	}
	if err != nil {
		return apiDropError(err)
	}
	if nd.Announce != nil {
		h.wake()
	}
	body, err := apiDropAnswer(d)
	if err != nil {
		return err
	}
	return apiCreated(c, d.ID, body)
}

// apiNewDrop is the drop the body in asks for, for the key's integration.
func apiNewDrop(c *fiber.Ctx, in apiDropInput) (store.NewDrop, error) {
	opens, err := apiTime("opens", in.Opens)
	if err != nil {
		return store.NewDrop{}, err
	}
	closes, err := apiTime("closes", in.Closes)
	if err != nil {
		return store.NewDrop{}, err
	}
	if in.Title, err = apiText("title", in.Title); err != nil {
		return store.NewDrop{}, err
	}
	return store.NewDrop{Title: in.Title, Quantity: in.Quantity, Opens: opens, Closes: closes,
		Audience: apiAudience(c), CreatedBy: apiAudience(c)}, nil
}

func apiDropError(err error) error {
	var de *store.DropError
	if errors.As(err, &de) {
		return apiBadRequest(de.Field, de.Error())
	}
	return err
}

// apiDropID reads the drop's id from the path: 404 when it cannot be one.
func apiDropID(c *fiber.Ctx) (string, error) {
	id := c.Params("id")
	if !store.ValidID(id) {
		return "", apiNotFound("the drop")
	}
	return id, nil
}

// apiDrop is the drop as this replica's gate knows it (its count at most a
// refresh, about a second, behind DynamoDB), if it is for the key's
// integration: any other drop is not found.
func (h *APIDrops) apiDrop(c *fiber.Ctx) (store.Drop, error) {
	id, err := apiDropID(c)
	if err != nil {
		return store.Drop{}, err
	}
	d, err := h.Gate.Count(c.UserContext(), id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Drop{}, apiNotFound("the drop")
	case err != nil:
		return store.Drop{}, err
	case d.Audience != apiAudience(c): // the customers' or another integration's: as if none
		return store.Drop{}, apiNotFound("the drop")
	}
	return d, nil
}

// Show answers the drop with its live count, from the gate's memory.
func (h *APIDrops) Show(c *fiber.Ctx) error {
	d, err := h.apiDrop(c)
	if err != nil {
		return err
	}
	return c.JSON(apiDropOf(d, h.Store.Now()))
}

// ValidAPIClient reports whether s can be a client id of the API: 1 to 64
// letters, digits, '-', '_', '.' and ':'.
func ValidAPIClient(s string) bool {
	if len(s) == 0 || len(s) > apiClientMax {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch >= 'a' && ch <= 'z', ch >= 'A' && ch <= 'Z', ch >= '0' && ch <= '9', ch == '-', ch == '_', ch == '.', ch == ':':
		default:
			return false
		}
	}
	return true
}

// Claim claims a ticket of one of the integration's drops for one of its
// clients: 201 with the ticket; 200 with it when the client already holds
// it (a retried claim); 409 with the reason a claim was refused; 429 when
// the client claims more than the gate allows a second.
func (h *APIDrops) Claim(c *fiber.Ctx) error {
	id, err := apiDropID(c)
	if err != nil {
		return err
	}
	var in struct {
		Client string `json:"client"`
	}
	if err := apiDecode(c, &in); err != nil {
		return err
	}
	if !ValidAPIClient(in.Client) {
		return apiBadRequest("client", fmt.Sprintf("client: 1 to %d letters, digits, '-', '_', '.' and ':'", apiClientMax))
	}
	// The integration's name, not the key's: a rotated key's clients keep
	// their tickets.
	client := APIKeyOf(c).Integration + ":" + in.Client
	if !h.Gate.Allow(client) {
		c.Set(fiber.HeaderRetryAfter, "1")
		return &APIError{Status: fiber.StatusTooManyRequests, Reason: ReasonRateLimited,
			Message: "this client claims too often; wait a second"}
	}
	d, err := h.apiDrop(c)
	if err != nil {
		return err
	}
	ann := announce(h.Hooks, c, store.EventTicketClaimed, func(t store.Ticket) any { return apiTicketOf(t) })
	t, timing, err := h.Gate.ClaimTimed(c.UserContext(), store.ClaimRequest{DropID: id, Client: client, DropTitle: d.Title, Announce: ann})
	if v := serverTiming(timing); v != "" {
		c.Set("Server-Timing", v)
	}
	if held, ok, herr := h.held(c.UserContext(), id, client, err); herr != nil {
		return herr
	} else if ok { // a repeat of the holder's claim: its ticket, as at first
		return c.JSON(apiTicketOf(held))
	}
	if reason := store.ClaimReason(err); reason != "" {
		return &APIError{Status: fiber.StatusConflict, Reason: reason, Message: err.Error()}
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return apiNotFound("the drop")
	case errors.Is(err, store.ErrClaimContended):
		c.Set(fiber.HeaderRetryAfter, "1")
		return &APIError{Status: fiber.StatusServiceUnavailable, Reason: ReasonBusy, Message: "the drop is busy; try again", Err: err}
	case err != nil:
		return err
	}
	if ann != nil {
		h.wake()
	}
	return c.Status(fiber.StatusCreated).JSON(apiTicketOf(t))
}

// serverTiming is a claim's Server-Timing: how long it waited for a place
// ("wait") and spent in DynamoDB's transactions ("claim", with their
// number); empty for a claim answered from memory.
func serverTiming(t dropgate.Timing) string {
	var parts []string
	if t.Waited > 0 {
		parts = append(parts, fmt.Sprintf("wait;dur=%.1f", float64(t.Waited.Microseconds())/1000))
	}
	switch {
	case t.Transactions == 1:
		parts = append(parts, fmt.Sprintf("claim;dur=%.1f", float64(t.InStore.Microseconds())/1000))
	case t.Transactions > 1: // the drop's item was contended: tried again
		parts = append(parts, fmt.Sprintf(`claim;dur=%.1f;desc="%d tries"`, float64(t.InStore.Microseconds())/1000, t.Transactions))
	}
	return strings.Join(parts, ", ")
}

// Tickets lists a drop's tickets in claim order, a page at a time, to the
// drop's integration.
func (h *APIDrops) Tickets(c *fiber.Ctx) error {
	d, err := h.apiDrop(c)
	if err != nil {
		return err
	}
	limit, err := apiLimit(c, apiTicketsDefault, apiTicketsMaxLimit)
	if err != nil {
		return err
	}
	after := strings.TrimSpace(c.Query("after"))
	page, err := h.Store.DropTickets(c.UserContext(), d.ID, limit, after)
	if errors.Is(err, store.ErrBadCursor) {
		return apiBadRequest("after", "after: this cursor is not one this list gave")
	}
	if err != nil {
		return err
	}
	out := APITickets{Tickets: make([]APITicket, 0, len(page.Items)), Next: page.Next}
	for _, t := range page.Items {
		out.Tickets = append(out.Tickets, apiTicketOf(t))
	}
	return c.JSON(out)
}

// held is the ticket a refused claim's client holds, if it holds one: the
// refusal carries it when the claim's transaction (or the client's claim
// in flight) found it; a drop sold out or closed, refused from memory,
// costs one GetItem of the ticket and never a transaction.
func (h *APIDrops) held(ctx context.Context, dropID, client string, claimErr error) (store.Ticket, bool, error) {
	if t, ok := store.HeldTicket(claimErr); ok {
		return t, true, nil
	}
	var notHeld *store.NotHeldError
	if errors.As(claimErr, &notHeld) || !errors.Is(claimErr, store.ErrSoldOut) && !errors.Is(claimErr, store.ErrDropClosed) {
		return store.Ticket{}, false, nil
	}
	t, err := h.Store.TicketConsistent(ctx, dropID, client)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Ticket{}, false, nil
	case err != nil:
		return store.Ticket{}, false, err
	}
	// A released ticket is held no more: its client claims like any other.
	return t, t.Status != store.TicketVoid && t.Status != store.TicketReleased, nil
}
