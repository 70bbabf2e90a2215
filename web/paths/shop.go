package paths

import (
	"net/url"
	"strconv"
	"strings"
)

// The storefront and the customer's account.
const (
	Home            = "/"
	Catalogue       = "/products"
	Search          = "/search" // ?q=
	Signup          = "/signup"
	Login           = "/login"
	Logout          = "/logout"
	Cart            = "/cart"
	CartItems       = "/cart/items" // POST adds a line
	Checkout        = "/checkout"
	CheckoutSummary = "/checkout/summary"
	Orders          = "/orders"
	Subscriptions   = "/subscriptions" // POST subscribes
	// SubscribePreview is what a subscribe form's day and period come to
	// (?product_id=&day=&period=): the form's preview for htmx, the form
	// with it on a page of its own otherwise.
	SubscribePreview = "/subscriptions/preview"
	Receipts         = "/receipts"
	Drops            = "/drops"
	Tickets          = "/tickets"
	// Account is the customer's name, email, password and addresses.
	Account = "/account"
	// AccountName changes the customer's name (POST).
	AccountName = "/account/name"
	// AccountPassword changes the password (POST).
	AccountPassword = "/account/password"
	// AccountAddresses saves a new address (POST).
	AccountAddresses = "/account/addresses"
	// AccountSessions is where a customer sees where they are signed in.
	AccountSessions = "/account/sessions"
	// AccountSessionsEndOthers signs out every session but this one (POST).
	AccountSessionsEndOthers = "/account/sessions/end-others"
	// AccountData is everything the shop holds about the customer, as a
	// JSON file.
	AccountData = "/account/data"
	// AccountDelete asks for the password (GET) and deletes the account (POST).
	AccountDelete = "/account/delete"
)

// The patterns of the storefront's and the account's routes with a
// parameter, each filled by the builder of its name (Product fills
// ProductPattern).
const (
	ProductPattern               = "/products/:id"
	ProductStockPattern          = "/products/:id/stock"
	CartItemPattern              = "/cart/items/:id"
	CartItemRemovePattern        = "/cart/items/:id/remove"
	CartTicketRemovePattern      = "/cart/tickets/:id/remove"
	OrderPattern                 = "/orders/:id"
	OrderCancelPattern           = "/orders/:id/cancel"
	OrderInvoicePDFPattern       = "/orders/:id/invoice.pdf"
	OrderCreditNotePDFPattern    = "/orders/:id/refunds/:key/credit-note.pdf"
	OrderPaymentPattern          = "/orders/:id/payment"
	OrderPayPattern              = "/orders/:id/pay"
	GuestOrderPattern            = "/orders/:id/link"
	SubscriptionDayPattern       = "/subscriptions/:id/day"
	SubscriptionPeriodPattern    = "/subscriptions/:id/period"
	SubscriptionCardPattern      = "/subscriptions/:id/card"
	SubscriptionSkipPattern      = "/subscriptions/:id/skip"
	SubscriptionPausePattern     = "/subscriptions/:id/pause"
	SubscriptionResumePattern    = "/subscriptions/:id/resume"
	SubscriptionCancelPattern    = "/subscriptions/:id/cancel"
	SubscriptionKeepPattern      = "/subscriptions/:id/keep"
	SubscriptionSwapPattern      = "/subscriptions/:id/swap"
	SubscriptionPayPattern       = "/subscriptions/:id/pay"
	ReceiptPattern               = "/receipts/:number"
	ReceiptPDFPattern            = "/receipts/:number/receipt.pdf"
	ReceiptCreditNotePDFPattern  = "/receipts/:number/credit-notes/:note/credit-note.pdf"
	DropPattern                  = "/drops/:id"
	DropCountPattern             = "/drops/:id/count"
	DropClaimPattern             = "/drops/:id/claim"
	TicketBuyPattern             = "/tickets/:id/buy"
	AccountAddressPattern        = "/account/addresses/:id"
	AccountAddressDefaultPattern = "/account/addresses/:id/default"
	AccountAddressDeletePattern  = "/account/addresses/:id/delete"
	AccountSessionEndPattern     = "/account/sessions/:handle/end"
)

// Category is the catalogue of one category; "" is the whole catalogue.
func Category(slug string) string { return WithQuery(Catalogue, "category", slug) }

// CatalogueList is the catalogue of a category ("" all) sorted by order
// (store.CatalogueOrder; "" or "name", the default, is left out), showing
// its first page pages (1 is left out): the same list however it is
// reached, so a link, a reload and the address htmx pushes agree.
func CatalogueList(category, order string, page int) string {
	if order == "name" {
		order = ""
	}
	p := ""
	if page > 1 {
		p = strconv.Itoa(page)
	}
	return WithQuery(Catalogue, "category", category, "sort", order, "page", p)
}

// Product is a product's page.
func Product(id string) string { return fill(ProductPattern, id) }

// ProductStock is a product's stock panel, which refreshes itself.
func ProductStock(id string) string { return fill(ProductStockPattern, id) }

// LoginThen sends a visitor to sign in and back to the path they were on;
// not back to the home page or to the sign-in and sign-up forms themselves.
func LoginThen(back string) string {
	if back == "" || back == Home || strings.HasPrefix(back, Login) || strings.HasPrefix(back, Signup) {
		return Login
	}
	return WithQuery(Login, "next", back)
}

// CartItem sets the quantity of a product's line (POST).
func CartItem(productID string) string { return fill(CartItemPattern, productID) }

// CartItemRemove removes a product's line (POST).
func CartItemRemove(productID string) string { return fill(CartItemRemovePattern, productID) }

// CartTicketRemove takes a drop's ticket out of the cart (POST).
func CartTicketRemove(dropID string) string { return fill(CartTicketRemovePattern, dropID) }

// Order is one of the customer's orders.
func Order(id string) string { return fill(OrderPattern, id) }

// OrderPayment is the payment status of an order awaiting its card
// payment, polled by htmx (GET).
func OrderPayment(id string) string { return fill(OrderPaymentPattern, id) }

// OrderPay opens the provider's page of an order awaiting payment again
// (POST).
func OrderPay(id string) string { return fill(OrderPayPattern, id) }

// OrderCancel asks to confirm cancelling an order (GET), and cancels it (POST).
func OrderCancel(id string) string { return fill(OrderCancelPattern, id) }

// The changes a customer makes to a subscription (all POST).

func SubscriptionDay(id string) string    { return fill(SubscriptionDayPattern, id) }
func SubscriptionPeriod(id string) string { return fill(SubscriptionPeriodPattern, id) }
func SubscriptionCard(id string) string   { return fill(SubscriptionCardPattern, id) }
func SubscriptionSkip(id string) string   { return fill(SubscriptionSkipPattern, id) }
func SubscriptionPause(id string) string  { return fill(SubscriptionPausePattern, id) }
func SubscriptionResume(id string) string { return fill(SubscriptionResumePattern, id) }
func SubscriptionCancel(id string) string { return fill(SubscriptionCancelPattern, id) }
func SubscriptionKeep(id string) string   { return fill(SubscriptionKeepPattern, id) }

// SubscriptionSwap changes the product or the quantity (POST), and shows
// what a choice comes to (GET, the form's htmx preview).
func SubscriptionSwap(id string) string { return fill(SubscriptionSwapPattern, id) }

// SubscriptionPay opens the card provider's page to pay a period whose
// payment the bank asked the holder to confirm (POST).
func SubscriptionPay(id string) string { return fill(SubscriptionPayPattern, id) }

// Receipt is a subscription payment's receipt, by its number.
func Receipt(number string) string { return fill(ReceiptPattern, number) }

// ReceiptPDF is the receipt as a PDF.
func ReceiptPDF(number string) string { return fill(ReceiptPDFPattern, number) }

// ReceiptCreditNotePDF is the credit note (by its number) of a receipt's
// refund.
func ReceiptCreditNotePDF(number, note string) string {
	return fill(ReceiptCreditNotePDFPattern, number, note)
}

// OrderCreditNotePDF is the credit note of an order's refund (by its key).
func OrderCreditNotePDF(id, key string) string {
	return fill(OrderCreditNotePDFPattern, id, key)
}

// OrderInvoicePDF is the order's invoice as a PDF.
func OrderInvoicePDF(id string) string { return fill(OrderInvoicePDFPattern, id) }

// Drop is a limited drop's page.
func Drop(id string) string { return fill(DropPattern, id) }

// DropCount is a drop's live count of tickets left, polled every second.
func DropCount(id string) string { return fill(DropCountPattern, id) }

// DropClaim is a drop's claim area (GET, fetched at the opening) and the
// claim itself (POST).
func DropClaim(id string) string { return fill(DropClaimPattern, id) }

// TicketBuy puts a claimed ticket in the cart (POST).
func TicketBuy(dropID string) string { return fill(TicketBuyPattern, dropID) }

// AccountSessionEnd signs out one of the customer's other sessions, named
// by its handle (POST).
func AccountSessionEnd(handle string) string { return fill(AccountSessionEndPattern, handle) }

// AccountAddress is a saved address's edit form (GET) and its change (POST).
func AccountAddress(id string) string { return fill(AccountAddressPattern, id) }

// AccountAddressDelete deletes a saved address (POST).
func AccountAddressDelete(id string) string { return fill(AccountAddressDeletePattern, id) }

// AccountAddressDefault makes a saved address the default (POST).
func AccountAddressDefault(id string) string { return fill(AccountAddressDefaultPattern, id) }

// CheckoutTo is the checkout filled in with a saved address.
func CheckoutTo(addressID string) string { return WithQuery(Checkout, "address", addressID) }

// Mailed account links and the forms they lead to.
const (
	// PasswordForgot asks for a reset link (GET the form, POST mails it).
	PasswordForgot = "/password/forgot"
	// PasswordReset is a reset link's form (?t=), POST sets the password.
	PasswordReset = "/password/reset"
	// EmailVerify is a verification link's page (?t=), POST verifies.
	EmailVerify = "/email/verify"
	// AccountVerifyEmail mails the verification link again (POST).
	AccountVerifyEmail = "/account/verify-email"
)

// PasswordResetLink is the reset page of a signed link token.
func PasswordResetLink(token string) string { return WithQuery(PasswordReset, "t", token) }

// EmailVerifyLink is the verification page of a signed link token.
func EmailVerifyLink(token string) string { return WithQuery(EmailVerify, "t", token) }

// SubscribePreviewOf is the preview of a product's subscribe form, the
// form's day and period to be added (htmx adds them).
func SubscribePreviewOf(productID string) string {
	return SubscribePreview + "?product_id=" + url.QueryEscape(productID)
}

// GuestOrder is the link a guest's order mails carry to the order's page,
// which works without an account while its signed token is good.
func GuestOrder(id, token string) string { return WithQuery(fill(GuestOrderPattern, id), "t", token) }
