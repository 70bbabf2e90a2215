package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gorilla/securecookie"
	"github.com/gorilla/sessions"

	"shop/handlers/page"
	"shop/store"
)

const (
	sessionCookie = "shop_session"
	sessionTTL    = 14 * 24 * time.Hour
	// A visitor's session only carries a CSRF token, a flash or a cart id:
	// it lives briefly, so form views do not pile up sessions in the table.
	visitorSessionTTL = 12 * time.Hour
	// lastSeenEvery is how stale a signed-in session's last-seen time may
	// get before a page view writes it: a customer's sessions page is
	// right to a few minutes, and browsing does not write on every page.
	lastSeenEvery = 5 * time.Minute
)

// SessionRecords is where sessions live: the shop's table.
type SessionRecords interface {
	Session(ctx context.Context, id string) (store.Session, error)
	SaveSession(ctx context.Context, s store.Session, isNew bool) error
	TouchSession(ctx context.Context, s store.Session) error
	DeleteSession(ctx context.Context, id string) error
}

// SessionStore is a gorilla sessions.Store that keeps the values in
// DynamoDB and only a signed id in the cookie: deleting the item revokes the
// cookie, and every replica on the table shares the sessions.
type SessionStore struct {
	records SessionRecords
	codecs  []securecookie.Codec
	options sessions.Options
	tokens  *page.Tokens  // visitors' cookies and CSRF tokens, under the same keys
	cache   *sessionCache // nil: every request reads its session
}

// errBadCookie marks a cookie that cannot be ours (tampered, or signed with
// a retired key): the visit is treated as signed out.
var errBadCookie = errors.New("session cookie rejected")

// NewSessionStore checks the keys at start-up (a bad key would otherwise fail
// only when a session is saved). The first key signs, all verify.
func NewSessionStore(records SessionRecords, keys [][]byte, secure bool) (*SessionStore, error) {
	if len(keys) == 0 {
		return nil, errors.New("sessions: no signing key")
	}
	pairs := make([][]byte, 0, 2*len(keys))
	for i, k := range keys {
		if len(k) < 32 {
			return nil, fmt.Errorf("sessions: key %d is %d bytes, need at least 32", i+1, len(k))
		}
		pairs = append(pairs, k, nil) // sign only: the cookie holds just a random id
	}
	codecs := securecookie.CodecsFromPairs(pairs...)
	for _, c := range codecs {
		// The signed values sit in the table, not the cookie: allow more
		// than a cookie's 4096 bytes.
		c.(*securecookie.SecureCookie).MaxAge(int(sessionTTL.Seconds())).MaxLength(64 << 10)
	}
	if _, err := securecookie.EncodeMulti(sessionCookie, "probe", codecs...); err != nil {
		return nil, fmt.Errorf("sessions: keys do not work: %w", err)
	}
	tokens, err := page.NewTokens(keys, secure)
	if err != nil {
		return nil, err
	}
	return &SessionStore{
		records: records,
		codecs:  codecs,
		tokens:  tokens,
		// Every option set on purpose: gorilla's defaults are not these.
		options: sessions.Options{
			Path: "/", MaxAge: int(sessionTTL.Seconds()), HttpOnly: true,
			Secure: secure, SameSite: http.SameSiteLaxMode,
		},
	}, nil
}

// Get returns the request's session (no registry: the middleware keeps it).
func (s *SessionStore) Get(r *http.Request, name string) (*sessions.Session, error) {
	return s.New(r, name)
}

// New loads the session the cookie names, or a fresh one. The error is
// errBadCookie for a cookie that fails verification (the session is still
// usable), or the store's error.
func (s *SessionStore) New(r *http.Request, name string) (*sessions.Session, error) {
	var cookie string
	if ck, err := r.Cookie(name); err == nil {
		cookie = ck.Value
	}
	sess, _, _, shared, err := s.load(r.Context(), name, cookie)
	if shared { // New's caller (gorilla's interface) may change it in place
		sess.Values = maps.Clone(sess.Values)
	}
	return sess, err
}

// load is New with the stored session it read (zero for a fresh one) and
// the version its cookie named. A session answered from the cache has the
// cache's map of values, which its visit must not change in place
// (page.Visit.ValuesShared): shared says so.
func (s *SessionStore) load(ctx context.Context, name, cookie string) (*sessions.Session, store.Session, string, bool, error) {
	sess := sessions.NewSession(s, name)
	opts := s.options
	sess.Options = &opts
	sess.IsNew = true
	if cookie == "" {
		return sess, store.Session{}, "", false, nil
	}
	payload, ok := s.cache.decoded(cookie)
	if !ok {
		if err := securecookie.DecodeMulti(name, cookie, &payload, s.codecs...); err != nil {
			return sess, store.Session{}, "", false, errBadCookie
		}
		s.cache.checked(cookie, payload)
	}
	// The id and the version of the save that set the cookie (none in a
	// cookie from before versions: cached like any other).
	id, version, _ := strings.Cut(payload, ".")
	if e, ok := s.cache.get(id, version); ok {
		if e.gone {
			return sess, store.Session{}, "", false, nil // revoked or expired: signed out
		}
		shared := e.values != nil
		if shared {
			sess.Values = e.values
		}
		sess.ID, sess.IsNew = id, false
		return sess, e.rec, version, shared, nil
	}
	rec, err := s.records.Session(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		s.cache.put(id, version, store.Session{}, nil, true)
		return sess, store.Session{}, "", false, nil // revoked or expired: signed out
	}
	if err != nil {
		return sess, store.Session{}, "", false, err
	}
	if err := securecookie.DecodeMulti(dataName(name, id), string(rec.Data), &sess.Values, s.codecs...); err != nil {
		return sess, store.Session{}, "", false, errBadCookie
	}
	s.cache.put(id, version, rec, sess.Values, false) // a copy: the visit's own stays its own
	sess.ID, sess.IsNew = id, false
	return sess, rec, version, false, nil
}

// newSessionVersion names one save of a session in its cookie.
func newSessionVersion() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// customerOf is the customer a session is signed in as, "" for a visitor.
func customerOf(sess *sessions.Session) string {
	id, _ := sess.Values["customer_id"].(string)
	return id
}

// dataName signs a session's values under its id, so the values of one
// session row cannot be copied into another.
func dataName(name, id string) string { return name + ".data." + id }

// errRevoked is a session deleted while the request held it: it stays
// deleted and the visit is signed out.
var errRevoked = errors.New("session revoked during the request")

// Save writes the session and its cookie; MaxAge < 0 deletes both.
func (s *SessionStore) Save(r *http.Request, w http.ResponseWriter, sess *sessions.Session) error {
	if sess.Options.MaxAge < 0 {
		if sess.ID != "" {
			if err := s.records.DeleteSession(r.Context(), sess.ID); err != nil {
				return err
			}
			s.cache.forget(sess.ID)
		}
		http.SetCookie(w, sessions.NewCookie(sess.Name(), "", sess.Options))
		return nil
	}
	isNew := sess.ID == ""
	if isNew {
		var b [32]byte
		if _, err := rand.Read(b[:]); err != nil {
			return err
		}
		sess.ID = hex.EncodeToString(b[:])
	}
	// The values are signed too, with the same keys, so a row edited in the
	// table cannot make someone staff without the key.
	data, err := securecookie.EncodeMulti(dataName(sess.Name(), sess.ID), sess.Values, s.codecs...)
	if err != nil {
		return fmt.Errorf("encode session: %w", err)
	}
	ttl := visitorSessionTTL
	rec := store.Session{ID: sess.ID, Data: []byte(data)}
	if id := customerOf(sess); id != "" {
		ttl = sessionTTL
		// A signed-in session is always new (sign-in renews the id): its
		// customer and device are written once, with it.
		rec.CustomerID, rec.Device = id, page.DeviceOf(r.UserAgent())
	}
	now := time.Now()
	rec.ExpiresAt = now.Add(ttl)
	err = s.records.SaveSession(r.Context(), rec, isNew)
	if errors.Is(err, store.ErrNotFound) {
		s.cache.forget(sess.ID)
		return errRevoked
	}
	if err != nil {
		return err
	}
	version, err := newSessionVersion()
	if err != nil {
		return err
	}
	rec.LastSeenAt = now // as the save wrote it
	s.cache.put(sess.ID, version, rec, sess.Values, false)
	cookie, err := securecookie.EncodeMulti(sess.Name(), sess.ID+"."+version, s.codecs...)
	if err != nil {
		return fmt.Errorf("encode session cookie: %w", err)
	}
	opts := *sess.Options
	opts.MaxAge = int(ttl.Seconds())
	http.SetCookie(w, sessions.NewCookie(sess.Name(), cookie, &opts))
	return nil
}

// headerWriter is the http.ResponseWriter gorilla saves through: it only
// collects the headers, which are copied onto Fiber's response.
type headerWriter struct{ h http.Header }

func (w *headerWriter) Header() http.Header         { return w.h }
func (w *headerWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *headerWriter) WriteHeader(int)             {}

// sessionRequest is the request gorilla saves a session for: its context
// and the device of a new session, nothing else; made only for a save.
// (adaptor's ConvertRequest would copy every header and refuse a
// malformed URL with an error, which is the visitor's typo, not our 500.)
func sessionRequest(c *fiber.Ctx) *http.Request {
	r := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/"}, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"User-Agent": {c.Get(fiber.HeaderUserAgent)}}, Host: "shop"}
	return r.WithContext(c.UserContext())
}

// middleware bridges gorilla to Fiber once per request: it loads the
// session before the handler and saves it after, only if it changed.
func (s *SessionStore) middleware(log *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx := c.UserContext()
		sess, stored, version, shared, err := s.load(ctx, sessionCookie, string(c.Request().Header.Cookie(sessionCookie)))
		switch {
		case errors.Is(err, errBadCookie):
			log.Info("session cookie rejected, treating as signed out", "request_id", page.RequestID(c))
		case err != nil:
			return fmt.Errorf("load session: %w", err)
		}
		visit := page.Start(c, sess, s.tokens)
		visit.Saved, visit.ValuesShared = version, shared
		handlerErr := c.Next()
		// after is the answer when the session cannot be written after the
		// handler: an error page, unless the handler wrote something for
		// good (page.Written). Then its answer (the order, the refund's
		// page) stands, and only the flash or the cart count is lost: an
		// error page would have the person place the order again.
		after := func(err error) error {
			if w := visit.WrittenFor(); w != nil && handlerErr == nil {
				log.Error("session not saved after a write that stands; the answer is kept",
					append(w, "request_id", page.RequestID(c), "method", c.Method(), "path", c.Path(), "err", err)...)
				return nil
			}
			return errors.Join(handlerErr, err)
		}
		if !visit.Changed {
			// A save sets the last-seen time; without one, it is written
			// only when it is lastSeenEvery old. A signed-in session from
			// before sessions carried their customer (zero last seen) is
			// touched at once, which adds it to the customer's list.
			if id := customerOf(sess); id != "" && sess.ID == stored.ID && time.Since(stored.LastSeenAt) > lastSeenEvery {
				err := s.records.TouchSession(ctx, store.Session{ID: stored.ID, CustomerID: id, Device: page.DeviceOf(c.Get(fiber.HeaderUserAgent))})
				if err != nil && !errors.Is(err, store.ErrNotFound) { // revoked meanwhile: nothing to note
					return after(fmt.Errorf("touch session: %w", err))
				}
				if err == nil { // the cached copy too, or the next view touches again
					s.cache.touched(stored.ID, version, time.Now())
				}
			}
			return handlerErr
		}
		if visit.Renew && sess.ID != "" {
			if err := s.records.DeleteSession(ctx, sess.ID); err != nil {
				return after(fmt.Errorf("renew session: %w", err))
			}
			s.cache.forget(sess.ID)
			sess.ID = ""
		}
		w := &headerWriter{h: http.Header{}}
		err = s.Save(sessionRequest(c), w, sess)
		switch {
		case errors.Is(err, errRevoked):
			log.Info("session revoked during the request; not saved", "request_id", page.RequestID(c))
		case err != nil:
			return after(fmt.Errorf("save session: %w", err))
		}
		for _, v := range w.h.Values("Set-Cookie") {
			c.Response().Header.Add(fiber.HeaderSetCookie, v)
		}
		return handlerErr
	}
}
