package handlers

import (
	"context"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/sync/errgroup"

	"shop/handlers/page"
	"shop/store"
	"shop/store/rules"
	"shop/views"
	"shop/web/paths"
)

// AdminSubscriptionStore is what the staff subscription pages read.
type AdminSubscriptionStore interface {
	SubscriptionsByStatus(ctx context.Context, status store.SubscriptionStatus, limit int, cursor string) (store.Page[store.Subscription], error)
	RemindersDueOn(ctx context.Context, day time.Time, limit int, cursor string) (store.Page[store.Subscription], error)
	PaymentsDueOn(ctx context.Context, day time.Time, limit int, cursor string) (store.Page[store.Subscription], error)
	// Today is the billing date of now, in the shop's time zone.
	Today() time.Time
}

// AdminSubscriptions serves /admin/subscriptions.
type AdminSubscriptions struct {
	Store AdminSubscriptionStore
}

// List is the subscriptions in one status (?status=, active if none),
// newest first, a page at a time; htmx asks for the next page's rows.
func (h *AdminSubscriptions) List(c *fiber.Ctx) error {
	st := c.Query("status", string(store.SubscriptionActive))
	if !store.ValidSubscriptionStatus(st) {
		return page.BadRequest(page.T(c, "admin.subs.bad_status"))
	}
	status := store.SubscriptionStatus(st)
	subs, err := h.Store.SubscriptionsByStatus(c.UserContext(), status, adminPageSize, c.Query("after"))
	if err != nil {
		return err
	}
	data := views.AdminSubscriptionList{Status: status, Subscriptions: subs.Items}
	data.NextURL = paths.More(paths.AdminSubscriptions, subs.Next, "status", st)
	return page.Render(c, fiber.StatusOK, page.View{
		Title: page.T(c, "admin.subs.title_in", "Status", views.AdminSubscriptionStatus(c.UserContext(), status)), Page: page.Full(views.AdminSubscriptionsView, data), Partial: views.AdminSubscriptionRows(data),
	})
}

// Due is what falls due on a day (?date=YYYY-MM-DD, today if none): the
// reminders to send and the payments to take, each a page at a time. A bad
// day comes back at the form with a 422; htmx asks for the section (the
// date form) or the next page of one of its tables, and only that is read.
func (h *AdminSubscriptions) Due(c *fiber.Ctx) error {
	today := h.Store.Today()
	d := views.AdminSubscriptionsDue{Date: strings.TrimSpace(c.Query("date")), Today: store.FormatDate(today), Errors: views.FieldErrors{}}
	remAfter, payAfter := c.Query("reminders_after"), c.Query("payments_after")
	day := today
	if d.Date == "" {
		d.Date = d.Today
	} else if parsed, err := rules.ParseDate(d.Date); err == nil {
		day = parsed
	} else {
		if remAfter != "" || payAfter != "" {
			// Not from a link of ours: those carry the day they were made for.
			return page.BadRequest(page.T(c, "admin.subs.bad_link"))
		}
		d.Errors["date"] = page.T(c, "admin.subs.bad_day", "Today", d.Today)
		return page.Render(c, fiber.StatusUnprocessableEntity, page.View{
			Title: page.T(c, "admin.subs.title_due"), Page: page.Full(views.AdminSubscriptionsDueView, d), Partial: views.AdminDueSection(d),
		})
	}
	d.Date = store.FormatDate(day)
	htmx := page.IsHTMX(c)
	var reminders, payments store.Page[store.Subscription]
	g, ctx := errgroup.WithContext(c.UserContext())
	if !htmx || remAfter != "" || payAfter == "" {
		g.Go(func() (err error) {
			reminders, err = h.Store.RemindersDueOn(ctx, day, adminPageSize, remAfter)
			return err
		})
	}
	if !htmx || remAfter == "" {
		g.Go(func() (err error) {
			payments, err = h.Store.PaymentsDueOn(ctx, day, adminPageSize, payAfter)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	d.Reminders, d.Payments = reminders.Items, payments.Items
	if reminders.Next != "" {
		d.RemindersNext = paths.WithQuery(paths.AdminDue, "date", d.Date, "reminders_after", reminders.Next)
	}
	if payments.Next != "" {
		d.PaymentsNext = paths.WithQuery(paths.AdminDue, "date", d.Date, "payments_after", payments.Next)
	}
	partial := views.AdminDueSection(d)
	switch {
	case remAfter != "":
		partial = views.AdminDueReminderRows(d)
	case payAfter != "":
		partial = views.AdminDuePaymentRows(d)
	}
	return page.Render(c, fiber.StatusOK, page.View{
		Title: page.T(c, "admin.subs.title_due_on", "Day", d.Date), Page: page.Full(views.AdminSubscriptionsDueView, d), Partial: partial,
	})
}
