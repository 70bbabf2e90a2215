package jobs

import "strings"

// Schedules are cron expressions in the shop's time zone.
type Schedules struct {
	Reminders string // default "0 6 * * *"
	Payments  string // default "0 7 * * *"
	Reconcile string // default "*/5 * * * *"
	Archive   string // default "0 5 * * *": daily, so a failed run is retried the next day
	// CardRefunds, default "*/15 * * * *": the card refunds the gateway
	// did not take are tried again (each after its own backoff).
	CardRefunds string
	// TicketStock, default "*/15 * * * *": product drop tickets past their
	// redeem time, or voided, give their units back to stock.
	TicketStock string
	Seconds     bool // the expressions have a seconds field (tests tick every few seconds)
}

// withSeconds says whether expr has a seconds field: every expression when
// Seconds is set, else one of six fields (a cluster's check ticks every few
// seconds through the same settings the shop reads).
func (s Schedules) withSeconds(expr string) bool {
	return s.Seconds || len(strings.Fields(expr)) == 6
}

func (s Schedules) withDefaults() Schedules {
	if s.Reminders == "" {
		s.Reminders = "0 6 * * *"
	}
	if s.Payments == "" {
		s.Payments = "0 7 * * *"
	}
	if s.Archive == "" {
		s.Archive = "0 5 * * *"
	}
	if s.Reconcile == "" {
		s.Reconcile = "*/5 * * * *"
	}
	if s.CardRefunds == "" {
		s.CardRefunds = "*/15 * * * *"
		if s.Seconds {
			s.CardRefunds = "0 " + s.CardRefunds // the same quarter hours, with a seconds field
		}
	}
	if s.TicketStock == "" {
		s.TicketStock = "*/15 * * * *"
		if s.Seconds {
			s.TicketStock = "0 " + s.TicketStock
		}
	}
	return s
}
