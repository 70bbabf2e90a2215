package store

// The billing calendar is package rules'; these are its refusals as the
// subscription forms show them.
var (
	ErrBadPaymentDay error = Refuse(Invalid, "subs.error.bad_day", "the payment day must be a whole number from 1 to 31")
	ErrBadPeriod     error = Refuse(Invalid, "subs.error.bad_period", "the period must be 1, 2, 3 or 6 months")
)
