package handlers

import (
	"context"
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"

	"shop/handlers/page"
	"shop/store"
	"shop/views/lang"
)

// The customer's language lives on their record (it decides their mail)
// and in the "lang" cookie web/language.go reads (it decides the pages).
// The signed-in session notes the language it knows the record has, so a
// page view costs no read and a choice writes the record only when it
// differs.
const (
	keyRecordLang = "record_lang"
	langCookie    = "lang"
)

// RecordLanguage is the language the session knows the signed-in
// customer's record has ("" when the record has none).
func RecordLanguage(c *fiber.Ctx) string {
	l, _ := page.VisitOf(c).Session.Values[keyRecordLang].(string)
	return l
}

func noteRecordLanguage(c *fiber.Ctx, l string) {
	v := page.VisitOf(c)
	if cur, _ := v.Session.Values[keyRecordLang].(string); cur == l {
		return
	}
	v.Set(keyRecordLang, l)
}

// CustomerLanguageStore is what keeping the customer's language needs.
type CustomerLanguageStore interface {
	SetCustomerLanguage(ctx context.Context, customerID, lang string) error
}

// KeepCustomerLanguage writes a language a signed-in customer chose by
// link (?lang=) to their record, once: only when it differs from what the
// session knows the record has. Visitors never cause a write.
func KeepCustomerLanguage(st CustomerLanguageStore) fiber.Handler {
	return func(c *fiber.Ctx) error {
		l, chosen := lang.Parse(c.Query("lang"))
		if !chosen {
			return c.Next()
		}
		v := page.Viewer(c)
		if !v.SignedIn() || RecordLanguage(c) == string(l) {
			return c.Next()
		}
		err := st.SetCustomerLanguage(c.UserContext(), v.ID, string(l))
		switch {
		case errors.Is(err, store.ErrNotFound):
			// The account went while the session lived: nothing to keep.
		case err != nil:
			return err
		default:
			noteRecordLanguage(c, string(l))
		}
		return c.Next()
	}
}

// languageAtSignIn has the signed-in visit read the shop in the
// customer's own language: the record's, unless this request chose one by
// link, which then becomes the record's. The cookie carries it to the
// next pages; this request's context to the flash message.
func (h *Account) languageAtSignIn(c *fiber.Ctx, cust store.Customer) error {
	l, chosen := lang.Parse(c.Query("lang"))
	if !chosen {
		recorded, ok := lang.Parse(cust.Lang)
		if !ok {
			noteRecordLanguage(c, cust.Lang)
			return nil
		}
		l = recorded
	} else if string(l) != cust.Lang {
		if err := h.Store.SetCustomerLanguage(c.UserContext(), cust.ID, string(l)); err != nil {
			return err
		}
	}
	noteRecordLanguage(c, string(l))
	if c.Cookies(langCookie) != string(l) {
		c.Cookie(&fiber.Cookie{
			Name: langCookie, Value: string(l), Path: "/",
			Expires: time.Now().AddDate(1, 0, 0), MaxAge: 365 * 24 * 3600,
			Secure: h.SecureCookies, HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode,
		})
	}
	c.SetUserContext(lang.With(c.UserContext(), l))
	return nil
}
