package store

// Refusal is the store's (or the payment provider's) no to something a
// person asked: it carries the catalogue's message id that says why, so
// no handler needs its own switch to say it, and what kind of no it is, so
// the one error mapper (web/errors.go) picks the status. The HTTP status
// itself stays out of the store. Refusals are made once, as sentinels
// (ErrBadPeriod); errors.Is compares them as before, and fmt.Errorf's %w
// keeps them findable with errors.As.
type Refusal struct {
	Kind RefusalKind
	// Message is the id of the sentence in views/lang ("subs.error.bad_day").
	Message string
	// Field is the form field the refusal is about ("expiry"), "" for the
	// whole request.
	Field string
	// Words are the English words, for logs and for callers that only
	// print the error.
	Words string
}

// RefusalKind says what sort of no a Refusal is.
type RefusalKind int

const (
	// Invalid: what was asked is not well formed (a payment day of 40).
	Invalid RefusalKind = iota + 1
	// Conflict: well formed, but the thing's state forbids it now (pausing
	// a paused subscription).
	Conflict
)

// Refuse is a Refusal of kind, said by the message id, in English words.
func Refuse(kind RefusalKind, message, words string) *Refusal {
	return &Refusal{Kind: kind, Message: message, Words: words}
}

func (r *Refusal) Error() string { return r.Words }
