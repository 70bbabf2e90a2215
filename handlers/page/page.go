// Package page is what a handler needs to answer with a page: the state of
// the visit (viewer, session, CSRF token, flash), the render helper that
// picks the full page or the htmx partial, redirects, and errors that carry
// a safe message for the person and the cause for the log.
package page

import (
	"crypto/rand"
	"encoding/base64"
	"time"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"
	"github.com/gorilla/sessions"

	"shop/store"
	"shop/views"
)

type localKey int

const (
	visitKey localKey = iota
	// RequestIDKey is where the request id middleware keeps the id.
	RequestIDKey
	roleKey  // the viewer's role as read from their record this request
	staffKey // the staff member's record, as the staff check read it
	zoneKey  // the shop's time zone, which the console shows
)

// Session value keys.
const (
	keyCustomerID = "customer_id"
	keyName       = "name"
	keyRole       = "role"
	keyCSRF       = "csrf"
	keyFlash      = "flash"
	keyFlashKind  = "flash_kind"
	keyVisitor    = "visitor_id"
)

// Visit is the session of one request and what the request did to it; the
// session middleware saves it after the handler when it changed.
type Visit struct {
	Session *sessions.Session
	// Changed asks for the session to be saved.
	Changed bool
	// Renew asks for a new session id (sign-in, sign-out): the old item is
	// deleted, so a copied cookie stops working.
	Renew bool

	// Saved is the version of the session's last save, as its cookie says
	// ("" for none): what was read for a session may be kept under it.
	Saved string
	// ValuesShared: Session.Values is the session cache's map, which other
	// requests read; the visit copies it before its first change
	// (values.go).
	ValuesShared bool

	tokens      *Tokens
	written     []any  // what this request wrote for good, for the log (Written)
	visitor     string // the visitor cookie's id, once read or made
	visitorRead bool
	tokenShown  bool   // the page carries a CSRF token: no shared cache may keep it
	masked      string // the token this answer's forms carry, masked once
	signedIn    bool   // the request came signed in
	// noting: shown lists the masked tokens the page was given (a kept
	// visitor's page swaps them for the next visitor's).
	noting bool
	shown  []string
}

// Start attaches the visit to the request; the session middleware calls it.
func Start(c *fiber.Ctx, s *sessions.Session, tokens *Tokens) *Visit {
	v := &Visit{Session: s, tokens: tokens}
	v.signedIn = v.str(keyCustomerID) != ""
	c.Locals(visitKey, v)
	return v
}

// Private reports whether the answer to this request is the visitor's
// own, for no shared cache to keep: the request came with a session
// (signed in, a flash, a cart) or the answer carries a CSRF token. False
// for a request the session middleware never saw.
func Private(c *fiber.Ctx) bool {
	v, ok := c.Locals(visitKey).(*Visit)
	return ok && (v.signedIn || len(v.Session.Values) > 0 || v.tokenShown)
}

// VisitOf returns the visit of the request.
func VisitOf(c *fiber.Ctx) *Visit {
	if v, ok := c.Locals(visitKey).(*Visit); ok {
		return v
	}
	// No session middleware on this route: a throwaway, never saved.
	return Start(c, sessions.NewSession(nil, "shop"), nil)
}

func (v *Visit) str(key string) string {
	s, _ := v.Session.Values[key].(string)
	return s
}

// KeepOnce keeps a value for the next request that takes it (TakeOnce),
// as a flash message is kept: what a page shows once after a redirect.
func KeepOnce(c *fiber.Ctx, key, value string) {
	v := VisitOf(c)
	v.Set("once_"+key, value)
}

// TakeOnce is the value KeepOnce kept under key, taken ("" if none).
func TakeOnce(c *fiber.Ctx, key string) string {
	v := VisitOf(c)
	val := v.str("once_" + key)
	if val != "" {
		v.Delete("once_" + key)
	}
	return val
}

// Written says the request has written something for good (an order
// placed and charged, a refund given, a ticket claimed), named for the log
// by key-value pairs ("order", id). From then on the handler's answer is
// the answer: a failure after it, the session's save (and so its flash)
// included, is logged as an error with these pairs, and never turns the
// answer into an error page that would have the person do it again.
func Written(c *fiber.Ctx, what ...any) {
	v := VisitOf(c)
	v.written = append(v.written, what...)
}

// WrittenFor is what Written named, nil when the request wrote nothing
// for good.
func (v *Visit) WrittenFor() []any { return v.written }

// ClientAddressKey holds the address a request counts under (set by the
// web middleware from the peer and a trusted proxy's header).
const ClientAddressKey = "client-address"

// ClientAddress is the address the request counts under: an IPv4
// address or an IPv6 /64.
func ClientAddress(c *fiber.Ctx) string {
	if s, ok := c.Locals(ClientAddressKey).(string); ok {
		return s
	}
	return c.IP()
}

// RequestID is the id of the request.
func RequestID(c *fiber.Ctx) string {
	s, _ := c.Locals(RequestIDKey).(string)
	return s
}

// Viewer is the signed-in person, the zero Viewer for a visitor. The role
// is the session's (as at sign-in), or the record's when the staff check
// read it this request.
func Viewer(c *fiber.Ctx) views.Viewer {
	v := VisitOf(c)
	id := v.str(keyCustomerID)
	if id == "" {
		return views.Viewer{}
	}
	role := store.Role(v.str(keyRole))
	if r, ok := c.Locals(roleKey).(store.Role); ok {
		role = r
	}
	return views.Viewer{ID: id, Name: v.str(keyName), Staff: role.Staff(), Owner: role == store.RoleOwner}
}

// ConfirmStaff records the viewer's customer record as the staff check
// just read it: this request's Viewer has its role, StaffMember returns
// it, and the session takes the role when it differs (someone made staff
// while signed in gets the console link from their first console page on).
func ConfirmStaff(c *fiber.Ctx, cust store.Customer) {
	c.Locals(roleKey, cust.Role)
	c.Locals(staffKey, cust)
	if v := VisitOf(c); v.str(keyCustomerID) == cust.ID && v.str(keyRole) != string(cust.Role) {
		v.Set(keyRole, string(cust.Role))
	}
}

// ShowZone has this request's pages say the shop's time zone (the
// console's times are in it).
func ShowZone(c *fiber.Ctx, loc *time.Location) { c.Locals(zoneKey, loc) }

// StaffMember is the staff member making this console request, as read by
// the staff check; false outside /admin.
func StaffMember(c *fiber.Ctx) (store.Customer, bool) {
	cust, ok := c.Locals(staffKey).(store.Customer)
	return cust, ok
}

// SessionID is the id of the visit's session, "" before it is saved.
func SessionID(c *fiber.Ctx) string { return VisitOf(c).Session.ID }

// SignIn makes the visit the given customer's, under a new session id.
func SignIn(c *fiber.Ctx, id, name, role string) {
	v := VisitOf(c)
	v.clearValues()
	v.Set(keyCustomerID, id)
	v.Set(keyName, name)
	v.Set(keyRole, role)
	v.Set(keyCSRF, newToken())
	v.masked = ""
	v.Renew = true
	forgetVisitor(c)
}

// Rename changes the signed-in customer's name in this session (the header
// shows it); their other sessions show the new name from their next
// sign-in.
func Rename(c *fiber.Ctx, name string) {
	v := VisitOf(c)
	if v.str(keyCustomerID) == "" || v.str(keyName) == name {
		return
	}
	v.Set(keyName, name)
}

// RenewSession keeps the visit's values under a new session id (after a
// password change: a copy of the old cookie no longer works).
func RenewSession(c *fiber.Ctx) {
	v := VisitOf(c)
	v.Changed, v.Renew = true, true
}

// SignOut forgets the customer and revokes the old session id.
func SignOut(c *fiber.Ctx) {
	v := VisitOf(c)
	v.clearValues()
	v.masked = ""
	v.Renew = true
	forgetVisitor(c)
}

// CartOwner names the visit's cart: the customer's when signed in, else the
// visitor's, made on first use when create is set ("" when there is none).
func CartOwner(c *fiber.Ctx, create bool) string {
	if v := Viewer(c); v.SignedIn() {
		return store.CustomerOwner(v.ID)
	}
	return visitorOwner(c, create)
}

// VisitorCart names the cart the visit filled before signing in, "" if none;
// sign-in merges it into the customer's.
func VisitorCart(c *fiber.Ctx) string { return visitorOwner(c, false) }

// The visitor's cart is named by the visitor cookie, which the page with
// the "add to cart" form set, so the first adds of parallel tabs share one
// cart. A session from before the cookie still names its cart.
func visitorOwner(c *fiber.Ctx, create bool) string {
	v := VisitOf(c)
	id := v.str(keyVisitor)
	if id == "" && v.tokens != nil {
		id = visitorID(c, create)
	}
	if id == "" {
		if !create {
			return ""
		}
		id = store.NewID()
		v.Set(keyVisitor, id)
	}
	return store.VisitorOwner(id)
}

// Flash keeps a message for the next page the visitor sees.
func Flash(c *fiber.Ctx, kind views.FlashKind, msg string) {
	v := VisitOf(c)
	v.Set(keyFlash, msg)
	v.Set(keyFlashKind, string(kind))
}

// Layout is what the layouts need to know about this visit. It takes the
// flash message, so it is shown once.
func Layout(c *fiber.Ctx, title string) views.Layout {
	v := VisitOf(c)
	l := ErrorLayout(c, title)
	if msg := v.str(keyFlash); msg != "" {
		l.Flash = views.Flash{Kind: views.FlashKind(v.str(keyFlashKind)), Message: msg}
		v.Delete(keyFlash, keyFlashKind)
	}
	return l
}

// ErrorLayout is Layout for an error page, which leaves the flash message
// alone: the session was saved before the error became a page, so a flash
// taken here would be lost unseen.
func ErrorLayout(c *fiber.Ctx, title string) views.Layout {
	l := views.Layout{
		Title:     title,
		Viewer:    Viewer(c),
		CSRF:      LayoutToken(c),
		Path:      c.Path(),
		RequestID: RequestID(c),
		CartUnits: CartUnits(c),
	}
	if loc, ok := c.Locals(zoneKey).(*time.Location); ok {
		l.Zone = loc.String()
	}
	return l
}

func newToken() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("page: crypto/rand failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// IsHTMX reports whether htmx asked for a part of a page. A history restore
// also sends HX-Request, but needs the whole page.
func IsHTMX(c *fiber.Ctx) bool {
	return c.Get("HX-Request") == "true" && c.Get("HX-History-Restore-Request") != "true"
}

// View is what a handler answers with: the full page, built with the
// layout only when it is the one sent (building the layout shows the flash
// message, which an htmx partial must leave for the next page), and the
// partial htmx swaps, if the page has one.
type View struct {
	Title       string
	Description string // "" for one made from the title
	// Path is the page's address for its language links, when not the
	// request's: a product's subscribe form on a page of its own switches
	// language on the product's page, which has the form too.
	Path    string
	Page    func(views.Layout) templ.Component
	Partial templ.Component
}

// List renders one page of a list: the whole page, or for htmx (its "show
// more" link, a filter) just the part that changes.
func List[T any](c *fiber.Ctx, title string, full func(views.Layout, T) templ.Component, part func(T) templ.Component, data T) error {
	return Render(c, fiber.StatusOK, View{Title: title, Page: Full(full, data), Partial: part(data)})
}

// Full adapts a page component that takes (layout, data) to View.Page.
func Full[T any](page func(views.Layout, T) templ.Component, data T) func(views.Layout) templ.Component {
	return func(l views.Layout) templ.Component { return page(l, data) }
}

// Render writes the full page, or the partial when htmx asked for one (and a
// partial exists). The partial is the same component the full page uses.
func Render(c *fiber.Ctx, status int, v View) error {
	Vary(c, "HX-Request")
	if v.Partial != nil && IsHTMX(c) {
		return Write(c, status, v.Partial)
	}
	l := Layout(c, v.Title)
	l.Description = v.Description
	if v.Path != "" {
		l.Path = v.Path
	}
	return Write(c, status, v.Page(l))
}

// Write sends a component as the HTML response. (Whether a cache may keep
// it is decided for every answer in one place, after it is made: see
// Private.)
func Write(c *fiber.Ctx, status int, comp templ.Component) error {
	c.Status(status)
	c.Set(fiber.HeaderContentType, "text/html; charset=utf-8")
	return comp.Render(c.UserContext(), c.Response().BodyWriter())
}

// Redirect sends the browser to url after a successful form: 303 for a plain
// form, HX-Redirect for htmx (which would otherwise swap the next page into
// the form's place).
func Redirect(c *fiber.Ctx, url string) error {
	if IsHTMX(c) {
		c.Set("HX-Redirect", url)
		return c.SendStatus(fiber.StatusNoContent)
	}
	return c.Redirect(url, fiber.StatusSeeOther)
}
