package views

import "shop/store"

// docAddressLines is a postal address as a document prints it: the street
// and number, the postcode and city, the county, the country.
func docAddressLines(a store.Address) []string {
	street := a.Street
	if a.Number != "" {
		street += " " + a.Number
	}
	out := []string{street, a.ZipCode + " " + a.City}
	if a.County != "" {
		out = append(out, a.County)
	}
	if a.Country != "" {
		out = append(out, a.Country)
	}
	return out
}
