package store

import (
	"testing"
	"time"

	"shop/store/rules"
)

func d(s string) time.Time {
	t, err := rules.ParseDate(s)
	if err != nil {
		panic(s)
	}
	return t
}

func active(created, next string, day, period int) Subscription {
	return Subscription{ID: "s1", Status: SubscriptionActive, PaymentDay: day, PeriodMonths: period,
		MonthlyPrice: Money{Amount: 500, Currency: "EUR"}, NextPaymentDate: d(next), NextReminderDate: d(next).AddDate(0, 0, -7),
		CreatedAt: d(created), Card: Card{Token: "tok_a", Brand: "Visa", Last4: "4242"}}
}

func TestSubscriptionChanges(t *testing.T) {
	type step struct {
		today  string
		change SubscriptionChange
		err    error // want this error (errors.Is), nil for success
		next   string
		status SubscriptionStatus
	}
	for _, tc := range []struct {
		name  string
		start Subscription
		steps []step
	}{
		{"the AWS sample: created 18 May with day 28", active("2023-05-18", "2023-06-28", 28, 1), nil},
		{"change the day later: the paid period is kept, the day applies after", active("2026-01-10", "2026-02-10", 10, 1), []step{
			{"2026-01-20", ChangeDay(25), nil, "2026-02-10", SubscriptionActive},
		}},
		{"change the day earlier", active("2026-01-20", "2026-02-20", 20, 1), []step{
			{"2026-01-25", ChangeDay(3), nil, "2026-02-20", SubscriptionActive},
		}},
		{"the same day again", active("2026-01-20", "2026-02-20", 20, 1), []step{
			{"2026-01-25", ChangeDay(20), ErrSameValue, "2026-02-20", SubscriptionActive},
		}},
		{"day 0 and 32 are refused", active("2026-01-20", "2026-02-20", 20, 1), []step{
			{"2026-01-25", ChangeDay(0), ErrBadPaymentDay, "2026-02-20", SubscriptionActive},
			{"2026-01-25", ChangeDay(32), ErrBadPaymentDay, "2026-02-20", SubscriptionActive},
		}},
		{"period 4 is refused, 3 is fine", active("2026-01-20", "2026-02-20", 20, 1), []step{
			{"2026-01-25", ChangePeriod(4), ErrBadPeriod, "2026-02-20", SubscriptionActive},
			{"2026-01-25", ChangePeriod(3), nil, "2026-02-20", SubscriptionActive},
		}},
		{"skip moves the next payment a period on", active("2026-01-31", "2026-02-28", 31, 1), []step{
			{"2026-02-01", Skip(), nil, "2026-03-31", SubscriptionActive},
		}},
		{"pause and resume across a month end: next payment day after today", active("2026-01-15", "2026-02-15", 15, 1), []step{
			{"2026-01-20", Pause(), nil, "2026-02-15", SubscriptionPaused},
			{"2026-04-30", Resume(), nil, "2026-05-15", SubscriptionActive},
		}},
		{"resume before the paid period ends keeps it whole", active("2026-01-15", "2026-02-15", 15, 1), []step{
			{"2026-01-20", Pause(), nil, "2026-02-15", SubscriptionPaused},
			{"2026-01-25", Resume(), nil, "2026-02-15", SubscriptionActive},
		}},
		{"resume with day 31 at the end of February", active("2026-01-31", "2026-02-28", 31, 1), []step{
			{"2026-02-01", Pause(), nil, "2026-02-28", SubscriptionPaused},
			{"2026-03-30", Resume(), nil, "2026-03-31", SubscriptionActive},
		}},
		{"paused until a day: resumed then, paying on its first payment day on or after it", active("2026-01-15", "2026-02-15", 15, 1), []step{
			{"2026-01-20", PauseUntil(d("2026-04-10")), nil, "2026-02-15", SubscriptionPaused},
			{"2026-04-09", ResumeAsPlanned(), errSubscriptionNotPaused, "2026-02-15", SubscriptionPaused},
			{"2026-04-10", ResumeAsPlanned(), nil, "2026-04-15", SubscriptionActive},
		}},
		{"paused until a payment day: that day pays", active("2026-01-15", "2026-02-15", 15, 1), []step{
			{"2026-01-20", PauseUntil(d("2026-05-15")), nil, "2026-02-15", SubscriptionPaused},
			{"2026-05-16", ResumeAsPlanned(), nil, "2026-05-15", SubscriptionActive},
		}},
		{"paused until day 31's month end", active("2026-01-31", "2026-02-28", 31, 1), []step{
			{"2026-02-01", PauseUntil(d("2026-04-30")), nil, "2026-02-28", SubscriptionPaused},
			{"2026-04-30", ResumeAsPlanned(), nil, "2026-04-30", SubscriptionActive},
		}},
		{"a pause ending inside the paid period keeps the period whole", active("2026-01-15", "2026-02-15", 15, 1), []step{
			{"2026-01-20", PauseUntil(d("2026-01-25")), nil, "2026-02-15", SubscriptionPaused},
			{"2026-01-25", ResumeAsPlanned(), nil, "2026-02-15", SubscriptionActive},
		}},
		{"a pause's end: after today, within a year, movable, droppable", active("2026-01-15", "2026-02-15", 15, 1), []step{
			{"2026-01-20", PauseUntil(d("2026-01-20")), errBadResumeDate, "2026-02-15", SubscriptionActive},
			{"2026-01-20", PauseUntil(d("2027-01-22")), errBadResumeDate, "2026-02-15", SubscriptionActive},
			{"2026-01-20", PauseUntil(d("2026-03-01")), nil, "2026-02-15", SubscriptionPaused},
			{"2026-01-21", PauseUntil(d("2026-03-01")), ErrSameValue, "2026-02-15", SubscriptionPaused},
			{"2026-01-21", PauseUntil(d("2026-06-01")), nil, "2026-02-15", SubscriptionPaused},
			{"2026-01-22", Pause(), nil, "2026-02-15", SubscriptionPaused},
			{"2026-06-01", ResumeAsPlanned(), errSubscriptionNotPaused, "2026-02-15", SubscriptionPaused},
			{"2026-06-02", Pause(), ErrSameValue, "2026-02-15", SubscriptionPaused},
		}},
		{"the customer resumes before the day", active("2026-01-15", "2026-02-15", 15, 1), []step{
			{"2026-01-20", PauseUntil(d("2026-06-01")), nil, "2026-02-15", SubscriptionPaused},
			{"2026-03-02", Resume(), nil, "2026-03-15", SubscriptionActive},
			{"2026-06-01", ResumeAsPlanned(), errSubscriptionNotPaused, "2026-03-15", SubscriptionActive},
		}},
		{"resume twice is refused", active("2026-01-15", "2026-02-15", 15, 1), []step{
			{"2026-01-20", Resume(), errSubscriptionNotPaused, "2026-02-15", SubscriptionActive},
		}},
		{"cancel at period end, then keep", active("2026-01-15", "2026-02-15", 15, 1), []step{
			{"2026-01-20", CancelAtPeriodEnd(), nil, "2026-02-15", SubscriptionActive},
			{"2026-01-21", Pause(), ErrSubscriptionEnding, "2026-02-15", SubscriptionActive},
			{"2026-01-22", KeepOn(), nil, "2026-02-15", SubscriptionActive},
		}},
		{"cancelled is final", active("2026-01-15", "2026-02-15", 15, 1), []step{
			{"2026-01-20", CancelNow(), nil, "", SubscriptionCancelled},
			{"2026-01-21", Resume(), ErrSubscriptionCancelled, "", SubscriptionCancelled},
			{"2026-01-21", ChangeDay(3), ErrSubscriptionCancelled, "", SubscriptionCancelled},
			{"2026-01-21", CancelNow(), ErrSubscriptionCancelled, "", SubscriptionCancelled},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.start
			for i, st := range tc.steps {
				next, err := st.change(s, d(st.today), 7)
				if (err == nil) != (st.err == nil) || (st.err != nil && err.Error() != st.err.Error()) {
					t.Fatalf("step %d: err %v, want %v", i, err, st.err)
				}
				if err == nil {
					s = next
				}
				if got := FormatDate(s.NextPaymentDate); got != st.next {
					t.Fatalf("step %d: next payment %s, want %s", i, got, st.next)
				}
				if s.Status != st.status {
					t.Fatalf("step %d: status %s, want %s", i, s.Status, st.status)
				}
				if s.Status == SubscriptionActive && !s.NextReminderDate.IsZero() && s.NextReminderDate.After(s.NextPaymentDate) {
					t.Fatalf("step %d: reminder %s after payment %s", i, FormatDate(s.NextReminderDate), FormatDate(s.NextPaymentDate))
				}
			}
		})
	}
	// The sample's dates come from the calendar.
	if got := FormatDate(rules.NextBillingDate(d("2023-05-18"), 1, 28)); got != "2023-06-28" {
		t.Fatalf("next payment after 18 May with day 28: %s", got)
	}
	if got := FormatDate(rules.ReminderDate(d("2023-06-28"), d("2023-05-18"), 7)); got != "2023-06-21" {
		t.Fatalf("its reminder: %s", got)
	}
}
