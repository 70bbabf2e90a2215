package handlers

import (
	"context"
	"errors"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// CartStore is what the cart pages read and write.
type CartStore interface {
	ProductWithStock(ctx context.Context, id string) (store.Product, []store.StockLevel, error)
	Cart(ctx context.Context, owner string) (store.Cart, error)
	AddToCart(ctx context.Context, owner string, p store.Product, qty int) error
	SetCartQuantity(ctx context.Context, owner, productID string, qty int) error
	RemoveFromCart(ctx context.Context, owner, productID string) error
	RemoveTicketFromCart(ctx context.Context, owner, dropID string) error
}

// Cart serves /cart: visitors and customers alike; a customer's cart lives
// in the table under their account, a visitor's under their session.
type Cart struct {
	Store CartStore
}

// render shows the cart and keeps its number of items for the header; htmx
// gets the header's counts out of band with the panel.
func (h *Cart) render(c *fiber.Ctx, status int, data views.CartPage) error {
	page.SetCartUnits(c, data.Cart.Units())
	return page.Render(c, status, page.View{Title: page.T(c, "cart.title"), Page: page.Full(views.CartView, data),
		Partial: templ.Join(views.CartPanel(data, page.CSRFToken(c)), views.CartCounts(data.Cart.Units()))})
}

// Show is the cart page.
func (h *Cart) Show(c *fiber.Ctx) error {
	var cart store.Cart
	if owner := page.CartOwner(c, false); owner != "" {
		var err error
		if cart, err = h.Store.Cart(c.UserContext(), owner); err != nil {
			return err
		}
	}
	page.CSRFToken(c)
	return h.render(c, fiber.StatusOK, views.CartPage{Cart: cart})
}

// Add puts a product in the cart from its page. htmx gets the form back with
// the outcome; a plain form goes to the cart.
func (h *Cart) Add(c *fiber.Ctx) error {
	productID := page.Field(c, "product_id")
	form := views.AddToCart{ProductID: productID, Quantity: page.Field(c, "quantity"), CSRF: page.CSRFToken(c), Available: 1}
	if !store.ValidID(productID) {
		return page.BadRequest("cart.cannot_add")
	}
	p, stock, err := h.Store.ProductWithStock(c.UserContext(), productID)
	if err != nil {
		return notFoundAs(err, "error.not_found.product")
	}
	form.Available = store.TotalStock(stock)
	qty, err := store.ParseQuantity(form.Quantity)
	if err == nil {
		owner := page.CartOwner(c, true)
		cart, cerr := h.Store.Cart(c.UserContext(), owner)
		switch {
		case cerr != nil:
			return cerr
		case !hasLine(cart, p.ID) && len(cart.Lines) >= store.MaxCartLines:
			err = store.ErrCartFull
		case lineQty(cart, p.ID)+qty > form.Available:
			err = &store.StockShortError{ProductID: p.ID, ProductName: productIn(c.UserContext(), p).Name, Wanted: lineQty(cart, p.ID) + qty, Available: form.Available}
		default:
			err = h.Store.AddToCart(c.UserContext(), owner, p, qty)
			if err == nil {
				form.Added = page.T(c, "cart.added.what", "Quantity", qty, "Product", productIn(c.UserContext(), p).Name)
				form.CartUnits = cart.Units() + qty
				form.Quantity = "1"
			}
		}
	}
	switch {
	case err == nil:
		page.SetCartUnits(c, form.CartUnits)
		if page.IsHTMX(c) {
			return page.Write(c, fiber.StatusOK, templ.Join(views.AddToCartForm(form), views.CartCounts(form.CartUnits)))
		}
		page.Flash(c, views.FlashSuccess, page.T(c, "cart.added.flash", "What", form.Added))
		return page.Redirect(c, paths.Cart)
	case errors.Is(err, store.ErrBadQty), errors.Is(err, store.ErrLineTooBig), errors.Is(err, store.ErrCartFull), errors.Is(err, store.ErrInsufficientStock):
		form.Error = refusalText(c.UserContext(), err)
	default:
		return err
	}
	if page.IsHTMX(c) {
		return page.Write(c, fiber.StatusUnprocessableEntity, views.AddToCartForm(form))
	}
	page.Flash(c, views.FlashError, form.Error)
	return page.Redirect(c, paths.Product(p.ID))
}

func hasLine(cart store.Cart, productID string) bool { return lineQty(cart, productID) > 0 }

func lineQty(cart store.Cart, productID string) int {
	for _, l := range cart.Lines {
		if l.ProductID == productID && l.DropID == "" { // a ticket's unit is set aside already
			return l.Quantity
		}
	}
	return 0
}

// Update sets a line's quantity (0 removes it) and answers with the cart.
func (h *Cart) Update(c *fiber.Ctx) error {
	id, err := pathID(c, "id", "error.not_found.cart_line")
	if err != nil {
		return err
	}
	owner := page.CartOwner(c, false)
	if owner == "" {
		return page.NotFound("error.not_found.cart_line")
	}
	raw := page.Field(c, "quantity")
	qty, perr := store.ParseQuantity(raw)
	if raw == "0" {
		qty, perr = 0, nil
	}
	status := fiber.StatusOK
	data := views.CartPage{}
	if perr == nil && qty > 0 {
		p, stock, err := h.Store.ProductWithStock(c.UserContext(), id)
		if err != nil {
			return notFoundAs(err, "error.not_found.product")
		}
		if available := store.TotalStock(stock); qty > available {
			perr = &store.StockShortError{ProductID: p.ID, ProductName: productIn(c.UserContext(), p).Name, Wanted: qty, Available: available}
		}
	}
	if perr != nil {
		status, data.Error, data.ErrorFor, data.Entered = fiber.StatusUnprocessableEntity, refusalText(c.UserContext(), perr), id, shortened(raw, 12)
	} else if err := h.Store.SetCartQuantity(c.UserContext(), owner, id, qty); err != nil {
		return notFoundAs(err, "error.not_found.cart_line")
	}
	if data.Cart, err = h.Store.Cart(c.UserContext(), owner); err != nil {
		return err
	}
	if status == fiber.StatusOK && !page.IsHTMX(c) {
		page.SetCartUnits(c, data.Cart.Units())
		return page.Redirect(c, paths.Cart)
	}
	return h.render(c, status, data)
}

// Remove takes a line out of the cart.
func (h *Cart) Remove(c *fiber.Ctx) error {
	return h.remove(c, h.Store.RemoveFromCart)
}

// RemoveTicket takes a drop's ticket line out of the cart (the ticket
// stays valid and can be added again).
func (h *Cart) RemoveTicket(c *fiber.Ctx) error {
	return h.remove(c, h.Store.RemoveTicketFromCart)
}

func (h *Cart) remove(c *fiber.Ctx, removeLine func(ctx context.Context, owner, id string) error) error {
	id, err := pathID(c, "id", "error.not_found.cart_line")
	if err != nil {
		return err
	}
	owner := page.CartOwner(c, false)
	var data views.CartPage
	if owner != "" {
		if err := removeLine(c.UserContext(), owner, id); err != nil {
			return err
		}
		// Read again for the count, with or without htmx.
		if data.Cart, err = h.Store.Cart(c.UserContext(), owner); err != nil {
			return err
		}
	}
	if !page.IsHTMX(c) {
		page.SetCartUnits(c, data.Cart.Units())
		return page.Redirect(c, paths.Cart)
	}
	return h.render(c, fiber.StatusOK, data)
}

// shortened is s cut to at most n characters: what a form shows back of a
// value it refused.
func shortened(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
