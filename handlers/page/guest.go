package page

import (
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// A guest checkout marks the visit's session with the guest's customer and
// the orders it held or placed. The visit stays a visitor's (Viewer is
// zero, the cart the visitor's, the account pages ask to sign in): a guest
// session sees only the pages of its own orders, never every order of
// the customer, since anyone who types an email at checkout becomes that
// email's guest customer.
const (
	keyGuest       = "guest_id"
	keyGuestOrders = "guest_orders"
	// guestOrdersKept bounds the orders one guest session remembers.
	guestOrdersKept = 10
)

// SignInGuest marks the visit as the guest checkout of customer id, under
// a new session id; the visitor's cart and token stay.
func SignInGuest(c *fiber.Ctx, id string) {
	v := VisitOf(c)
	if v.str(keyGuest) != id {
		v.Delete(keyGuestOrders)
	}
	v.Set(keyGuest, id)
	v.Renew = true
}

// Guest is the guest customer of the visit, "" when there is none (or the
// visit is signed in).
func Guest(c *fiber.Ctx) string {
	if Viewer(c).SignedIn() {
		return ""
	}
	return VisitOf(c).str(keyGuest)
}

// GuestOrder lets the guest session see the order's pages.
func GuestOrder(c *fiber.Ctx, orderID string) {
	v := VisitOf(c)
	ids := strings.Fields(v.str(keyGuestOrders))
	if slices.Contains(ids, orderID) {
		return
	}
	ids = append(ids, orderID)
	ids = ids[max(0, len(ids)-guestOrdersKept):]
	v.Set(keyGuestOrders, strings.Join(ids, " "))
}

// GuestSees reports whether the guest session held or placed the order.
func GuestSees(c *fiber.Ctx, orderID string) bool {
	return Guest(c) != "" && slices.Contains(strings.Fields(VisitOf(c).str(keyGuestOrders)), orderID)
}
