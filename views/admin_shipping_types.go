package views

import (
	"context"
	"strconv"
	"strings"

	"shop/store"
	"shop/store/rules"
	"shop/views/lang"
)

// AdminZoneForm is a shipping zone's form as typed: a new one (no ID) or
// one being changed.
type AdminZoneForm struct {
	ID, Version string
	Name        string
	Countries   string // codes or names, separated by commas
	Price       string
	FreeFrom    string // "": never free
	Days        string // the fewest days delivery takes
	DaysMax     string
	Currency    string
	Errors      FieldErrors
	CSRF        string
}

// AdminShipping is the zones and a zone's form.
type AdminShipping struct {
	Zones []store.ShippingZone
	Form  AdminZoneForm
}

// zoneCountries names a zone's countries.
func zoneCountries(z store.ShippingZone) string {
	names := make([]string, 0, len(z.Countries))
	for _, c := range z.Countries {
		if n, ok := rules.CountryName(c); ok {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// DeliveryDays is an estimate of delivery as people read it: "2–4 days".
func DeliveryDays(ctx context.Context, z store.ShippingZone) string {
	days := strconv.Itoa(z.DaysMin)
	if z.DaysMax > z.DaysMin {
		days += "–" + strconv.Itoa(z.DaysMax)
	}
	return lang.T(ctx, "shipping.days", "Days", days)
}

// zoneFree is a zone's free threshold as the list shows it.
func zoneFree(ctx context.Context, z store.ShippingZone) string {
	if z.FreeFrom.Amount <= 0 {
		return "—"
	}
	return lang.Money(ctx, z.FreeFrom)
}
