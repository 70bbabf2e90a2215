package jobs

import "time"

// RestingNow tells a test whether the delivery's ticks read nothing now:
// it waits for that instead of guessing how late gocron's first tick is.
func (d *TestPaymentEvents) RestingNow() bool { return d.resting(time.Now()) }
