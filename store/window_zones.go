package store

import (
	"context"
	"slices"
)

// ShippingZones are the shop's zones, at most a minute old: what the
// subscribe form's preview prices delivery at. A zone staff save or remove
// here drops them at once; subscribing and checkout read the table's.
func (w *Window) ShippingZones(ctx context.Context) ([]ShippingZone, error) {
	zones, err := windowGet(ctx, w, "shipping-zones", windowListTTL, &w.zones, w.s.ShippingZones)
	return slices.Clone(zones), err
}

// forgetZones drops the window's zones: staff changed one here.
func (s *Store) forgetZones() {
	w := s.Window()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.zones++
	w.changes.Add(1)
}
