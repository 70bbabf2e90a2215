package views

import (
	"context"
	"slices"
	"sync"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"shop/store"
	"shop/store/rules"
	"shop/views/lang"
)

// AccountPage is /account: who the customer is, their password and their
// saved addresses, each form with its own errors.
type AccountPage struct {
	Email string
	// EmailUnverified shows the reminder to confirm the address.
	EmailUnverified bool
	Name            NameForm
	Password        PasswordForm
	Addresses       []store.SavedAddress
	NewAddress      AddressForm
	CSRF            string
}

// AddressBookFull reports whether the add form gives way to a note.
func (p AccountPage) AddressBookFull() bool { return len(p.Addresses) >= store.MaxAddresses }

// NameForm changes the customer's name, as typed.
type NameForm struct {
	Name   string
	Errors FieldErrors
}

// PasswordForm changes the password; the passwords are never echoed back.
type PasswordForm struct {
	Errors FieldErrors
}

// AddressForm is a saved address being added (ID "") or edited, as typed;
// Country is an ISO 3166-1 alpha-2 code.
type AddressForm struct {
	ID        string
	Recipient string
	Street    string
	Number    string
	ZipCode   string
	City      string
	Country   string
	Default   bool
	Errors    FieldErrors
}

// AddressEditPage edits one saved address.
type AddressEditPage struct {
	Form AddressForm
}

// addressFields are the address form's fields in their order on the page.
var addressFields = []string{"recipient", "street", "number", "zip", "city", "country"}

// countryName is the name of a country code, or the code itself.
func countryName(code string) string {
	if name, ok := rules.CountryName(code); ok {
		return name
	}
	return code
}

// countryNameIn is a country's name in the page's language: the shop's
// own list in English, CLDR's names (golang.org/x/text) in the others.
func countryNameIn(ctx context.Context, code string) string {
	l := lang.From(ctx)
	if l == lang.English {
		return countryName(code)
	}
	if region, err := language.ParseRegion(code); err == nil {
		if name := display.Regions(language.Make(string(l))).Name(region); name != "" {
			return name
		}
	}
	return countryName(code)
}

var (
	countriesOnce sync.Once
	countriesBy   map[lang.Lang][]rules.Country
)

// countriesIn is the country list of the address forms in the page's
// language, in that language's alphabetical order.
func countriesIn(ctx context.Context) []rules.Country {
	countriesOnce.Do(func() {
		countriesBy = map[lang.Lang][]rules.Country{lang.English: rules.Countries}
		for _, l := range lang.All[1:] {
			ctx := lang.With(context.Background(), l)
			list := make([]rules.Country, len(rules.Countries))
			for i, c := range rules.Countries {
				list[i] = rules.Country{Code: c.Code, Name: countryNameIn(ctx, c.Code)}
			}
			coll := collate.New(language.Make(string(l)))
			slices.SortStableFunc(list, func(a, b rules.Country) int { return coll.CompareString(a.Name, b.Name) })
			countriesBy[l] = list
		}
	})
	return countriesBy[lang.From(ctx)]
}
