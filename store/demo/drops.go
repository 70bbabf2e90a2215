package demo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"shop/store"
)

// dropsMarker marks a table whose demo drops are loaded.
const dropsMarker = "demo-drops-v1"

// demoDrop is one demo drop, its times relative to when it is loaded.
type demoDrop struct {
	title    string
	quantity int
	opensIn  time.Duration
	lasts    time.Duration
}

// The demo shop's drops: one open now for the next 30 days, one opening in
// two days.
var demoDrops = []demoDrop{
	{title: "Midsummer Roast: 100 numbered bags", quantity: 100, opensIn: 0, lasts: 30 * 24 * time.Hour},
	{title: "Gothenburg Dark Reserve: 50 tins", quantity: 50, opensIn: 48 * time.Hour, lasts: 14 * 24 * time.Hour},
}

// loadDrops writes the demo drops once per table, skipping any whose title
// is already among the newest drops (a load cut short before its marker).
// They are the customers', made by the demo's staff member.
func loadDrops(ctx context.Context, st *store.Store) error {
	cred, err := st.CredentialsByEmail(ctx, StaffEmail)
	if err != nil {
		return fmt.Errorf("demo drops: %w", err)
	}
	have := map[string]bool{}
	existing, err := st.AllDrops(ctx, 100, "")
	if err != nil {
		return err
	}
	for _, d := range existing.Items {
		have[d.Title] = true
	}
	now := st.Now()
	for _, dd := range demoDrops {
		if have[dd.title] {
			continue
		}
		opens := now.Add(dd.opensIn)
		if _, err := st.CreateDrop(ctx, store.NewDrop{
			Title: dd.title, Quantity: dd.quantity, Opens: opens, Closes: opens.Add(dd.lasts),
			Audience: store.DropAudienceShop, CreatedBy: store.DropByStaff(cred.CustomerID), Published: true,
		}); err != nil {
			return err
		}
	}
	if err := st.Mark(ctx, dropsMarker); err != nil && !errors.Is(err, store.ErrConflict) {
		return err
	}
	return nil
}
