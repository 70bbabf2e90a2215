package views

import (
	"context"
	"time"

	"shop/views/lang"
)

// Times on every page are in the shop's time zone with the zone named
// ("CET", "CEST"), so nobody has to know the server keeps UTC. The zone
// rides in the request's context (web puts the store's zone there for every
// request), so a table row rendered alone for htmx reads it just as the
// page around it does, and no page can forget to pass it.

type zoneKey struct{}

// WithZone gives the pages rendered with ctx the shop's time zone.
func WithZone(ctx context.Context, loc *time.Location) context.Context {
	return context.WithValue(ctx, zoneKey{}, loc)
}

// Zone is the shop's time zone the pages of ctx show times in; UTC when
// none was given (a component rendered on its own, in a test).
func Zone(ctx context.Context) *time.Location {
	if loc, ok := ctx.Value(zoneKey{}).(*time.Location); ok && loc != nil {
		return loc
	}
	return time.UTC
}

// ZoneName is the shop's zone as staff pick it: "Europe/Stockholm".
func ZoneName(ctx context.Context) string { return Zone(ctx).String() }

// staffTimeLayout is an instant as staff read it: the day as they type it
// in the date filters, the time and the zone in force then.
const staffTimeLayout = "2006-01-02 15:04 MST"

// adminTime is an instant as staff read it, in the shop's time zone with
// the zone named: "2026-11-22 02:31 CET"; "—" when unset.
func adminTime(ctx context.Context, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.In(Zone(ctx)).Format(staffTimeLayout)
}

// adminStamp is adminTime in a table cell: on one line.
func adminStamp(ctx context.Context, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.In(Zone(ctx)).Format("2006-01-02\u00a015:04\u00a0MST")
}

// adminClock is the time of day of an instant in the shop's zone, with
// the zone's name: a list shows the day above it.
func adminClock(ctx context.Context, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(Zone(ctx)).Format("15:04\u00a0MST")
}

// adminDay is the day of an instant in the shop's time zone: the day staff
// would type in a date filter to find it.
func adminDay(ctx context.Context, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.In(Zone(ctx)).Format("2006-01-02")
}

// zoneTimeLabel is an instant in the zone of ctx as the page's language
// writes it ("22 Nov 2026, 02:31 CET", "2026년 11월 22일 02:31 CET"), for
// the customer pages whose data carries no zone of its own.
func zoneTimeLabel(ctx context.Context, t time.Time) string {
	return lang.DateTime(ctx, InZone(t, Zone(ctx)))
}

// adminMillis is adminTime to the millisecond, where the order of claims
// made in one second matters (a drop's tickets).
func adminMillis(ctx context.Context, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.In(Zone(ctx)).Format("2006-01-02 15:04:05.000 MST")
}

// ShopZoneWords names the shop's time zone where a page explains that its
// days (billing dates, date filters) are the shop's: "Europe/Stockholm
// time".
func ShopZoneWords(ctx context.Context) string { return ZoneName(ctx) + " time" }
