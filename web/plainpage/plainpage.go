// Package plainpage is the benchmark's yardstick: the smallest page of the
// shop's stack (Fiber v2, templ, gorilla/sessions in a cookie, a CSRF
// token, htmx) with nothing of the shop's. A page of the shop divided by it
// says what the shop adds on top of the stack. Only the benchmark uses it.
package plainpage

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/gofiber/fiber/v2/middleware/csrf"
	"github.com/gorilla/sessions"
)

const sessionName = "plain_session"

type pageData struct {
	CustomerID string
	Flashes    []string
	CSRF       string
}

func csrfHeaders(token string) string {
	b, err := json.Marshal(map[string]string{"X-Csrf-Token": token})
	if err != nil {
		return "{}"
	}
	return string(b)
}

// New is the plain page's app: GET / renders the page; read, if not nil,
// runs on every view first (the benchmark's one GetItem), and POST /login
// signs a customer id in, as the session's value.
func New(read func(ctx context.Context) error) *fiber.App {
	store := sessions.NewCookieStore([]byte("0123456789abcdef0123456789abcdef"), []byte("abcdef0123456789abcdef0123456789"))
	store.Options = &sessions.Options{Path: "/", MaxAge: 8 * 3600, HttpOnly: true, SameSite: http.SameSiteLaxMode}
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Use(csrf.New(csrf.Config{CookieName: "csrf_", CookieHTTPOnly: true, CookieSameSite: "Lax", Expiration: 2 * time.Hour, ContextKey: "csrf",
		Extractor: func(c *fiber.Ctx) (string, error) {
			if t := c.Get(csrf.HeaderName); t != "" {
				return t, nil
			}
			if t := c.FormValue("_csrf"); t != "" {
				return t, nil
			}
			return "", csrf.ErrTokenNotFound
		}}))
	app.Get("/", func(c *fiber.Ctx) error {
		if read != nil {
			if err := read(c.UserContext()); err != nil {
				return err
			}
		}
		r, err := adaptor.ConvertRequest(c, false)
		if err != nil {
			return err
		}
		s, _ := store.Get(r, sessionName) // a bad cookie is a new session
		token, _ := c.Locals("csrf").(string)
		d := pageData{CSRF: token}
		d.CustomerID, _ = s.Values["customer_id"].(string)
		if fl := s.Flashes(); len(fl) > 0 {
			for _, f := range fl {
				d.Flashes = append(d.Flashes, fmt.Sprint(f))
			}
			if err := save(c, r, s); err != nil {
				return err
			}
		}
		c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
		return page(d).Render(c.UserContext(), c.Response().BodyWriter())
	})
	app.Post("/login", func(c *fiber.Ctx) error {
		r, err := adaptor.ConvertRequest(c, false)
		if err != nil {
			return err
		}
		s, _ := store.Get(r, sessionName)
		s.Values["customer_id"] = c.FormValue("customer_id")
		s.AddFlash("welcome")
		if err := save(c, r, s); err != nil {
			return err
		}
		return c.Redirect("/", fiber.StatusSeeOther)
	})
	return app
}

// headerWriter collects the cookie gorilla sets, for Fiber's answer.
type headerWriter struct{ h http.Header }

func (w *headerWriter) Header() http.Header         { return w.h }
func (w *headerWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *headerWriter) WriteHeader(int)             {}

func save(c *fiber.Ctx, r *http.Request, s *sessions.Session) error {
	w := &headerWriter{h: http.Header{}}
	if err := s.Save(r, w); err != nil {
		return err
	}
	for _, v := range w.h.Values("Set-Cookie") {
		c.Response().Header.Add(fiber.HeaderSetCookie, v)
	}
	return nil
}
