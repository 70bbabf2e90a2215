package store

import "context"

// SubscribableProducts are the products a subscription may swap to, by
// name: the whole catalogue's copy (at most a minute old, no read of its
// own once warm), filtered. A swap reads the chosen product from the table
// before it writes.
func (w *Window) SubscribableProducts(ctx context.Context) ([]Product, error) {
	all, err := w.allProducts(ctx)
	if err != nil {
		return nil, err
	}
	var out []Product
	for _, p := range all {
		if p.OpenToSubscribers() {
			out = append(out, p)
		}
	}
	return out, nil
}
