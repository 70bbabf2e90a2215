package payment

// Metadata keys of the shop's sessions and payments: what a session pays
// for comes back on its events, and the shop's settling dispatches by it.
const (
	// MetaOrder is the held order a checkout session pays. (A
	// subscription's keys are in subscription_meta.go.)
	MetaOrder = "order"
)

// CheckoutKey is the idempotency key of the hosted page that pays a held
// order: one page per order, however often it is asked for.
func CheckoutKey(orderID string) string { return "hold-" + orderID }
