package requestlog

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"
)

// TestLinesAreTheTextHandlers: a request line written directly is
// byte for byte what slog's TextHandler writes for the same record, values
// that need quoting included.
func TestLinesAreTheTextHandlers(t *testing.T) {
	stockholm, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 1, 2, 3, 456_789_000, stockholm)
	for _, tc := range []Line{
		{At: at, Method: "GET", Path: "/products/cf-light", Route: "/products/:id", ID: "7e56a915c8689eec", Status: 200, Bytes: 9963, Took: 412 * time.Microsecond},
		{At: at.UTC(), Method: "POST", Path: "/cart/items", Route: "/cart/items", ID: "x", Status: 303, Bytes: 0, Took: 3 * time.Second},
		{At: at, Method: "GET", Path: "/search q=\"1\"", Route: "unmatched", ID: "", Status: 404, Bytes: -1, Took: 0},
		{At: at, Method: "GET", Path: "/a\\b\tc\x7f\x01", Route: "/", ID: "id=1", Status: 500, Bytes: 12, Took: time.Microsecond},
		{At: at, Method: "GET", Path: "/검색/kopi\u00a0susu/\u200b/\xff", Route: "/", ID: "한", Status: 200, Bytes: 1, Took: 1500 * time.Microsecond},
	} {
		var direct, handler bytes.Buffer
		if err := (&Lines{w: &direct}).Write(tc); err != nil {
			t.Fatal(err)
		}
		r := slog.NewRecord(tc.At, slog.LevelInfo, "request", 0)
		r.AddAttrs(slog.String("method", tc.Method), slog.String("path", tc.Path), slog.String("route", tc.Route),
			slog.Int("status", tc.Status), slog.Float64("duration_ms", float64(tc.Took.Microseconds())/1000),
			slog.Int("bytes", tc.Bytes), slog.String("request_id", tc.ID))
		if err := slog.NewTextHandler(&handler, nil).Handle(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		if direct.String() != handler.String() {
			t.Errorf("written directly:\n%s\nby the TextHandler:\n%s", direct.String(), handler.String())
		}
	}
}

// One Lines keeps the text of the second it last wrote: lines in that
// second, the next, another zone at the same instant and across a change
// of summer time each say their own time as the TextHandler does.
func TestLinesSayEachTimeInTurn(t *testing.T) {
	stockholm, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 1, 2, 3, 456_789_000, time.UTC)
	summerEnds := time.Date(2026, 10, 25, 0, 59, 59, 999_000_000, time.UTC) // 02:59:59.999 CEST, then 02:00 CET
	var direct bytes.Buffer
	lines := &Lines{w: &direct}
	for _, when := range []time.Time{
		at, at.Add(time.Millisecond), at.Add(543 * time.Millisecond), at.Add(544 * time.Millisecond),
		at.In(stockholm), at, at.Add(-time.Second), at.Add(time.Hour),
		summerEnds.In(stockholm), summerEnds.Add(time.Millisecond).In(stockholm),
	} {
		direct.Reset()
		if err := lines.Write(Line{At: when, Method: "GET", Path: "/", Route: "/", ID: "i", Status: 200}); err != nil {
			t.Fatal(err)
		}
		var handler bytes.Buffer
		r := slog.NewRecord(when, slog.LevelInfo, "request", 0)
		r.AddAttrs(slog.String("method", "GET"), slog.String("path", "/"), slog.String("route", "/"),
			slog.Int("status", 200), slog.Float64("duration_ms", 0), slog.Int("bytes", 0), slog.String("request_id", "i"))
		if err := slog.NewTextHandler(&handler, nil).Handle(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		if direct.String() != handler.String() {
			t.Errorf("%v written directly:\n%s\nby the TextHandler:\n%s", when, direct.String(), handler.String())
		}
	}
}

// FuzzLinePaths: whatever path a client sends, the direct line is
// the TextHandler's.
func FuzzLinePaths(f *testing.F) {
	for _, s := range []string{"/", "/a b", "/a=b", "/\"", "/\x00", "/한", "/\xff\xfe", ""} {
		f.Add(s)
	}
	at := time.Date(2026, 11, 30, 1, 2, 3, 0, time.UTC)
	f.Fuzz(func(t *testing.T, path string) {
		var direct, handler bytes.Buffer
		if err := (&Lines{w: &direct}).Write(Line{At: at, Method: "GET", Path: path, Route: "/", ID: "i", Status: 200}); err != nil {
			t.Fatal(err)
		}
		r := slog.NewRecord(at, slog.LevelInfo, "request", 0)
		r.AddAttrs(slog.String("method", "GET"), slog.String("path", path), slog.String("route", "/"),
			slog.Int("status", 200), slog.Float64("duration_ms", 0), slog.Int("bytes", 0), slog.String("request_id", "i"))
		if err := slog.NewTextHandler(&handler, nil).Handle(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		if direct.String() != handler.String() {
			t.Fatalf("written directly:\n%q\nby the TextHandler:\n%q", direct.String(), handler.String())
		}
	})
}
