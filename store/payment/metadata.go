package payment

// Metadata keys of the shop's sessions and payments: what a session pays
// for comes back on its events, and the shop's settling dispatches by it.
const (
	// MetaOrder is the held order a checkout session pays.
	MetaOrder = "order"
	// MetaSubscription is the subscription a session or payment pays or
	// saves a card for.
	MetaSubscription = "subscription"
)

// CheckoutKey is the idempotency key of the hosted page that pays a held
// order: one page per order, however often it is asked for.
func CheckoutKey(orderID string) string { return "hold-" + orderID }
