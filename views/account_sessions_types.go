package views

import (
	"context"
	"time"

	"shop/views/lang"
)

// AccountSessionsPage is where a customer is signed in.
type AccountSessionsPage struct {
	CSRF     string
	Sessions []AccountSession // this one first
}

// AccountSession is one signed-in session as its customer sees it: named
// by its handle, never its id.
type AccountSession struct {
	Handle     string // "" for this session when the list does not have it yet
	Device     string
	SignedInAt time.Time
	LastSeenAt time.Time
	Current    bool
}

// Others reports whether the customer is signed in anywhere else.
func (p AccountSessionsPage) Others() bool {
	for _, s := range p.Sessions {
		if !s.Current {
			return true
		}
	}
	return false
}

// deviceLabel is the session's device, or a word for one unknown.
func deviceLabel(ctx context.Context, s AccountSession) string {
	if s.Device == "" {
		return lang.T(ctx, "account.sessions.unknown_device")
	}
	return s.Device
}

// sessionTime is a time on the sessions page, to the minute, in the shop's
// time zone like the customer's orders.
func sessionTime(ctx context.Context, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return zoneTimeLabel(ctx, t)
}
