package web

import (
	"maps"
	"time"

	"shop/handlers/page"
	"shop/store"
)

// sessionCache keeps the sessions this replica read or saved for a
// moment (a second by default), so that a signed-in visitor's pages do not
// each read their session. Sessions are not sticky: any replica may save a
// session, so an entry is keyed by the session's id and the version its
// cookie carries, which every save changes. A browser that got the
// cookie of a save asks for a version no other replica has cached, and
// reads it; a stale entry can only answer a cookie from before that save.
// A revocation is forgotten at once by the replica that made it (Save's
// delete, store.OnSessionsEnded) and by the others when their entry's
// moment is over.
type sessionCache struct {
	now func() time.Time

	entries *page.Moment[string, sessionEntry] // by session id
	// cookies are cookie values as sent, with what they decoded to: a
	// signed cookie's check and decoding (an HMAC, base64 and gob) was a
	// tenth of a signed-in view's session work, and a browser sends the
	// same value on every request until the next save.
	cookies *page.Moment[string, string]
}

type sessionEntry struct {
	version string
	rec     store.Session
	// values are the session's values decoded (its signed Data), so that
	// a view answered from the cache does not verify and decode them
	// again; each request gets a copy of its own.
	values map[any]any
	gone   bool // read as revoked or expired
}

// maxSessionEntries bounds the cache between sweeps of its old entries.
const maxSessionEntries = 100_000

func newSessionCache(ttl time.Duration) *sessionCache {
	c := &sessionCache{now: time.Now}
	clock := func() time.Time { return c.now() } // tests move c.now
	c.entries = page.NewMoment[string, sessionEntry](ttl, maxSessionEntries, clock)
	c.cookies = page.NewMoment[string, string](ttl, maxSessionEntries, clock)
	return c
}

// decoded is what a cookie value decoded to when this replica last
// checked it, within the moment; ok false when it must be checked.
func (c *sessionCache) decoded(value string) (payload string, ok bool) {
	if c == nil {
		return "", false
	}
	return c.cookies.Get(value)
}

// checked keeps what a cookie value decoded to, for the moment.
func (c *sessionCache) checked(value, payload string) {
	if c != nil {
		c.cookies.Put(value, payload)
	}
}

// get is the cached session of the cookie's id and version (gone when it
// was read revoked), with a copy of its values; ok false when the cache
// does not know.
func (c *sessionCache) get(id, version string) (e sessionEntry, ok bool) {
	if c == nil {
		return sessionEntry{}, false
	}
	e, ok = c.entries.Get(id)
	if !ok || e.version != version {
		return sessionEntry{}, false
	}
	return e, true // its values are shared: read only (page.Visit.ValuesShared)
}

// put keeps a session as read or saved, under the version of its cookie,
// with a copy of its values (nil for one revoked).
func (c *sessionCache) put(id, version string, rec store.Session, values map[any]any, gone bool) {
	if c != nil {
		c.entries.Put(id, sessionEntry{version: version, rec: rec, values: maps.Clone(values), gone: gone})
	}
}

// touched notes the last-seen time a view wrote, so that the next views
// answered from the cache do not write it again.
func (c *sessionCache) touched(id, version string, at time.Time) {
	if c == nil {
		return
	}
	c.entries.Update(id, func(e *sessionEntry) {
		if e.version == version {
			e.rec.LastSeenAt = at
		}
	})
}

// forget drops sessions ended here: their next request reads the table.
func (c *sessionCache) forget(ids ...string) {
	if c != nil {
		c.entries.Delete(ids...)
	}
}
