package store

import "errors"

// Refusal is the store's (or the payment provider's) no to something a
// person asked: it carries the catalogue's message id that says why, so
// no handler needs its own switch to say it, and what kind of no it is, so
// the one error mapper (web/errors.go) picks the status. The HTTP status
// itself stays out of the store. Refusals are made once, as sentinels
// (ErrBadPeriod); errors.Is compares them as before, and fmt.Errorf's %w
// keeps them findable with errors.As. An error type that carries values
// (a drop's field and limit) says itself as a Refusal by being a Refuser.
type Refusal struct {
	Kind RefusalKind
	// Message is the id of the sentence in views/lang ("subs.error.bad_day").
	Message string
	// Args are the sentence's values as name, value pairs ("Max", 1000).
	// A value said differently in each language is given as what can say
	// it (a Money, a LocalName); the handlers' mapper says it.
	Args []any
	// Field is the form field the refusal is about ("expiry"), "" for the
	// whole request.
	Field string
	// Title is the id of the heading over a form the refusal brings back
	// when nothing was typed wrong (the bank's no: "Your card was
	// declined"), "" for none.
	Title string
	// Words are the English words, for logs and for callers that only
	// print the error.
	Words string
	// Err is the error refused on, if any (ErrNotFound for a code no one
	// has): errors.Is finds it through the refusal.
	Err error
}

// RefusalKind says what sort of no a Refusal is.
type RefusalKind int

const (
	// Invalid: what was asked is not well formed (a payment day of 40).
	Invalid RefusalKind = iota + 1
	// Conflict: well formed, but the thing's state forbids it now (pausing
	// a paused subscription).
	Conflict
	// Broken: not a request the shop's own pages send (a form's hidden
	// key altered or cut short). The error page says it; a form never
	// shows it at a field, as there is nothing there to correct.
	Broken
)

// Refuse is a Refusal of kind, said by the message id, in English words.
func Refuse(kind RefusalKind, message, words string) *Refusal {
	return &Refusal{Kind: kind, Message: message, Words: words}
}

// Refuser is an error that says itself as a refusal: a *Refusal, or an
// error type of its own that carries values (a DropError). Refusal is nil
// when this one error is no refusal after all.
type Refuser interface {
	error
	Refusal() *Refusal
}

func (r *Refusal) Error() string { return r.Words }

// Unwrap is the error refused on, if any.
func (r *Refusal) Unwrap() error { return r.Err }

// Refusal is r itself: every Refusal is a Refuser.
func (r *Refusal) Refusal() *Refusal { return r }

// RefusalOf is the refusal err carries, if any: the first Refuser on its
// chain that says one.
func RefusalOf(err error) (*Refusal, bool) {
	for err != nil {
		var r Refuser
		if !errors.As(err, &r) {
			return nil, false
		}
		if got := r.Refusal(); got != nil {
			return got, true
		}
		err = errors.Unwrap(r)
	}
	return nil, false
}
