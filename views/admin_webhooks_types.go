package views

import "shop/store"

// AdminWebhooks is the webhooks page: every endpoint, each integration's
// and staff's, the form that registers one of staff's, and, right after
// one is registered, its secret (shown this once).
type AdminWebhooks struct {
	Endpoints []store.WebhookEndpoint // staff's first, then by integration
	Form      AdminWebhookForm
	Created   *store.WebhookEndpoint // with its Secret
	CSRF      string
}

// AdminWebhookForm registers a staff endpoint, as typed.
type AdminWebhookForm struct {
	URL    string
	Events []string
	Errors FieldErrors
	CSRF   string
}

// Wants reports whether the form asks for event typ.
func (f AdminWebhookForm) Wants(typ string) bool {
	for _, e := range f.Events {
		if e == typ {
			return true
		}
	}
	return false
}

// AdminWebhookDelete asks staff to confirm deleting an endpoint.
type AdminWebhookDelete struct {
	Endpoint store.WebhookEndpoint
	CSRF     string
}

// webhookOwnerIsStaff reports whether staff registered the endpoint.
func webhookOwnerIsStaff(e store.WebhookEndpoint) bool { return e.Integration == store.StaffWebhooks }

// shopEventAbout says in a few words what happens in the shop for each of
// staff's events, beside its code name on the form.
var shopEventAbout = map[string]string{
	store.EventOrderPlaced:               "admin.webhooks.about.order.placed",
	store.EventOrderShipped:              "admin.webhooks.about.order.shipped",
	store.EventOrderRefunded:             "admin.webhooks.about.order.refunded",
	store.EventSubscriptionCreated:       "admin.webhooks.about.subscription.created",
	store.EventSubscriptionRenewed:       "admin.webhooks.about.subscription.renewed",
	store.EventSubscriptionPaymentFailed: "admin.webhooks.about.subscription.payment_failed",
	store.EventSubscriptionCancelled:     "admin.webhooks.about.subscription.cancelled",
}
