package handlers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/sync/errgroup"

	"shop/handlers/page"
	"shop/store"
	"shop/store/dropgate"
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
	// APIAccess lists the integrations a drop can be made for.
	APIAccess(ctx context.Context) (store.APIAccess, error)
	SetDropStatus(ctx context.Context, id string, to store.DropStatus) error
	VoidTickets(ctx context.Context, dropID string) ([]store.Ticket, error)
	DropTickets(ctx context.Context, dropID string, limit int, cursor string) (store.Page[store.Ticket], error)
	Customer(ctx context.Context, id string) (store.Customer, error)
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
}

// AdminDrops serves /admin/drops: the list, the new-drop form, a drop's
// live count and holders, closing early, cancelling, and the CSV.
type AdminDrops struct {
	Store AdminDropStore
	Gate  AdminDropGate
	Log   *slog.Logger
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

// withIntegrations gives the form the integrations a drop can be for:
// those not revoked.
func (h *AdminDrops) withIntegrations(c *fiber.Ctx, form *views.AdminDropForm) error {
	access, err := h.Store.APIAccess(c.UserContext())
	if err != nil {
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
func parseLocal(s string, loc *time.Location) (time.Time, bool) {
	for _, layout := range []string{datetimeLocal, datetimeLocal + ":05"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// Create makes a drop from the form. Every field is checked before
// anything is written: a problem brings the form back with a message at
// its field and a 422.
func (h *AdminDrops) Create(c *fiber.Ctx) error {
	loc := h.Store.Location()
	val := func(k string) string { return strings.TrimSpace(page.Field(c, k)) }
	form := views.AdminDropForm{
		Quantity: val("quantity"), Opens: val("opens"), Closes: val("closes"),
		ProductID: val("product_id"), Price: val("price"), RedeemHours: val("redeem_hours"),
		Published: page.Field(c, "published") != "", Audience: val("audience"),
		Zone: loc.String(), CSRF: page.CSRFToken(c), Errors: views.FieldErrors{},
	}
	if form.Audience == "" { // a form from before the choice: the customers'
		form.Audience = store.DropAudienceShop
	}
	form.Title = formTextIn(c.UserContext(), form.Errors, "title", page.Field(c, "title"), oneLine)
	staff := page.Viewer(c).ID
	nd := store.NewDrop{Title: form.Title, Audience: form.Audience, CreatedBy: store.DropByStaff(staff), Published: form.Published, StaffID: staff}
	if form.ProductID != "" { // a product drop: its price and how long a ticket buys
		nd.ProductID = form.ProductID
		if form.RedeemHours == "" {
			form.RedeemHours = defaultRedeemHours
		}
		if hours, err := strconv.Atoi(form.RedeemHours); err == nil {
			nd.RedeemWithin = time.Duration(hours) * time.Hour
		} else {
			form.Errors["redeem"] = page.T(c, "admin.drops.err.redeem")
		}
		if m, err := store.ParseMoney(form.Price, h.Store.Currency()); err == nil {
			nd.Price = m
		} else {
			form.Errors["price"] = page.T(c, "admin.drops.err.price")
		}
	}
	if n, err := strconv.Atoi(form.Quantity); err == nil {
		nd.Quantity = n
	} else {
		form.Errors["quantity"] = page.T(c, "admin.drops.err.quantity", "Max", store.MaxDropQuantity)
	}
	var ok bool
	if nd.Opens, ok = parseLocal(form.Opens, loc); !ok {
		form.Errors["opens"] = page.T(c, "admin.drops.err.opens")
	}
	if nd.Closes, ok = parseLocal(form.Closes, loc); !ok {
		form.Errors["closes"] = page.T(c, "admin.drops.err.closes")
	}
	// The store's own check. It names one field at a time: ask again with
	// that field made good, so the form shows each field's problem at once
	// (a parse error above stays its field's message).
	for range 8 {
		err := h.Store.ValidateDrop(nd)
		var de *store.DropError
		if !errors.As(err, &de) {
			break
		}
		if _, seen := form.Errors[de.Field]; !seen {
			form.Errors[de.Field] = dropProblem(c, de)
		}
		switch de.Field { // get past this field to find the next one's
		case "audience":
			if de.Kind == "audience" {
				nd.Audience = store.DropAudienceShop
			}
			nd.Published, nd.ProductID = false, ""
		case "title":
			nd.Title = "x"
		case "quantity":
			nd.Quantity = 1
		case "opens": // move the window to now, keeping its length
			now := h.Store.Now()
			if !nd.Opens.IsZero() && !nd.Closes.IsZero() {
				nd.Closes = nd.Closes.Add(now.Sub(nd.Opens))
			}
			nd.Opens = now
		case "closes":
			nd.Closes = nd.Opens.Add(time.Hour)
		case "product":
			nd.ProductID = ""
		case "price":
			nd.Price = store.Money{Amount: 1, Currency: h.Store.Currency()}
		case "redeem":
			nd.RedeemWithin = store.DefaultRedeemWithin
		}
	}
	if form.Errors.Any() {
		return h.formAgain(c, form)
	}
	d, err := h.Store.CreateDrop(c.UserContext(), nd)
	var de *store.DropError
	if errors.As(err, &de) { // the clock moved past the opening, no such product, too little stock
		form.Errors[de.Field] = dropProblem(c, de)
		return h.formAgain(c, form)
	}
	if err != nil {
		return err
	}
	h.Gate.Forget(d.ID)
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.drops.created", "Title", d.Title))
	return page.Redirect(c, paths.AdminDrop(d.ID))
}

// formAgain brings the form back with its errors: in place for htmx, on
// the list for a plain form.
func (h *AdminDrops) formAgain(c *fiber.Ctx, form views.AdminDropForm) error {
	if page.IsHTMX(c) {
		if err := h.withIntegrations(c, &form); err != nil {
			return err
		}
		return page.Write(c, fiber.StatusUnprocessableEntity, views.AdminDropFormView(form))
	}
	return h.renderList(c, fiber.StatusUnprocessableEntity, form)
}

// drop reads the drop of the URL; an unknown one is a 404.
func (h *AdminDrops) drop(c *fiber.Ctx) (store.Drop, error) {
	id, err := pathID(c, "id", "That drop")
	if err != nil {
		return store.Drop{}, err
	}
	d, err := h.Store.Drop(c.UserContext(), id)
	return d, notFoundAs(err, "That drop")
}

// createdBy names who made the drop: the staff member (their name, read
// now: "" if their account is gone) or the integration.
func (h *AdminDrops) createdBy(ctx context.Context, d store.Drop) (string, error) {
	if name, ok := store.AudienceIntegration(d.CreatedBy); ok {
		return lang.T(ctx, "admin.drops.for_integration", "Name", name), nil
	}
	id, ok := store.StaffCreator(d.CreatedBy)
	if !ok {
		return "", nil
	}
	cust, err := h.Store.Customer(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	return cust.Name, err
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
	d, err := h.drop(c)
	if err != nil {
		return err
	}
	tickets, err := h.Store.DropTickets(c.UserContext(), d.ID, adminDropTicketsPage, c.Query("after"))
	if err != nil {
		return err
	}
	data := views.AdminDropPage{Live: h.live(d), Tickets: tickets.Items, CSVURL: paths.AdminDropTicketsCSV(d.ID), CSRF: page.CSRFToken(c), Error: problem}
	if c.Query("after") == "" {
		if data.CreatedBy, err = h.createdBy(c.UserContext(), d); err != nil {
			return err
		}
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
	err = h.Store.SetDropStatus(c.UserContext(), d.ID, store.DropClosed)
	h.Gate.Forget(d.ID)
	if errors.Is(err, store.ErrConflict) {
		return h.renderDrop(c, fiber.StatusConflict, page.T(c, "admin.drops.err.already_over"))
	}
	if err != nil {
		return err
	}
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.drops.closed", "Title", d.Title))
	return page.Redirect(c, paths.AdminDrop(d.ID))
}

// Cancel cancels a drop, voids its tickets and mails each customer who
// held one (API clients are told by their own systems). The mail's id is
// one per drop and holder, so cancelling a drop that is already cancelled
// finishes a cancellation cut short (voids what is left, mails who was
// not mailed) and mails nobody twice.
func (h *AdminDrops) Cancel(c *fiber.Ctx) error {
	d, err := h.drop(c)
	if err != nil {
		return err
	}
	// Voiding and mailing outlive the request's deadline: a big drop has
	// many holders.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.UserContext()), dropCancelTimeout)
	defer cancel()
	err = h.Store.SetDropStatus(ctx, d.ID, store.DropCancelled)
	h.Gate.Forget(d.ID)
	switch {
	case errors.Is(err, store.ErrConflict):
		if now, rerr := h.Store.Drop(ctx, d.ID); rerr != nil || now.Status != store.DropCancelled {
			return h.renderDrop(c, fiber.StatusConflict, page.T(c, "admin.drops.err.closed_early"))
		}
	case err != nil:
		return err
	}
	tickets, err := h.Store.VoidTickets(ctx, d.ID)
	if err != nil {
		return fmt.Errorf("cancel drop %s: void tickets: %w", d.ID, err)
	}
	mailed, err := h.mailHolders(ctx, d, tickets)
	if err != nil {
		return fmt.Errorf("cancel drop %s: mail holders: %w", d.ID, err)
	}
	h.log().Info("drop cancelled", "drop", d.ID, "void", len(tickets), "mailed", mailed, "request_id", page.RequestID(c))
	page.Flash(c, views.FlashSuccess, page.T(c, "admin.drops.cancelled", "Title", d.Title, "Void", len(tickets), "Mailed", mailed))
	return page.Redirect(c, paths.AdminDrop(d.ID))
}

// mailHolders puts a cancellation mail into the outbox for each ticket a
// customer held, a few at once; a mail put before (an earlier try) counts
// as sent. It returns how many holders have their mail.
func (h *AdminDrops) mailHolders(ctx context.Context, d store.Drop, tickets []store.Ticket) (int, error) {
	var mailed atomic.Int64
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(dropMailWorkers)
	now := h.Store.Now()
	loc := h.Store.Location()
	for _, t := range tickets {
		if t.CustomerID == "" {
			continue // an API client's: no email here
		}
		g.Go(func() error {
			cust, err := h.Store.Customer(ctx, t.CustomerID)
			if errors.Is(err, store.ErrNotFound) {
				return nil // the account is gone
			}
			if err != nil {
				return err
			}
			err = h.Store.PutMail(ctx, dropCancelledMail(d, t, cust, now, loc))
			if err != nil && !errors.Is(err, store.ErrConflict) {
				return err
			}
			mailed.Add(1)
			return nil
		})
	}
	err := g.Wait()
	return int(mailed.Load()), err
}

// dropCancelledMail tells a ticket's holder the drop is off, in their
// language (their record is read for the address anyway).
func dropCancelledMail(d store.Drop, t store.Ticket, cust store.Customer, now time.Time, loc *time.Location) store.Mail {
	l := lang.OrEnglish(cust.Lang)
	claimed := t.CreatedAt.In(loc).Format("2 January 2006 at 15:04 MST")
	if l != lang.English {
		claimed = lang.DateTimeIn(l, t.CreatedAt.In(loc))
	}
	return store.Mail{
		ID: store.DropCancelMailID(d.ID, t.Client), To: cust.Email, Kind: store.MailDropCancelled,
		Subject: lang.In(l, "mail.drop.subject", "Drop", d.Title),
		Text: fmt.Sprintf("%s\n\n%s\n\nFika & Field\n", mailHello(l, cust.Name),
			lang.In(l, "mail.drop.body", "Drop", d.Title, "Claimed", claimed)),
		CustomerID: cust.ID, CreatedAt: now, Status: store.MailPending,
	}
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

// dropMessages are the words for each kind of bad drop field the store
// names (store.DropError's Kind).
var dropMessages = map[string]string{
	"title":              "admin.dropsx.err.title",
	"quantity":           "admin.dropsx.err.quantity",
	"opens_missing":      "admin.dropsx.err.opens_missing",
	"opens_past":         "admin.dropsx.err.opens_past",
	"closes":             "admin.dropsx.err.closes",
	"product":            "admin.dropsx.err.product",
	"price":              "admin.dropsx.err.price",
	"redeem":             "admin.dropsx.err.redeem",
	"price_currency":     "admin.dropsx.err.price_currency",
	"quantity_short":     "admin.dropsx.err.quantity_short",
	"closes_too_late":    "admin.dropsx.err.closes_too_late",
	"audience":           "admin.dropsx.err.audience",
	"audience_published": "admin.dropsx.err.audience_published",
	"audience_product":   "admin.dropsx.err.audience_product",
	"audience_unknown":   "admin.dropsx.err.audience_unknown",
}

// dropProblem says a bad drop field in the page's language.
func dropProblem(c *fiber.Ctx, de *store.DropError) string {
	if id, ok := dropMessages[de.Kind]; ok {
		return page.T(c, id, de.Args...)
	}
	return sentence(errors.New(de.Msg))
}
