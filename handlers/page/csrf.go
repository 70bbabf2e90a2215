package page

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gorilla/securecookie"

	"shop/store"
)

// A visitor (no account session) gets forms whose CSRF token needs nothing
// stored: the token is an HMAC of a random visitor id, kept in a signed
// cookie, under the session keys (a double-submit token bound to the
// cookie). So a visitor's page views write nothing to the table, and the
// visitor id also names the visitor's cart, so parallel first "add to cart"
// clicks all land in one cart. Every token is sent masked afresh (XOR with
// a random pad, as gorilla/csrf and Django do): a compressed page that
// carries it teaches a BREACH-style guesser nothing.

const (
	visitorCookie = "shop_visitor"
	visitorTTL    = 30 * 24 * time.Hour
	tokenBytes    = 32
)

// Tokens signs visitor cookies and derives visitor tokens from the session
// keys; the first key signs, all verify.
type Tokens struct {
	keys   [][]byte
	codecs []securecookie.Codec // gob: the cart's count
	// visitors sign visitor cookies, their id as it is (visitorIDs).
	visitors []securecookie.Codec
	secure   bool
	// ids are the visitor ids of cookies checked this second: the check
	// (HMAC, base64, gob) was most of a visitor's kept page's cost.
	ids *Moment[string, string]
}

// maxVisitorIDs bounds the cookies kept checked: a second's visitors.
const maxVisitorIDs = 10_000

// NewTokens takes the session keys (checked by the session store).
func NewTokens(keys [][]byte, secure bool) (*Tokens, error) {
	if len(keys) == 0 {
		return nil, errors.New("csrf: no key")
	}
	pairs := make([][]byte, 0, 2*len(keys))
	for _, k := range keys {
		pairs = append(pairs, k, nil)
	}
	codecs := securecookie.CodecsFromPairs(pairs...)
	visitors := securecookie.CodecsFromPairs(pairs...)
	for i := range codecs {
		codecs[i].(*securecookie.SecureCookie).MaxAge(int(visitorTTL.Seconds()))
		visitors[i].(*securecookie.SecureCookie).MaxAge(int(visitorTTL.Seconds())).SetSerializer(visitorIDs{})
	}
	return &Tokens{keys: keys, codecs: codecs, visitors: visitors, secure: secure,
		ids: NewMoment[string, string](time.Second, maxVisitorIDs, nil)}, nil
}

// visitorIDs writes a visitor id into its cookie as it is. gob, the
// codec's own, took half the time of making a new visitor's cookie (on
// every page of one who comes without cookies). Cookies made before are
// gob's, and still read: gob starts with a length byte below ' ', an id
// with a letter or digit.
type visitorIDs struct{}

func (visitorIDs) Serialize(src any) ([]byte, error) {
	id, ok := src.(string)
	if !ok {
		return nil, fmt.Errorf("visitor cookie: %T is not an id", src)
	}
	return []byte(id), nil
}

func (visitorIDs) Deserialize(src []byte, dst any) error {
	if len(src) > 0 && src[0] < ' ' {
		return securecookie.GobEncoder{}.Deserialize(src, dst)
	}
	id, ok := dst.(*string)
	if !ok {
		return fmt.Errorf("visitor cookie: %T cannot hold an id", dst)
	}
	*id = string(src)
	return nil
}

// visitorToken is the unmasked token of a visitor id under one key.
func visitorToken(key []byte, visitorID string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("csrf\x00" + visitorID))
	return m.Sum(nil)
}

// visitorID is the visit's visitor id from its cookie, made (and the
// cookie set) on first use when create is set; "" when there is none.
func visitorID(c *fiber.Ctx, create bool) string {
	v := VisitOf(c)
	if v.visitor != "" || v.tokens == nil {
		return v.visitor
	}
	if !v.visitorRead {
		v.visitorRead = true
		if id, ok := v.tokens.visitorIDOf(c.Cookies(visitorCookie)); ok {
			v.visitor = id
			return id
		}
	}
	if !create {
		return ""
	}
	id := store.NewID()
	signed, err := securecookie.EncodeMulti(visitorCookie, id, v.tokens.visitors...)
	if err != nil {
		// The keys were checked at start-up; this cannot happen.
		panic("page: sign visitor cookie: " + err.Error())
	}
	c.Cookie(&fiber.Cookie{
		Name: visitorCookie, Value: signed, Path: "/", MaxAge: int(visitorTTL.Seconds()),
		HTTPOnly: true, Secure: v.tokens.secure, SameSite: fiber.CookieSameSiteLaxMode,
	})
	v.visitor = id
	return id
}

// visitorIDOf is the visitor id a cookie carries, if it is a good one; a
// cookie is checked once a second (an expiry is a second late at most).
func (t *Tokens) visitorIDOf(raw string) (string, bool) {
	if raw == "" {
		return "", false
	}
	if id, ok := t.ids.Get(raw); ok {
		return id, true
	}
	var id string
	if securecookie.DecodeMulti(visitorCookie, raw, &id, t.visitors...) != nil || !store.ValidID(id) {
		return "", false
	}
	t.ids.Put(raw, id)
	return id, true
}

// forgetVisitor drops the visitor cookie (at sign-in and sign-out): the
// next visitor on this browser is a new one.
func forgetVisitor(c *fiber.Ctx) {
	dropCartUnitsCookie(c)
	v := VisitOf(c)
	if c.Cookies(visitorCookie) == "" && v.visitor == "" {
		return
	}
	v.visitor, v.visitorRead = "", true
	secure := v.tokens != nil && v.tokens.secure
	c.Cookie(&fiber.Cookie{Name: visitorCookie, Value: "", Path: "/", MaxAge: -1, Expires: time.Unix(1, 0),
		HTTPOnly: true, Secure: secure, SameSite: fiber.CookieSameSiteLaxMode})
}

// rawToken is the visit's unmasked token: the session's when it has one
// or is signed in, else the visitor's (made when create is set).
func rawToken(c *fiber.Ctx, create bool) []byte {
	v := VisitOf(c)
	if t := v.str(keyCSRF); t != "" {
		if b, err := base64.RawURLEncoding.DecodeString(t); err == nil {
			return b
		}
	}
	if Viewer(c).SignedIn() || v.tokens == nil {
		if !create {
			return nil
		}
		t := newToken()
		v.Set(keyCSRF, t)
		b, _ := base64.RawURLEncoding.DecodeString(t)
		return b
	}
	id := visitorID(c, create)
	if id == "" {
		return nil
	}
	return visitorToken(v.tokens.keys[0], id)
}

// CSRFToken returns the token for the forms of this page. It is masked
// afresh for each answer (so that a compressed page shows no constant
// secret) and once within one: every form and header of an answer carries
// the same masked token.
func CSRFToken(c *fiber.Ctx) string {
	v := VisitOf(c)
	v.tokenShown = true
	if v.masked == "" {
		v.masked = v.show(mask(rawToken(c, true)))
	}
	return v.masked
}

// LayoutToken is the token for the layout's htmx headers when the visit
// has one already; "" (and no cookie) otherwise.
func LayoutToken(c *fiber.Ctx) string {
	v := VisitOf(c)
	if v.masked != "" {
		return v.masked
	}
	raw := rawToken(c, false)
	if raw == nil {
		return ""
	}
	v.tokenShown = true
	v.masked = v.show(mask(raw))
	return v.masked
}

// CSRFValid reports whether got (a masked token from a form or header) is
// this visit's: the session's, or for a visitor the visitor cookie's under
// any of the keys.
func CSRFValid(c *fiber.Ctx, got string) bool {
	raw, ok := unmask(got)
	if !ok {
		return false
	}
	v := VisitOf(c)
	if t := v.str(keyCSRF); t != "" {
		if want, err := base64.RawURLEncoding.DecodeString(t); err == nil && subtle.ConstantTimeCompare(raw, want) == 1 {
			return true
		}
	}
	if Viewer(c).SignedIn() || v.tokens == nil {
		return false
	}
	id := visitorID(c, false)
	if id == "" {
		return false
	}
	for _, k := range v.tokens.keys {
		if hmac.Equal(raw, visitorToken(k, id)) {
			return true
		}
	}
	return false
}

// mask sends raw as pad || pad XOR raw, with a fresh random pad.
func mask(raw []byte) string {
	out := make([]byte, 2*len(raw))
	pad, masked := out[:len(raw)], out[len(raw):]
	_, _ = rand.Read(pad) // crypto/rand.Read never fails (Go 1.24+)
	subtle.XORBytes(masked, pad, raw)
	return base64.RawURLEncoding.EncodeToString(out)
}

func unmask(s string) ([]byte, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != 2*tokenBytes {
		return nil, false
	}
	raw := make([]byte, tokenBytes)
	subtle.XORBytes(raw, b[:tokenBytes], b[tokenBytes:])
	return raw, true
}
