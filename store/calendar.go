package store

// The billing calendar is package rules'; these are its refusals as the
// subscription forms show them.
var (
	ErrBadPaymentDay error = &Refusal{Kind: Invalid, Message: "subs.error.bad_day", Field: "day", Words: "the payment day must be a whole number from 1 to 31"}
	ErrBadPeriod     error = &Refusal{Kind: Invalid, Message: "subs.error.bad_period", Field: "period", Words: "the period must be 1, 2, 3 or 6 months"}
)
