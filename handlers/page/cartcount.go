package page

import (
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gorilla/securecookie"
)

// The number of items in the cart, for the header's cart link, is kept
// where the visit already is, so no page reads the cart to show it: in a
// customer's session (read on every page anyway), and for a visitor in a
// signed cookie beside the visitor cookie. A visitor's session item is
// written only for a flash; keeping the count there would make every later
// page read it. Every cart change sets it (add, quantity, remove, a
// ticket, checkout, the merge at sign-in), and the cart page puts it right
// when the cart changed elsewhere (another device of the same customer).
const (
	keyCartUnits    = "cart_units"
	cartUnitsCookie = "shop_cart_units"
)

// CartUnits is the number of items in the visit's cart as last known; 0
// when none is known.
func CartUnits(c *fiber.Ctx) int {
	v := VisitOf(c)
	if Viewer(c).SignedIn() {
		n, _ := v.Session.Values[keyCartUnits].(int)
		return n
	}
	if v.tokens == nil {
		return 0
	}
	var n int
	raw := c.Cookies(cartUnitsCookie)
	if raw == "" || securecookie.DecodeMulti(cartUnitsCookie, raw, &n, v.tokens.codecs...) != nil || n < 0 {
		return 0
	}
	return n
}

// SetCartUnits keeps the number of items in the visit's cart; nothing is
// written when it is the number kept already.
func SetCartUnits(c *fiber.Ctx, n int) {
	if n < 0 {
		n = 0
	}
	v := VisitOf(c)
	if Viewer(c).SignedIn() {
		if old, ok := v.Session.Values[keyCartUnits].(int); ok && old == n {
			return
		}
		v.Set(keyCartUnits, n)
		return
	}
	if v.tokens == nil || CartUnits(c) == n {
		return
	}
	if n == 0 {
		dropCartUnitsCookie(c)
		return
	}
	signed, err := securecookie.EncodeMulti(cartUnitsCookie, n, v.tokens.codecs...)
	if err != nil {
		// The keys were checked at start-up; this cannot happen.
		panic("page: sign cart count cookie: " + err.Error())
	}
	c.Cookie(&fiber.Cookie{
		Name: cartUnitsCookie, Value: signed, Path: "/", MaxAge: int(visitorTTL.Seconds()),
		HTTPOnly: true, Secure: v.tokens.secure, SameSite: fiber.CookieSameSiteLaxMode,
	})
	// This request's layout shows the new number too.
	c.Request().Header.SetCookie(cartUnitsCookie, signed)
}

// expired is a cookie's expiry that deletes it.
var expired = time.Unix(1, 0)

// dropCartUnitsCookie forgets a visitor's count (sign-in and sign-out: the
// visitor's cart is merged or left behind with the visitor cookie).
func dropCartUnitsCookie(c *fiber.Ctx) {
	if c.Cookies(cartUnitsCookie) == "" {
		return
	}
	v := VisitOf(c)
	secure := v.tokens != nil && v.tokens.secure
	c.Cookie(&fiber.Cookie{Name: cartUnitsCookie, Value: "", Path: "/", MaxAge: -1, Expires: expired,
		HTTPOnly: true, Secure: secure, SameSite: fiber.CookieSameSiteLaxMode})
	c.Request().Header.DelCookie(cartUnitsCookie)
}
