package handlers

import (
	"context"
	"strings"
	"testing"
	"time"

	"shop/views"
)

// A discount code's last day is a day in the shop's time zone: it works
// until that day's local midnight, and "today" is the shop's today.
func TestDiscountCodeEndsAtTheShopsMidnight(t *testing.T) {
	stockholm, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 21, 23, 30, 0, 0, time.UTC) // 00:30 on 22 Nov in Stockholm
	for _, tc := range []struct {
		expires, wantEnd, wantErr string
	}{
		{expires: "2026-11-30", wantEnd: "2026-11-30T23:00:00Z"},
		{expires: "2026-10-24", wantErr: "passed"},
		{expires: "2026-11-21", wantErr: "passed"}, // still today in UTC, not in Stockholm
		{expires: "2026-11-22", wantEnd: "2026-11-22T23:00:00Z"},
		{expires: "2027-03-27", wantEnd: "2027-03-27T23:00:00Z"}, // midnight CET
		{expires: "2027-03-28", wantEnd: "2027-03-28T22:00:00Z"}, // clocks go forward that night: midnight CEST
	} {
		f := views.AdminDiscountForm{Code: "SUMMER-25", Kind: "percent", Value: "10", Expires: tc.expires, Limit: "5"}
		d := discountFromForm(context.Background(), &f, "EUR", now, stockholm)
		if tc.wantErr != "" {
			if msg := f.Errors["expires"]; msg == "" || !strings.Contains(msg, tc.wantErr) {
				t.Errorf("%s: error %q, want one about %q", tc.expires, msg, tc.wantErr)
			}
			continue
		}
		if len(f.Errors) != 0 {
			t.Errorf("%s: errors %v", tc.expires, f.Errors)
		}
		if got := d.ExpiresAt.UTC().Format(time.RFC3339); got != tc.wantEnd {
			t.Errorf("%s: expires at %s, want %s", tc.expires, got, tc.wantEnd)
		}
	}
}
