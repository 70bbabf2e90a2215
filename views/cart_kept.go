package views

import "github.com/a-h/templ"

// addToCartKey is what the add-to-cart form's fields are made of as a
// product's page opens them: the product, the quantity, and whether it is
// sold out.
type addToCartKey struct {
	product, quantity string
	soldOut           bool
}

var addToCartFieldSets = newSameParts[addToCartKey](1_024)

// addToCartFields is the add-to-cart form's fields, kept while nothing was
// added or refused (those name what the customer typed and their cart).
func addToCartFields(a AddToCart) templ.Component {
	if a.Error != "" || a.Added != "" || !shortNumber(a.Quantity) {
		return addToCartFieldsOf(a)
	}
	return addToCartFieldSets.of(addToCartKey{product: a.ProductID, quantity: a.Quantity, soldOut: a.Available == 0}, addToCartFieldsOf(a))
}
