package handlers

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"
	"golang.org/x/sync/errgroup"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
)

// AdminDashboardStore is what the console's home reads.
type AdminDashboardStore interface {
	// Currency is the ISO 4217 code the shop prices in.
	Currency() string
	DayTotals(ctx context.Context, from, to time.Time) ([]store.DayTotal, error)
	OrdersToShip(ctx context.Context, limit int, cursor string) (store.Page[store.Order], error)
	OrdersAwaitingStock(ctx context.Context, limit int, cursor string) (store.Page[store.Order], error)
	LowStock(ctx context.Context) ([]store.StockLevel, error)
	PendingCardRefunds(ctx context.Context) ([]store.PendingCardRefund, error)
	Runs(ctx context.Context, job string, limit int, cursor string) (store.Page[store.JobRun], error)
	PublishedDrops(ctx context.Context, limit int, cursor string) (store.Page[store.Drop], error)
	Drop(ctx context.Context, id string) (store.Drop, error)
	Now() time.Time
	Location() *time.Location
}

// AdminDashboard serves the console's home, /admin, and its blocks.
type AdminDashboard struct {
	Store AdminDashboardStore
}

// How many of a list the home shows; the sections have the rest.
const (
	dashboardToShip   = 10
	dashboardDrops    = 5
	dashboardLowStock = 10
)

// Home is the page of blocks; each loads on its own.
func (h *AdminDashboard) Home(c *fiber.Ctx) error {
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "admin.home.title"), Page: views.AdminHome})
}

// Block renders one block: the partial for htmx, a page without.
func (h *AdminDashboard) Block(c *fiber.Ctx) error {
	name := c.Params("block")
	at := slices.IndexFunc(views.DashboardBlocks, func(b struct{ Name, Title string }) bool { return b.Name == name })
	if at < 0 {
		return page.NotFound("error.not_found.console_part")
	}
	ctx := c.UserContext()
	var block templ.Component
	var err error
	switch name {
	case "sales":
		block, err = h.sales(ctx)
	case "to-ship":
		block, err = h.toShip(ctx)
	case "awaiting-stock":
		block, err = h.awaitingStock(ctx)
	case "low-stock":
		block, err = h.lowStock(ctx)
	case "jobs":
		block, err = h.jobs(ctx)
	case "drops":
		block, err = h.drops(ctx)
	case "card-refunds":
		block, err = h.cardRefunds(ctx, page.CSRFToken(c))
	}
	if err != nil {
		return err
	}
	title := page.T(c, views.DashboardBlocks[at].Title)
	return page.Render(c, fiber.StatusOK, page.View{Title: title, Partial: block,
		Page: func(l views.Layout) templ.Component { return views.AdminDashboardBlockView(l, title, block) }})
}

func (h *AdminDashboard) sales(ctx context.Context) (templ.Component, error) {
	now := h.Store.Now()
	days, err := h.Store.DayTotals(ctx, now.AddDate(0, 0, -29), now)
	if err != nil {
		return nil, err
	}
	s := views.AdminSales{Days: days, Loc: h.Store.Location()}
	s.Month.Revenue.Currency = h.Store.Currency()
	s.Month.Refunded.Currency = h.Store.Currency()
	for _, d := range days {
		s.Month.Orders += d.Orders
		s.Month.Revenue = s.Month.Revenue.Add(d.Revenue)
		s.Month.Refunded = s.Month.Refunded.Add(d.Refunded)
	}
	if len(days) > 0 {
		s.Today = days[len(days)-1]
	}
	return views.AdminSalesBlock(s), nil
}

func (h *AdminDashboard) toShip(ctx context.Context) (templ.Component, error) {
	p, err := h.Store.OrdersToShip(ctx, dashboardToShip, "")
	if err != nil {
		return nil, err
	}
	return views.AdminToShipBlock(views.AdminToShip{Orders: p.Items, More: p.Next != "", Now: h.Store.Now()}), nil
}

func (h *AdminDashboard) awaitingStock(ctx context.Context) (templ.Component, error) {
	p, err := h.Store.OrdersAwaitingStock(ctx, dashboardToShip, "")
	if err != nil {
		return nil, err
	}
	return views.AdminAwaitingStockBlock(views.AdminToShip{Orders: p.Items, More: p.Next != "", Now: h.Store.Now()}), nil
}

// lowStock shows the emptiest levels first.
func (h *AdminDashboard) lowStock(ctx context.Context) (templ.Component, error) {
	levels, err := h.Store.LowStock(ctx)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(levels, func(a, b store.StockLevel) int {
		return cmp.Or(cmp.Compare(a.Quantity, b.Quantity), strings.Compare(a.ProductName, b.ProductName))
	})
	p := views.AdminLowStock{Levels: levels[:min(len(levels), dashboardLowStock)], More: max(len(levels)-dashboardLowStock, 0)}
	return views.AdminLowStockBlock(p), nil
}

func (h *AdminDashboard) jobs(ctx context.Context) (templ.Component, error) {
	b := views.AdminJobsBlock{Jobs: make([]views.AdminJobLast, len(billingJobNames))}
	g, gctx := errgroup.WithContext(ctx)
	for i, name := range billingJobNames {
		g.Go(func() error {
			runs, err := h.Store.Runs(gctx, name, 1, "")
			if err != nil {
				return err
			}
			b.Jobs[i] = views.AdminJobLast{Job: name}
			if len(runs.Items) > 0 {
				b.Jobs[i].Run, b.Jobs[i].Found = runs.Items[0], true
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return views.AdminJobsLastBlock(b), nil
}

// drops lists the published drops open now with their claims summed over
// their counters (one read a drop: a few are open at a time).
func (h *AdminDashboard) drops(ctx context.Context) (templ.Component, error) {
	p, err := h.Store.PublishedDrops(ctx, dashboardDrops*2, "")
	if err != nil {
		return nil, err
	}
	now := h.Store.Now()
	var open []store.Drop
	for _, d := range p.Items {
		if d.Status == store.DropOpen && !now.Before(d.Opens) && now.Before(d.Closes) && len(open) < dashboardDrops {
			open = append(open, d)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	for i := range open {
		g.Go(func() error {
			d, err := h.Store.Drop(gctx, open[i].ID)
			if errors.Is(err, store.ErrNotFound) {
				return nil // gone since listed: shown as listed
			}
			if err == nil {
				open[i] = d
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return views.AdminOpenDropsBlock(views.AdminOpenDrops{Drops: open}), nil
}
