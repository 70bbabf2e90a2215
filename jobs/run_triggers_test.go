package jobs

import (
	"errors"
	"log/slog"
	"testing"

	"shop/store"
)

// A refused tick is logged as what happened: this replica's own finished
// tick is no news, another replica's run is, and a failed request is an
// error.
func TestTickRefusedSaysWhoRanIt(t *testing.T) {
	for _, c := range []struct {
		name  string
		owner string
		err   error
		level slog.Level
		msg   string
	}{
		{"ran here", "here", store.ErrLeaseDone, slog.LevelDebug, "tick already ran on this replica"},
		{"ran there", "there", store.ErrLeaseDone, slog.LevelInfo, "tick already ran on another replica"},
		{"running here", "here", store.ErrLeaseHeld, slog.LevelInfo, "tick still running on this replica"},
		{"running there", "there", store.ErrLeaseHeld, slog.LevelInfo, "tick taken by another replica"},
		{"engine down", "", errors.New("connection refused"), slog.LevelError, "tick could not take its lease"},
	} {
		t.Run(c.name, func(t *testing.T) {
			level, msg := tickRefused("here", store.Lease{Owner: c.owner}, c.err)
			if level != c.level || msg != c.msg {
				t.Fatalf("%v %q, want %v %q", level, msg, c.level, c.msg)
			}
		})
	}
}
