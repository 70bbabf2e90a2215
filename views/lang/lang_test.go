package lang

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"shop/store/rules"
)

// catalogue reads one language's file as id → forms.
func catalogue(t *testing.T, l Lang) map[string]map[string]string {
	t.Helper()
	raw := map[string]any{}
	b, err := catalogues.ReadFile(string(l) + ".toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := toml.Unmarshal(b, &raw); err != nil {
		t.Fatalf("%s.toml: %v", l, err)
	}
	out := map[string]map[string]string{}
	for id, v := range raw {
		switch v := v.(type) {
		case string:
			out[id] = map[string]string{"other": v}
		case map[string]any:
			forms := map[string]string{}
			for k, f := range v {
				s, ok := f.(string)
				if !ok {
					t.Errorf("%s.toml: %s.%s is not text", l, id, k)
				}
				forms[k] = s
			}
			out[id] = forms
		default:
			t.Errorf("%s.toml: %s is neither text nor plural forms", l, id)
		}
	}
	return out
}

func TestCataloguesLoad(t *testing.T) {
	if err := Check(); err != nil {
		t.Fatal(err)
	}
}

// Every id is in every language, with the plural forms the language has,
// and the same {{.Values}} in each.
func TestEveryLanguageHasEveryMessage(t *testing.T) {
	en := catalogue(t, English)
	if len(en) == 0 {
		t.Fatal("the English catalogue is empty")
	}
	values := regexp.MustCompile(`\{\{\s*\.(\w+)`)
	valuesOf := func(forms map[string]string) []string {
		seen := map[string]bool{}
		for _, f := range forms {
			for _, m := range values.FindAllStringSubmatch(f, -1) {
				seen[m[1]] = true
			}
		}
		var out []string
		for v := range seen {
			out = append(out, v)
		}
		sort.Strings(out)
		return out
	}
	for _, l := range All[1:] {
		other := catalogue(t, l)
		for id, forms := range en {
			tr, ok := other[id]
			if !ok {
				t.Errorf("%s.toml lacks %q (English: %q)", l, id, forms["other"])
				continue
			}
			if tr["other"] == "" {
				t.Errorf("%s.toml: %q has no text", l, id)
			}
			// Korean and Indonesian have one form; a count is {{.Count}}
			// in it when English has one and other.
			if len(tr) != 1 {
				t.Errorf("%s.toml: %q has forms %v; the language has only \"other\"", l, id, keys(tr))
			}
			if a, b := strings.Join(valuesOf(forms), ","), strings.Join(valuesOf(tr), ","); a != b {
				t.Errorf("%s.toml: %q uses values [%s], English [%s]", l, id, b, a)
			}
		}
		for id := range other {
			if _, ok := en[id]; !ok {
				t.Errorf("%s.toml has %q, which English lacks", l, id)
			}
		}
	}
	for id, forms := range en {
		if _, plural := forms["one"]; plural && forms["other"] == "" {
			t.Errorf("en.toml: %q has one but not other", id)
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Every id is used: its quoted id appears in the shop's Go or templ source
// (an id made at run time must be spelled out somewhere, in a table).
func TestEveryMessageIsUsed(t *testing.T) {
	root := filepath.Join("..", "..")
	var src strings.Builder
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", ".git", "data", "static":
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if strings.HasSuffix(name, "_templ.go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		if strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".templ") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			src.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	all := src.String()
	for id := range catalogue(t, English) {
		if !strings.Contains(all, `"`+id+`"`) {
			t.Errorf("en.toml: %q is used nowhere in the shop's code", id)
		}
	}
}

func TestMissingIdIsMarked(t *testing.T) {
	ctx := With(context.Background(), Korean)
	if got := T(ctx, "no.such.message"); got != Missing("no.such.message") {
		t.Errorf("T of an unknown id = %q", got)
	}
}

func TestFromAcceptLanguage(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   Lang
	}{
		{"", English},
		{"ko-KR,ko;q=0.9,en-US;q=0.8", Korean},
		{"id", Indonesian},
		{"in", Indonesian}, // Indonesian's old code
		{"fr-FR,fr;q=0.9", English},
		{"fr;q=0.9,ko;q=0.5", Korean},
		{"en-GB,ko;q=0.2", English},
		{"garbage;;;q=x", English},
	} {
		for range 2 { // matched, then known
			if got := FromAcceptLanguage(tc.header); got != tc.want {
				t.Errorf("FromAcceptLanguage(%q) = %s, want %s", tc.header, got, tc.want)
			}
		}
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Lang
		ok   bool
	}{{"ko", Korean, true}, {"KO-kr", Korean, true}, {"id", Indonesian, true}, {"en", English, true}, {"fr", "", false}, {"", "", false}, {"kor", "", false}} {
		got, ok := Parse(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Parse(%q) = %q, %v", tc.in, got, ok)
		}
	}
}

func TestMoney(t *testing.T) {
	for _, tc := range []struct {
		l    Lang
		m    rules.Money
		want string
	}{
		{English, rules.Money{Amount: 1290, Currency: "EUR"}, "€12.90"},
		{Korean, rules.Money{Amount: 12900, Currency: "KRW"}, "₩12,900"},
		{Indonesian, rules.Money{Amount: 1290000, Currency: "IDR"}, "Rp12.900"},
		{Indonesian, rules.Money{Amount: 1290050, Currency: "IDR"}, "Rp12.900,50"},
		{Indonesian, rules.Money{Amount: 1290, Currency: "EUR"}, "€12,90"},
		{Korean, rules.Money{Amount: 1290, Currency: "EUR"}, "€12.90"},
		{English, rules.Money{Amount: 123456789, Currency: "EUR"}, "€1,234,567.89"},
		{English, rules.Money{Amount: -250, Currency: "EUR"}, "\u2212€2.50"},
		{English, rules.Money{Amount: 5, Currency: "EUR"}, "€0.05"},
		{English, rules.Money{Amount: 0, Currency: "KRW"}, "₩0"},
		{English, rules.Money{Amount: 1250, Currency: "SEK"}, "12.50\u00a0kr"},
		{Indonesian, rules.Money{Amount: 100000000, Currency: "IDR"}, "Rp1.000.000"},
	} {
		if got := Money(With(context.Background(), tc.l), tc.m); got != tc.want {
			t.Errorf("%s %v = %q, want %q", tc.l, tc.m, got, tc.want)
		}
	}
}

func TestDates(t *testing.T) {
	at := time.Date(2026, 11, 22, 2, 31, 0, 0, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		l                               Lang
		date, datetime, month, dayMonth string
	}{
		{English, "22 Nov 2026", "22 Nov 2026, 02:31 CET", "November 2026", "22 Nov"},
		{Korean, "2026년 11월 22일", "2026년 11월 22일 02:31 CET", "2026년 11월", "11월 22일"},
		{Indonesian, "22 Nov 2026", "22 Nov 2026, 02.31 CET", "November 2026", "22 Nov"},
	} {
		ctx := With(context.Background(), tc.l)
		if got := Date(ctx, at); got != tc.date {
			t.Errorf("%s Date = %q, want %q", tc.l, got, tc.date)
		}
		if got := DateTime(ctx, at); got != tc.datetime {
			t.Errorf("%s DateTime = %q, want %q", tc.l, got, tc.datetime)
		}
		if got := Month(ctx, at); got != tc.month {
			t.Errorf("%s Month = %q, want %q", tc.l, got, tc.month)
		}
		if got := DayMonth(ctx, at); got != tc.dayMonth {
			t.Errorf("%s DayMonth = %q, want %q", tc.l, got, tc.dayMonth)
		}
	}
	if got := Date(context.Background(), time.Time{}); got != "" {
		t.Errorf("Date of no day = %q", got)
	}
	day := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	for _, tc := range []struct {
		l        Lang
		from, to string
		want     string
	}{
		{English, "2026-11-28", "2026-11-30", "28–30 Nov 2026"},
		{English, "2026-11-28", "2026-12-02", "28 Nov – 2 Dec 2026"},
		{English, "2026-12-28", "2027-01-03", "28 Dec 2026 – 3 Jan 2027"},
		{English, "2026-11-30", "2026-11-30", "30 Nov 2026"},
		{Korean, "2026-11-28", "2026-11-30", "2026년 11월 28일–30일"},
		{Korean, "2026-11-28", "2026-12-02", "2026년 11월 28일 – 12월 2일"},
		{Korean, "2026-12-28", "2027-01-03", "2026년 12월 28일 – 2027년 1월 3일"},
		{Indonesian, "2026-05-28", "2026-05-30", "28–30 Mei 2026"},
		{Indonesian, "2026-07-28", "2026-08-02", "28 Jul – 2 Agu 2026"},
	} {
		if got := DateRange(With(context.Background(), tc.l), day(tc.from), day(tc.to)); got != tc.want {
			t.Errorf("%s DateRange(%s, %s) = %q, want %q", tc.l, tc.from, tc.to, got, tc.want)
		}
	}
	may := time.Date(2026, 5, 3, 0, 0, 0, 0, time.UTC)
	if got := Date(With(context.Background(), Indonesian), may); got != "3 Mei 2026" {
		t.Errorf("Indonesian May = %q", got)
	}
}
