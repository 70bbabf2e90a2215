package web_test

import (
	"net/http"
	"net/url"
	"testing"

	"shop/store"
)

// A customer pauses until a day, with htmx and without: the card says
// when it is active again and the subscription keeps the day; a day that
// is not after today, more than a year ahead or not a date is refused at
// its field, with nothing written.
func TestPauseUntilADay(t *testing.T) {
	t.Parallel()
	s, b, ada, sub := subscribedShop(t, "10")
	today := s.env.Store.Today()
	htmx := []string{"HX-Request", "true"}

	for _, bad := range []struct{ name, until string }{
		{"today", store.FormatDate(today)},
		{"yesterday", store.FormatDate(today.AddDate(0, 0, -1))},
		{"more than a year ahead", store.FormatDate(today.AddDate(0, 0, store.MaxPauseDays+1))},
		{"not a date", "next spring"},
	} {
		for _, headers := range [][]string{htmx, nil} {
			p := s.act(t, b, sub, "pause", url.Values{"until": {bad.until}}, headers...)
			wantStatus(t, bad.name, p, http.StatusUnprocessableEntity)
			card := subCard(p, sub.ID)
			wantText(t, bad.name, card.Find(sel("sub-error-until")), "within a year")
			if _, open := card.Find(sel("sub-change-pause")).Attr("open"); !open {
				t.Fatalf("%s: the pause form with the error is not open", bad.name)
			}
			if v, _ := card.Find(sel("sub-until-input")).Attr("value"); v != bad.until {
				t.Fatalf("%s: the day comes back as %q", bad.name, v)
			}
		}
	}
	if now := s.current(t, ada, sub.ID); now.Version != sub.Version || now.Status != store.SubscriptionActive {
		t.Fatalf("refused pauses wrote: version %d, %s", now.Version, now.Status)
	}

	until := today.AddDate(0, 0, 40)
	p := s.act(t, b, sub, "pause", url.Values{"until": {store.FormatDate(until)}}, htmx...)
	wantStatus(t, "pause until", p, http.StatusOK)
	card := subCard(p, sub.ID)
	wantText(t, "status", card.Find(sel("sub-status")), "Paused")
	wantText(t, "active again on", card.Find(sel("sub-resumes-on")), day(until))
	wantText(t, "notice", card.Find(sel("sub-notice")), "Paused until "+day(until))
	sub = s.current(t, ada, sub.ID)
	if !sub.ResumesOn.Equal(until) || sub.Status != store.SubscriptionPaused {
		t.Fatalf("after pausing: %s until %s", sub.Status, store.FormatDate(sub.ResumesOn))
	}

	// Resumed by hand before the day, without JavaScript: the day is gone.
	wantStatus(t, "resume", s.act(t, b, sub, "resume", nil), http.StatusSeeOther)
	list := b.get("/subscriptions")
	if subCard(list, sub.ID).Find(sel("sub-resumes-on")).Length() != 0 {
		t.Fatal("a resumed subscription still says when it is active again")
	}
	if now := s.current(t, ada, sub.ID); now.Status != store.SubscriptionActive || !now.ResumesOn.IsZero() {
		t.Fatalf("after resuming: %s, resumes %s", now.Status, store.FormatDate(now.ResumesOn))
	}
}
