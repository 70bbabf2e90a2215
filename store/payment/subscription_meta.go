package payment

// A subscription's sessions and payments carry what they pay for in their
// metadata, so their events (and the reconcile) find it: MetaFor says
// which of the three, and the other keys name it.
const (
	MetaFor          = "shop_for"
	MetaCustomer     = "customer"      // the shop's customer
	MetaSubscribeKey = "subscribe_key" // a subscribe's form key
	MetaSubscription = "subscription"  // a subscription's id
	MetaPeriod       = "period"        // the period a payment pays (YYYY-MM-DD)
	MetaAttempt      = "attempt"       // its attempt
	MetaKey          = "key"           // the payment's idempotency key
)

// What a subscription's session or payment is for (MetaFor).
const (
	ForSubscribe = "subscribe"           // a new subscription's first payment (or its card, in setup mode)
	ForPeriod    = "subscription_period" // one period's payment: a renewal, or its payment on the hosted page
	ForCard      = "subscription_card"   // a subscription's new card, in setup mode
	// ForChange is a swap now's difference, charged to the kept card
	// and recorded at once; its events matter only to a swap waiting on
	// the bank's question (jobs.SubscriptionPayments' swap waits).
	ForChange = "subscription_change"
)

// ForSubscription says whether a session's or payment's metadata names a
// subscription's: the settler hands such events to the subscriptions'
// side (jobs.SubscriptionPayments.ApplySubscriptionEvent).
func ForSubscription(md map[string]string) bool {
	switch md[MetaFor] {
	case ForSubscribe, ForPeriod, ForCard, ForChange:
		return true
	}
	return false
}

// EventMetadata is the metadata of an event's session or payment (nil for
// a refund's, or none).
func EventMetadata(ev Event) map[string]string {
	switch {
	case ev.Session != nil:
		return ev.Session.Metadata
	case ev.Payment != nil:
		return ev.Payment.Metadata
	}
	return nil
}
