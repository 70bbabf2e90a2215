package views

import (
	"shop/store"
)

// AddToCart is the product page's add-to-cart form and what it last did.
type AddToCart struct {
	ProductID string
	Quantity  string
	Error     string
	Added     string // "2 × Hand Grinder", after a successful add
	CartUnits int
	CSRF      string
	Available int
}

// CartPage is the cart with its lines.
type CartPage struct {
	Cart     store.Cart
	Error    string // about one line, after a failed change
	ErrorFor string // the product the error is about
	// Entered is what was typed for that line, shown back beside the
	// error rather than the quantity the line still has.
	Entered string
}

// lineQuantity is the value of a line's quantity box.
func (p CartPage) lineQuantity(l store.CartLine) string {
	if p.ErrorFor == l.ProductID && p.Entered != "" {
		return p.Entered
	}
	return itoa(l.Quantity)
}
