package handlers

import (
	"context"
	"crypto/hmac"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views"
	"shop/web/paths"
)

// GuestOrderLinkLife is how long the link in a guest's order mails works,
// from the order's placing.
const GuestOrderLinkLife = 90 * 24 * time.Hour

// purposeGuestOrder signs guests' order links: an account link's token
// never checks as one, nor the other way round.
const purposeGuestOrder store.LinkPurpose = "guest-order"

// orderLinkToken is the token of the link to order id until: its end in
// Unix seconds and the signature of both. Nothing is stored: the link
// needs no table item and no read before it is judged.
func (s LinkSigner) orderLinkToken(orderID string, until time.Time, key []byte) string {
	end := strconv.FormatInt(until.Unix(), 10)
	return end + "." + base64.RawURLEncoding.EncodeToString(s.mac(key, purposeGuestOrder, orderID+"|"+end))
}

// GuestOrderLink is the path of a guest's link to o's page, good for
// GuestOrderLinkLife from its placing (mail.Links.GuestOrderLink).
func (s LinkSigner) GuestOrderLink(o store.Order) string {
	return paths.GuestOrder(o.ID, s.orderLinkToken(o.ID, o.PlacedAt.Add(GuestOrderLinkLife), s.keys[0]))
}

// openOrderLink says whether token is a link to order id signed by the
// shop (any of its keys), and whether it is still good at now.
func (s LinkSigner) openOrderLink(orderID, token string, now time.Time) (signed, good bool) {
	if len(token) > maxLinkToken {
		return false, false
	}
	end, _, ok := strings.Cut(token, ".")
	secs, err := strconv.ParseInt(end, 10, 64)
	if !ok || err != nil || secs <= 0 {
		return false, false
	}
	for _, k := range s.keys {
		if hmac.Equal([]byte(token), []byte(s.orderLinkToken(orderID, time.Unix(secs, 0), k))) {
			return true, now.Before(time.Unix(secs, 0))
		}
	}
	return false, false
}

// GuestOrderStore is what the page of a guest's order link reads.
type GuestOrderStore interface {
	OrderDetails(ctx context.Context, orderID string) (store.OrderDetails, error)
	Location() *time.Location
	ReturnStore
}

// GuestOrders serves the link a guest's order mails carry: the order's
// page (status, invoice, shipments, returns), read only, without a
// session. Every answer is private and not stored (the app's
// privateAnswers sets Cache-Control for a page showing a token, and this
// one says so itself too).
type GuestOrders struct {
	Store  GuestOrderStore
	Signer LinkSigner
}

// Show checks the link's signature before anything is read: a changed
// link is a 403, one past its end a 410, each a page saying so.
func (h *GuestOrders) Show(c *fiber.Ctx) error {
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	id := c.Params("id")
	signed, good := h.Signer.openOrderLink(id, c.Query("t"), h.Store.Now())
	switch {
	case !signed || !store.ValidID(id):
		return &page.Error{Status: fiber.StatusForbidden, Message: page.T(c, "orders.link.bad")}
	case !good:
		return &page.Error{Status: fiber.StatusGone, Message: page.T(c, "orders.link.expired")}
	}
	d, err := h.Store.OrderDetails(c.UserContext(), id)
	if err != nil {
		return notFoundAs(err, "orders.not_found")
	}
	ret := returnsPart(c, h.Store, d, nil)
	ret.Open = false // asked for signed in, or by mail to the shop
	sel, err := h.Store.Seller(c.UserContext())
	if err != nil {
		return err
	}
	data := views.OrderPage{Details: d, Loc: h.Store.Location(), Returns: ret, ReadOnly: true, Seller: sel}
	return page.Render(c, fiber.StatusOK, page.View{Title: page.T(c, "orders.order", "Number", d.Order.Label()), Page: page.Full(views.OrderView, data)})
}
