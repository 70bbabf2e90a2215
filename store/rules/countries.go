package rules

import "strings"

// Country is a country a parcel can be addressed to: its ISO 3166-1
// alpha-2 code (what is stored) and its English short name (what is shown).
type Country struct {
	Code string
	Name string
}

// Countries are the ISO 3166-1 countries, by name, as the address forms
// list them. Taken from Debian's iso-codes (iso_3166-1.json; its common
// name where it has one, "Bolivia" rather than "Bolivia, Plurinational
// State of"); update it by hand when the standard changes.
var Countries = []Country{
	{"AF", "Afghanistan"},
	{"AX", "Åland Islands"},
	{"AL", "Albania"},
	{"DZ", "Algeria"},
	{"AS", "American Samoa"},
	{"AD", "Andorra"},
	{"AO", "Angola"},
	{"AI", "Anguilla"},
	{"AQ", "Antarctica"},
	{"AG", "Antigua and Barbuda"},
	{"AR", "Argentina"},
	{"AM", "Armenia"},
	{"AW", "Aruba"},
	{"AU", "Australia"},
	{"AT", "Austria"},
	{"AZ", "Azerbaijan"},
	{"BS", "Bahamas"},
	{"BH", "Bahrain"},
	{"BD", "Bangladesh"},
	{"BB", "Barbados"},
	{"BY", "Belarus"},
	{"BE", "Belgium"},
	{"BZ", "Belize"},
	{"BJ", "Benin"},
	{"BM", "Bermuda"},
	{"BT", "Bhutan"},
	{"BO", "Bolivia"},
	{"BQ", "Bonaire, Sint Eustatius and Saba"},
	{"BA", "Bosnia and Herzegovina"},
	{"BW", "Botswana"},
	{"BV", "Bouvet Island"},
	{"BR", "Brazil"},
	{"IO", "British Indian Ocean Territory"},
	{"BN", "Brunei Darussalam"},
	{"BG", "Bulgaria"},
	{"BF", "Burkina Faso"},
	{"BI", "Burundi"},
	{"CV", "Cabo Verde"},
	{"KH", "Cambodia"},
	{"CM", "Cameroon"},
	{"CA", "Canada"},
	{"KY", "Cayman Islands"},
	{"CF", "Central African Republic"},
	{"TD", "Chad"},
	{"CL", "Chile"},
	{"CN", "China"},
	{"CX", "Christmas Island"},
	{"CC", "Cocos (Keeling) Islands"},
	{"CO", "Colombia"},
	{"KM", "Comoros"},
	{"CG", "Congo"},
	{"CD", "Congo, The Democratic Republic of the"},
	{"CK", "Cook Islands"},
	{"CR", "Costa Rica"},
	{"CI", "Côte d'Ivoire"},
	{"HR", "Croatia"},
	{"CU", "Cuba"},
	{"CW", "Curaçao"},
	{"CY", "Cyprus"},
	{"CZ", "Czechia"},
	{"DK", "Denmark"},
	{"DJ", "Djibouti"},
	{"DM", "Dominica"},
	{"DO", "Dominican Republic"},
	{"EC", "Ecuador"},
	{"EG", "Egypt"},
	{"SV", "El Salvador"},
	{"GQ", "Equatorial Guinea"},
	{"ER", "Eritrea"},
	{"EE", "Estonia"},
	{"SZ", "Eswatini"},
	{"ET", "Ethiopia"},
	{"FK", "Falkland Islands (Malvinas)"},
	{"FO", "Faroe Islands"},
	{"FJ", "Fiji"},
	{"FI", "Finland"},
	{"FR", "France"},
	{"GF", "French Guiana"},
	{"PF", "French Polynesia"},
	{"TF", "French Southern Territories"},
	{"GA", "Gabon"},
	{"GM", "Gambia"},
	{"GE", "Georgia"},
	{"DE", "Germany"},
	{"GH", "Ghana"},
	{"GI", "Gibraltar"},
	{"GR", "Greece"},
	{"GL", "Greenland"},
	{"GD", "Grenada"},
	{"GP", "Guadeloupe"},
	{"GU", "Guam"},
	{"GT", "Guatemala"},
	{"GG", "Guernsey"},
	{"GN", "Guinea"},
	{"GW", "Guinea-Bissau"},
	{"GY", "Guyana"},
	{"HT", "Haiti"},
	{"HM", "Heard Island and McDonald Islands"},
	{"VA", "Holy See (Vatican City State)"},
	{"HN", "Honduras"},
	{"HK", "Hong Kong"},
	{"HU", "Hungary"},
	{"IS", "Iceland"},
	{"IN", "India"},
	{"ID", "Indonesia"},
	{"IR", "Iran"},
	{"IQ", "Iraq"},
	{"IE", "Ireland"},
	{"IM", "Isle of Man"},
	{"IL", "Israel"},
	{"IT", "Italy"},
	{"JM", "Jamaica"},
	{"JP", "Japan"},
	{"JE", "Jersey"},
	{"JO", "Jordan"},
	{"KZ", "Kazakhstan"},
	{"KE", "Kenya"},
	{"KI", "Kiribati"},
	{"KW", "Kuwait"},
	{"KG", "Kyrgyzstan"},
	{"LA", "Laos"},
	{"LV", "Latvia"},
	{"LB", "Lebanon"},
	{"LS", "Lesotho"},
	{"LR", "Liberia"},
	{"LY", "Libya"},
	{"LI", "Liechtenstein"},
	{"LT", "Lithuania"},
	{"LU", "Luxembourg"},
	{"MO", "Macao"},
	{"MG", "Madagascar"},
	{"MW", "Malawi"},
	{"MY", "Malaysia"},
	{"MV", "Maldives"},
	{"ML", "Mali"},
	{"MT", "Malta"},
	{"MH", "Marshall Islands"},
	{"MQ", "Martinique"},
	{"MR", "Mauritania"},
	{"MU", "Mauritius"},
	{"YT", "Mayotte"},
	{"MX", "Mexico"},
	{"FM", "Micronesia, Federated States of"},
	{"MD", "Moldova"},
	{"MC", "Monaco"},
	{"MN", "Mongolia"},
	{"ME", "Montenegro"},
	{"MS", "Montserrat"},
	{"MA", "Morocco"},
	{"MZ", "Mozambique"},
	{"MM", "Myanmar"},
	{"NA", "Namibia"},
	{"NR", "Nauru"},
	{"NP", "Nepal"},
	{"NL", "Netherlands"},
	{"NC", "New Caledonia"},
	{"NZ", "New Zealand"},
	{"NI", "Nicaragua"},
	{"NE", "Niger"},
	{"NG", "Nigeria"},
	{"NU", "Niue"},
	{"NF", "Norfolk Island"},
	{"KP", "North Korea"},
	{"MK", "North Macedonia"},
	{"MP", "Northern Mariana Islands"},
	{"NO", "Norway"},
	{"OM", "Oman"},
	{"PK", "Pakistan"},
	{"PW", "Palau"},
	{"PS", "Palestine, State of"},
	{"PA", "Panama"},
	{"PG", "Papua New Guinea"},
	{"PY", "Paraguay"},
	{"PE", "Peru"},
	{"PH", "Philippines"},
	{"PN", "Pitcairn"},
	{"PL", "Poland"},
	{"PT", "Portugal"},
	{"PR", "Puerto Rico"},
	{"QA", "Qatar"},
	{"RE", "Réunion"},
	{"RO", "Romania"},
	{"RU", "Russian Federation"},
	{"RW", "Rwanda"},
	{"BL", "Saint Barthélemy"},
	{"SH", "Saint Helena, Ascension and Tristan da Cunha"},
	{"KN", "Saint Kitts and Nevis"},
	{"LC", "Saint Lucia"},
	{"MF", "Saint Martin (French part)"},
	{"PM", "Saint Pierre and Miquelon"},
	{"VC", "Saint Vincent and the Grenadines"},
	{"WS", "Samoa"},
	{"SM", "San Marino"},
	{"ST", "Sao Tome and Principe"},
	{"SA", "Saudi Arabia"},
	{"SN", "Senegal"},
	{"RS", "Serbia"},
	{"SC", "Seychelles"},
	{"SL", "Sierra Leone"},
	{"SG", "Singapore"},
	{"SX", "Sint Maarten (Dutch part)"},
	{"SK", "Slovakia"},
	{"SI", "Slovenia"},
	{"SB", "Solomon Islands"},
	{"SO", "Somalia"},
	{"ZA", "South Africa"},
	{"GS", "South Georgia and the South Sandwich Islands"},
	{"KR", "South Korea"},
	{"SS", "South Sudan"},
	{"ES", "Spain"},
	{"LK", "Sri Lanka"},
	{"SD", "Sudan"},
	{"SR", "Suriname"},
	{"SJ", "Svalbard and Jan Mayen"},
	{"SE", "Sweden"},
	{"CH", "Switzerland"},
	{"SY", "Syria"},
	{"TW", "Taiwan"},
	{"TJ", "Tajikistan"},
	{"TZ", "Tanzania"},
	{"TH", "Thailand"},
	{"TL", "Timor-Leste"},
	{"TG", "Togo"},
	{"TK", "Tokelau"},
	{"TO", "Tonga"},
	{"TT", "Trinidad and Tobago"},
	{"TN", "Tunisia"},
	{"TR", "Türkiye"},
	{"TM", "Turkmenistan"},
	{"TC", "Turks and Caicos Islands"},
	{"TV", "Tuvalu"},
	{"UG", "Uganda"},
	{"UA", "Ukraine"},
	{"AE", "United Arab Emirates"},
	{"GB", "United Kingdom"},
	{"US", "United States"},
	{"UM", "United States Minor Outlying Islands"},
	{"UY", "Uruguay"},
	{"UZ", "Uzbekistan"},
	{"VU", "Vanuatu"},
	{"VE", "Venezuela"},
	{"VN", "Vietnam"},
	{"VG", "Virgin Islands, British"},
	{"VI", "Virgin Islands, U.S."},
	{"WF", "Wallis and Futuna"},
	{"EH", "Western Sahara"},
	{"YE", "Yemen"},
	{"ZM", "Zambia"},
	{"ZW", "Zimbabwe"},
}

var countryByCode = func() map[string]string {
	m := make(map[string]string, len(Countries))
	for _, c := range Countries {
		m[c.Code] = c.Name
	}
	return m
}()

// CountryName is the name of the country with the ISO 3166-1 alpha-2 code
// (either case); false for a code that is none.
func CountryName(code string) (string, bool) {
	name, ok := countryByCode[strings.ToUpper(code)]
	return name, ok
}

// countryByName is each country's code by its name as Countries spells
// it: how addresses from before the list name their country ("Sweden"),
// looked up on every signed-in product view (the subscribe form's
// delivery), where a scan of the list with EqualFold cost 3 % of the view.
var countryByName = func() map[string]string {
	m := make(map[string]string, len(Countries))
	for _, c := range Countries {
		m[c.Name] = c.Code
	}
	return m
}()

// CountryCode is the code of the country named name (as Countries spells
// it, either case), or of code itself when it is one: what an address
// typed before countries were chosen from a list becomes. "" if neither.
func CountryCode(nameOrCode string) string {
	s := strings.TrimSpace(nameOrCode)
	if code, ok := countryByName[s]; ok {
		return code
	}
	if _, ok := CountryName(s); ok {
		return strings.ToUpper(s)
	}
	for _, c := range Countries {
		if strings.EqualFold(c.Name, s) {
			return c.Code
		}
	}
	return ""
}
