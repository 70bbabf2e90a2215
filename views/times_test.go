package views

import (
	"context"
	"strings"
	"testing"
	"time"

	"shop/store"
	"shop/store/rules"
)

// Staff times are the shop's, with the zone in force at the time named;
// a context with no zone (a component rendered alone) shows UTC and says so.
func TestStaffTimesAreInTheZoneOfTheContext(t *testing.T) {
	stockholm, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Fatal(err)
	}
	shop := WithZone(context.Background(), stockholm)
	for _, tc := range []struct {
		ctx              context.Context
		at               time.Time
		time, stamp, day string
		millis           string
	}{
		{shop, time.Date(2026, 11, 21, 23, 0, 0, 0, time.UTC), "2026-11-22 00:00 CET", "2026-11-22\u00a000:00\u00a0CET", "2026-11-22", "2026-11-22 00:00:00.000 CET"},
		{shop, time.Date(2026, 3, 29, 0, 59, 0, 0, time.UTC), "2026-03-29 01:59 CET", "2026-03-29\u00a001:59\u00a0CET", "2026-03-29", "2026-03-29 01:59:00.000 CET"},
		{shop, time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC), "2026-03-29 03:00 CEST", "2026-03-29\u00a003:00\u00a0CEST", "2026-03-29", "2026-03-29 03:00:00.000 CEST"},
		{shop, time.Date(2026, 10, 24, 22, 30, 0, 0, time.UTC), "2026-10-25 00:30 CEST", "2026-10-25\u00a000:30\u00a0CEST", "2026-10-25", "2026-10-25 00:30:00.000 CEST"},
		{shop, time.Date(2026, 11, 30, 23, 30, 0, 5e6, time.UTC), "2026-12-01 00:30 CET", "2026-12-01\u00a000:30\u00a0CET", "2026-12-01", "2026-12-01 00:30:00.005 CET"},
		{context.Background(), time.Date(2026, 11, 21, 23, 0, 0, 0, time.UTC), "2026-11-21 23:00 UTC", "2026-11-21\u00a023:00\u00a0UTC", "2026-11-21", "2026-11-21 23:00:00.000 UTC"},
		{shop, time.Time{}, "—", "—", "—", "—"},
	} {
		if got := adminTime(tc.ctx, tc.at); got != tc.time {
			t.Errorf("adminTime(%s) = %q, want %q", tc.at, got, tc.time)
		}
		if got := adminStamp(tc.ctx, tc.at); got != tc.stamp {
			t.Errorf("adminStamp(%s) = %q, want %q", tc.at, got, tc.stamp)
		}
		if got := adminDay(tc.ctx, tc.at); got != tc.day {
			t.Errorf("adminDay(%s) = %q, want %q", tc.at, got, tc.day)
		}
		if got := adminMillis(tc.ctx, tc.at); got != tc.millis {
			t.Errorf("adminMillis(%s) = %q, want %q", tc.at, got, tc.millis)
		}
	}
	if got := ShopZoneWords(shop); got != "Europe/Stockholm time" {
		t.Errorf("ShopZoneWords = %q", got)
	}
}

// A run is shown by its time alone on the billing date it processed (a day
// in the shop's zone), with the day when it started on another.
func TestRunStartedReadsTheShopsDay(t *testing.T) {
	stockholm, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithZone(context.Background(), stockholm)
	run := store.JobRun{Date: rules.Date(2026, 11, 22), StartedAt: time.Date(2026, 11, 21, 23, 5, 0, 0, time.UTC)}
	if got := runStarted(ctx, run); got != "00:05\u00a0CET" {
		t.Errorf("a run at 00:05 on its own day: %q", got)
	}
	run.StartedAt = time.Date(2026, 11, 22, 23, 5, 0, 0, time.UTC)
	if got := runStarted(ctx, run); !strings.HasPrefix(got, "2026-11-23") {
		t.Errorf("a run the day after its date: %q", got)
	}
}
