package main

import (
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"

	"shop/store/payment"
	"shop/store/rules"
	"shop/web/paths"
)

// How the soak's customers pay: the card is typed on the test provider's
// hosted page (the shop's own /test-payments/checkout/…, through the
// proxy), never on /checkout or /subscriptions; the provider's event,
// delivered to /webhooks/test by whichever replica's job ticks, places the
// order or starts the subscription.

// soakCardOffPage counts card numbers sent to a page of the shop's own:
// the soak fails on any.
const soakCardOffPage = "card numbers sent to the shop's own pages"

// soakPaymentHold is the cluster's SHOP_PAYMENT_HOLD, the shortest the
// test provider allows: holds left unpaid expire (their pages expired by
// the provider's job, their goods given back) while the soak runs.
const soakPaymentHold = time.Minute

// soakPayment is how a customer pays at checkout besides the card.
type soakPayment struct{ giftCard, code string }

// order checks out and, when the order is held for its card, pays on the
// provider's page (one in eight after a declined card there), or leaves
// it: one in ten goes back and cancels the held order on its page, one in
// twenty never comes back and the hold expires. It gives the order and
// whether it was placed.
func (r *soakRun) order(c *soakClient, pay soakPayment) (string, bool) {
	id, page, ok := soakCheckout(c, pay)
	if !ok {
		return "", false
	}
	r.mu.Lock()
	r.ours[id] = true
	r.mu.Unlock()
	if page == "" {
		// Placed at once (the gift card and the code paid it all), or held
		// while the page could not open: the order page says which.
		if page = r.pageOfOrder(c, id); page == "" {
			return id, soakPlaced(c, id)
		}
	}
	r.tally.add("orders held for the card")
	c.think()
	switch x := rand.IntN(20); {
	case x < 2:
		c.do(http.MethodGet, soakLocal(page, "/test-payments/"), nil)
		c.think()
		if soakSubmit(c, paths.Order(id), "cancel-pending-form", nil) == http.StatusSeeOther {
			r.tally.add("held orders cancelled by their customer")
		}
		return id, false
	case x == 2:
		c.do(http.MethodGet, soakLocal(page, "/test-payments/"), nil)
		r.tally.add("held orders left unpaid")
		return id, false
	}
	if !r.payOnPage(c, page, rand.IntN(8) == 0) {
		return id, false
	}
	return id, r.settled(c, id)
}

// soakCheckout is the checkout step: the form, filled in and sent, sent
// again with the new total when a code changed it, as the page would show
// it. It gives the order and, when it is held, the provider's page to pay
// it on.
func soakCheckout(c *soakClient, pay soakPayment) (id, page string, ok bool) {
	status, doc, _ := c.do(http.MethodGet, paths.Checkout, nil)
	if status != http.StatusOK || doc == nil {
		return "", "", false
	}
	key, _ := doc.Find(`input[name="key"]`).Attr("value")
	total, _ := doc.Find(`[data-testid="expected-total"]`).Attr("value")
	form := url.Values{"key": {key}, "total": {total}, "name": {"Soak Customer"}, "street": {"Storgatan"}, "number": {"1"},
		"zip": {"41101"}, "city": {"Göteborg"}, "country": {"Sweden"}, "giftcard": {pay.giftCard}, "discount": {pay.code}}
	for try := 0; ; try++ {
		status, doc, hdr := c.do(http.MethodPost, paths.Checkout, form)
		if status == http.StatusSeeOther {
			loc := hdr.Get("Location")
			if strings.Contains(loc, "/test-payments/checkout/") {
				id := soakHeldID(c, loc)
				return id, loc, id != ""
			}
			id, ok := strings.CutPrefix(soakLocal(loc, "/orders/"), "/orders/")
			id, _, _ = strings.Cut(id, "?")
			return id, "", ok && id != ""
		}
		if doc == nil || try == 1 {
			return "", "", false
		}
		again, _ := doc.Find(`[data-testid="expected-total"]`).Attr("value")
		if again == "" || again == form.Get("total") {
			return "", "", false
		}
		form.Set("total", again)
	}
}

// soakHeldID reads the held order's id off its page at the provider: the
// link back to the shop, which is the order's page.
func soakHeldID(c *soakClient, page string) string {
	status, doc, _ := press(c, http.MethodGet, soakLocal(page, "/test-payments/"), nil)
	if status != http.StatusOK || doc == nil {
		return ""
	}
	back := soakLocal(doc.Find(`[data-testid="test-payment-cancel"]`).AttrOr("href", ""), "/orders/")
	id, _ := strings.CutPrefix(back, "/orders/")
	id, _, _ = strings.Cut(id, "?")
	return id
}

// soakLocal is the path of an address from where marker starts: the
// shop's own pages, reached through the proxy whatever host the shop
// named ("" when it has no marker).
func soakLocal(addr, marker string) string {
	i := strings.Index(addr, marker)
	if i < 0 {
		return ""
	}
	return addr[i:]
}

// pageOfOrder is the provider's page of an order that awaits its payment:
// the order page's "Pay now", or, when the page could not open at
// checkout, the one "Try again" opens. "" when the order needs none.
func (r *soakRun) pageOfOrder(c *soakClient, id string) string {
	status, doc, _ := press(c, http.MethodGet, paths.Order(id), nil)
	if status != http.StatusOK || doc == nil {
		return ""
	}
	if href := doc.Find(`[data-testid="pay-now"]`).AttrOr("href", ""); href != "" {
		return href
	}
	if form := doc.Find(`form[data-testid="pay-again-form"]`); form.Length() > 0 {
		r.tally.add("payment pages opened again")
		if status, loc := soakSendTo(c, form, nil); status == http.StatusSeeOther && strings.Contains(loc, "/test-payments/") {
			return loc
		}
	}
	return ""
}

// soakCard is the provider page's card form with number.
func soakCard(number string) url.Values {
	return url.Values{"card_number": {number}, "expiry": {"12/40"}, "cvc": {"123"}, "name": {"Soak Customer"}}
}

// payOnPage pays on the provider's page, with a declined card first when
// declineFirst. A paid page answers 303 to the shop (409 when a press
// again after a 503 finds it paid already).
func (r *soakRun) payOnPage(c *soakClient, page string, declineFirst bool) bool {
	at := soakLocal(page, "/test-payments/")
	if status, _, _ := press(c, http.MethodGet, at, nil); status != http.StatusOK {
		return false
	}
	if declineFirst {
		if status, _, _ := press(c, http.MethodPost, at, soakCard(payment.CardDeclined)); status == http.StatusUnprocessableEntity {
			r.tally.add("cards declined on the page")
		}
		c.think()
	}
	switch status, _, _ := press(c, http.MethodPost, at, soakCard(payment.CardSucceeds)); status {
	case http.StatusSeeOther, http.StatusConflict:
		r.tally.add("paid on the provider's page")
		return true
	case http.StatusGone:
		r.tally.add("pages expired before they were paid")
	}
	return false
}

// settled waits, as the order page's htmx does (every 2 s), until the
// provider's event settled the paid order, and says whether it was
// placed.
func (r *soakRun) settled(c *soakClient, id string) bool {
	for end := time.Now().Add(2 * time.Minute); r.before() && time.Now().Before(end); time.Sleep(2 * time.Second) {
		status, _, _ := c.send(http.MethodGet, paths.OrderPayment(id), nil, true)
		if status == http.StatusNoContent {
			break
		}
	}
	return soakPlaced(c, id)
}

// soakPlaced reads the order's page: placed is neither awaiting its
// payment nor expired.
func soakPlaced(c *soakClient, id string) bool {
	status, doc, _ := press(c, http.MethodGet, paths.Order(id), nil)
	return status == http.StatusOK && doc != nil && doc.Find(`[data-testid="order-status"]`).Length() > 0 &&
		doc.Find(`[data-testid="order-payment-pending"], [data-testid="order-expired"]`).Length() == 0
}

// subscribe subscribes from the product's page with a new card, on a
// payment day and period of chance: the form carries no card, the card is
// typed on the provider's page (one in eight after a declined one), and
// the subscription starts once the provider's event came, which the
// subscriptions page shows.
func (r *soakRun) subscribe(c *soakClient, product string) bool {
	status, loc := soakSubmitTo(c, paths.Product(product), "subscribe-form", func(v url.Values, _ *goquery.Selection) {
		v.Set("day", strconv.Itoa(1+rand.IntN(28)))
		v.Set("period", strconv.Itoa(rules.Periods[rand.IntN(len(rules.Periods))]))
		v.Set("card", "new")
	})
	if status != http.StatusSeeOther || !strings.Contains(loc, "/test-payments/") {
		return false
	}
	c.think()
	if !r.payOnPage(c, loc, rand.IntN(8) == 0) {
		return false
	}
	for end := time.Now().Add(2 * time.Minute); r.before() && time.Now().Before(end); time.Sleep(2 * time.Second) {
		status, doc, _ := press(c, http.MethodGet, paths.Subscriptions, nil)
		if status == http.StatusOK && doc != nil && doc.Find(`form[data-testid="sub-day-form"]`).Length() > 0 {
			return true
		}
	}
	return false
}
