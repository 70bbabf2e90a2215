package views

import (
	"context"
	"strings"

	"shop/store"
	"shop/store/payment"
	"shop/web/paths"
)

// A held order's payment at its provider, as staff follow it: Stripe's
// payment, or its Checkout session before it is paid, in the Dashboard;
// the test provider's hosted page (the shop serves it).

// heldPaymentRef is the provider's reference staff see for a hold: its
// payment once paid, else its page (session); "" before a page is attached.
func heldPaymentRef(h *store.PaymentHold) string {
	if h == nil {
		return ""
	}
	if h.PaymentRef != "" {
		return h.PaymentRef
	}
	return h.SessionID
}

// heldPaymentURL is where staff look at a hold's payment: for Stripe the
// Dashboard under dashboard (its payment, else its Checkout session), for
// the test provider its hosted page; "" when there is nothing to open.
func heldPaymentURL(h *store.PaymentHold, dashboard string) string {
	if h == nil {
		return ""
	}
	dashboard = strings.TrimSuffix(dashboard, "/")
	switch store.ProviderOf(h.Provider) {
	case payment.ProviderStripe:
		if h.PaymentRef != "" {
			return dashboard + "/payments/" + h.PaymentRef
		}
		if h.SessionID != "" {
			return dashboard + "/checkout/sessions/" + h.SessionID
		}
	case payment.ProviderTest:
		if h.SessionID != "" && h.Provider != "" {
			return paths.TestPaymentCheckout(h.SessionID)
		}
	}
	return ""
}

// heldSessionURL is the page the customer pays a hold on, as staff open
// it: Stripe's Checkout session in the Dashboard, the test provider's page.
func heldSessionURL(h *store.PaymentHold, dashboard string) string {
	if h == nil || h.SessionID == "" {
		return ""
	}
	only := *h
	only.PaymentRef = ""
	return heldPaymentURL(&only, dashboard)
}

// heldProvider names a hold's provider for staff; "—" before a page.
func heldProvider(ctx context.Context, h *store.PaymentHold) string {
	if h == nil || h.Provider == "" {
		return "—"
	}
	switch h.Provider {
	case payment.ProviderStripe:
		return t(ctx, "admin.orders.provider.stripe")
	case payment.ProviderTest:
		return t(ctx, "admin.orders.provider.test")
	}
	return h.Provider
}

var holdReasonIDs = map[store.HoldReleaseReason]string{
	store.ReleaseExpired:   "admin.orders.hold.reason.expired",
	store.ReleaseCancelled: "admin.orders.hold.reason.cancelled",
	store.ReleaseDeadline:  "admin.orders.hold.reason.deadline",
	store.ReleaseMismatch:  "admin.orders.hold.reason.mismatch",
}

// holdReason says why a hold was released.
func holdReason(ctx context.Context, r store.HoldReleaseReason) string {
	if id, ok := holdReasonIDs[r]; ok {
		return t(ctx, id)
	}
	return string(r)
}

// heldIntentURL is a hold's payment in Stripe's Dashboard; "" for another
// provider's (the test provider has no page for a payment).
func heldIntentURL(h *store.PaymentHold, dashboard string) string {
	if h == nil || h.PaymentRef == "" || h.Provider != payment.ProviderStripe {
		return ""
	}
	return strings.TrimSuffix(dashboard, "/") + "/payments/" + h.PaymentRef
}

// shortRef is a provider's reference short enough for a table cell: a
// Stripe Checkout session id is some 66 characters, so its start and end
// ("cs_test_a1B2…6789"); the whole one is the link's title.
func shortRef(ref string) string {
	if len(ref) <= 20 {
		return ref
	}
	return ref[:12] + "…" + ref[len(ref)-4:]
}

// refText is ref as a cell shows it: shortened in a list.
func refText(ref string, short bool) string {
	if short {
		return shortRef(ref)
	}
	return ref
}
