package views

import (
	"context"
	"time"

	"shop/store"
)

// AdminSubscriptionList is a page of the subscriptions in one status,
// newest first.
type AdminSubscriptionList struct {
	Status        store.SubscriptionStatus
	Subscriptions []store.Subscription
	NextURL       string
}

// AdminSubscriptionsDue is what the billing jobs have to do on one day: the
// reminders to send and the payments to take (or retry, or end), each a
// page at a time.
type AdminSubscriptionsDue struct {
	Date          string // as typed; YYYY-MM-DD once checked
	Today         string
	Errors        FieldErrors
	Reminders     []store.Subscription
	RemindersNext string
	Payments      []store.Subscription
	PaymentsNext  string
}

// adminEvery is a subscription's period in words.
func adminEvery(ctx context.Context, months int) string {
	return tn(ctx, "admin.subs.every", months)
}

// adminSubscriptionState says where a subscription stands, with its date.
func adminSubscriptionState(ctx context.Context, s store.Subscription) string {
	switch {
	case s.Ending():
		return t(ctx, "admin.subs.state.ends", "Day", adminDate(s.EndsOn))
	case s.Status == store.SubscriptionActive:
		return t(ctx, "admin.subs.state.next", "Day", adminDate(s.NextPaymentDate))
	case s.Status == store.SubscriptionPastDue:
		return t(ctx, "admin.subs.state.past_due", "Day", adminDate(s.NextPaymentDate), "Retry", adminDate(s.RetryDate))
	case s.Status == store.SubscriptionPaused && !s.ResumesOn.IsZero():
		return t(ctx, "admin.subs.state.paused_until", "Day", adminDate(s.PausedOn), "Until", adminDate(s.ResumesOn))
	case s.Status == store.SubscriptionPaused:
		return t(ctx, "admin.subs.state.paused", "Day", adminDate(s.PausedOn))
	case s.Status == store.SubscriptionCancelled:
		return t(ctx, "admin.subs.state.cancelled", "Day", adminDate(s.CancelledOn))
	}
	return ""
}

// adminDueAction is what the payment job does with a subscription that is
// due: charge it, retry it, end it, or resume it after its pause.
func adminDueAction(ctx context.Context, s store.Subscription) string {
	switch {
	case s.Ending():
		return t(ctx, "admin.subs.due.end")
	case s.Status == store.SubscriptionPaused:
		return t(ctx, "admin.subs.due.resume", "Day", adminDate(s.PaymentAfterPause()))
	case s.Status == store.SubscriptionPastDue:
		return t(ctx, "admin.subs.due.retry", "Amount", money(ctx, s.Amount()))
	}
	return t(ctx, "admin.subs.due.charge", "Amount", money(ctx, s.Amount()))
}

// adminPeriod is the period a receipt paid for.
func adminPeriod(ctx context.Context, from, to time.Time) string {
	if from.IsZero() {
		return "—"
	}
	return t(ctx, "admin.subs.period", "From", adminDate(from), "To", adminDate(to))
}

// adminReceiptPeriod is what a receipt paid for: its period, or a new
// subscriber's first days (up to the day before the first payment date),
// or a swap now's rest of the period, and what they were.
func adminReceiptPeriod(ctx context.Context, r store.Receipt) string {
	if !r.FirstDays() && r.Kind != store.ReceiptChange {
		return adminPeriod(ctx, r.PeriodStart, r.PeriodEnd)
	}
	return adminPeriod(ctx, r.PeriodStart, r.LastDay()) + " · " + receiptKindWords(ctx, r)
}

var adminSubscriptionStatusIDs = map[store.SubscriptionStatus]string{
	store.SubscriptionActive:    "admin.subs.status.active",
	store.SubscriptionPaused:    "admin.subs.status.paused",
	store.SubscriptionPastDue:   "admin.subs.status.past_due",
	store.SubscriptionCancelled: "admin.subs.status.cancelled",
}

// AdminSubscriptionStatus is store.SubscriptionStatus.Label in the page's
// language: "past due".
func AdminSubscriptionStatus(ctx context.Context, st store.SubscriptionStatus) string {
	if id, ok := adminSubscriptionStatusIDs[st]; ok {
		return t(ctx, id)
	}
	return string(st)
}

// adminStatusTitle is a status as a tab names it: "Past due".
func adminStatusTitle(ctx context.Context, st store.SubscriptionStatus) string {
	return upperFirst(AdminSubscriptionStatus(ctx, st))
}

// adminSubscriptionBadge marks a subscription's status as wordsBadge (another
// area's, English) marks its English label: past due waiting, active
// green, cancelled struck.
func adminSubscriptionBadge(ctx context.Context, st store.SubscriptionStatus) statusBadge {
	b := statusBadge{Words: adminStatusTitle(ctx, st), Tone: "strong"}
	switch st {
	case store.SubscriptionPastDue:
		b.Tone = "mark"
	case store.SubscriptionActive:
		b.Tone = "ins"
	case store.SubscriptionCancelled:
		b.Tone = "del"
	}
	return b
}
