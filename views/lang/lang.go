// Package lang holds the shop's words in English, Korean and Indonesian:
// one message catalogue per language (en.toml, ko.toml, id.toml, managed
// with go-i18n for plural forms), the language a request is read in, and
// money, numbers and dates written the way each language writes them.
//
// Pages, handlers and mails ask for a message by its id with the request's
// context: lang.T(ctx, "cart.title"). The context carries the language
// (web's middleware puts it there from ?lang=, the cookie or
// Accept-Language; the mail jobs from the customer's record).
package lang

import (
	"context"
	"embed"
	"fmt"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// Lang is a language the shop speaks, by its BCP 47 code.
type Lang string

const (
	English    Lang = "en"
	Korean     Lang = "ko"
	Indonesian Lang = "id"
)

// All are the shop's languages, in the order the switcher lists them.
var All = []Lang{English, Korean, Indonesian}

// Default is the language of a request that asks for none the shop speaks.
const Default = English

// Name is the language's name in itself, as the switcher shows it.
func (l Lang) Name() string {
	switch l {
	case Korean:
		return "한국어"
	case Indonesian:
		return "Bahasa Indonesia"
	}
	return "English"
}

// Parse reads a language code the shop speaks ("ko", "KO", "ko-KR").
func Parse(s string) (Lang, bool) {
	base, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "-")
	for _, l := range All {
		if string(l) == base {
			return l, true
		}
	}
	return "", false
}

// OrEnglish is the language of a code kept on a record (a customer's, an
// order's, a subscription's), English for a record from before languages
// were kept ("").
func OrEnglish(code string) Lang {
	if l, ok := Parse(code); ok {
		return l
	}
	return English
}

var matcher = language.NewMatcher([]language.Tag{language.English, language.Korean, language.Indonesian})

// FromAcceptLanguage is the shop's language closest to a browser's
// Accept-Language header; English when none is near.
func FromAcceptLanguage(header string) Lang {
	if header == "" {
		return Default
	}
	acceptLanguages.RLock()
	l, ok := acceptLanguages.matched[header]
	acceptLanguages.RUnlock()
	if ok {
		return l
	}
	l = matchAcceptLanguage(header)
	if len(header) <= acceptLanguageMaxBytes {
		acceptLanguages.Lock()
		if len(acceptLanguages.matched) >= acceptLanguagesMost {
			clear(acceptLanguages.matched)
		}
		acceptLanguages.matched[header] = l
		acceptLanguages.Unlock()
	}
	return l
}

// acceptLanguages are the headers matched so far. Browsers send few
// distinct ones, and parsing and matching one cost every page of a visit
// without a language cookie; the bounds hold it to a few hundred kB
// whatever headers a client makes up.
var acceptLanguages = struct {
	sync.RWMutex
	matched map[string]Lang
}{matched: map[string]Lang{}}

const (
	acceptLanguagesMost    = 1_024
	acceptLanguageMaxBytes = 256
)

func matchAcceptLanguage(header string) Lang {
	tags, _, err := language.ParseAcceptLanguage(header)
	if err != nil || len(tags) == 0 {
		return Default
	}
	_, i, conf := matcher.Match(tags...)
	if conf == language.No {
		return Default
	}
	return All[i]
}

type langKey struct{}

// With gives everything rendered or written with ctx the language l.
func With(ctx context.Context, l Lang) context.Context {
	return context.WithValue(ctx, langKey{}, l)
}

// From is the language of ctx; English when none was given.
func From(ctx context.Context) Lang {
	if l, ok := ctx.Value(langKey{}).(Lang); ok && l != "" {
		return l
	}
	return Default
}

//go:embed *.toml
var catalogues embed.FS

var (
	loadOnce   sync.Once
	localizers map[Lang]*i18n.Localizer
	loadErr    error
)

func load() {
	bundle := i18n.NewBundle(language.English)
	bundle.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	localizers = map[Lang]*i18n.Localizer{}
	for _, l := range All {
		if _, err := bundle.LoadMessageFileFS(catalogues, string(l)+".toml"); err != nil {
			loadErr = fmt.Errorf("message catalogue %s: %w", l, err)
			return
		}
		localizers[l] = i18n.NewLocalizer(bundle, string(l))
	}
	compiled = map[Lang]map[string]compiledMessage{}
	for _, l := range All {
		var raw map[string]any
		if _, err := toml.DecodeFS(catalogues, string(l)+".toml", &raw); err != nil {
			loadErr = fmt.Errorf("message catalogue %s: %w", l, err)
			return
		}
		compiled[l] = compile(raw)
	}
}

// Check loads the catalogues, so that a broken one stops the shop at
// start rather than on the first page.
func Check() error {
	loadOnce.Do(load)
	return loadErr
}

// Missing marks a message id the catalogue lacks, where its text should be;
// tests look for it in every page they render.
func Missing(id string) string { return "⟦" + id + "⟧" }

// T is the message id in the language of ctx. args are the message's
// values as name, value pairs: T(ctx, "cart.added", "Name", p.Name).
func T(ctx context.Context, id string, args ...any) string {
	return localize(From(ctx), id, nil, args)
}

// N is the message id in the form for count ("1 item", "3 items"); the
// message reads the count as {{.Count}}.
func N(ctx context.Context, id string, count int, args ...any) string {
	return localize(From(ctx), id, count, args)
}

// In is T for a language given outright (a mail to a customer).
func In(l Lang, id string, args ...any) string { return localize(l, id, nil, args) }

// localize is the message in l: put together from the compiled catalogue
// (compiled.go) when it can be, else by go-i18n.
func localize(l Lang, id string, count any, args []any) string {
	loadOnce.Do(load)
	if m, ok := compiled[l][id]; ok {
		if msg, ok := m.render(l, count, args); ok {
			return msg
		}
	}
	return localizeNow(l, id, count, args)
}

func localizeNow(l Lang, id string, count any, args []any) string {
	loadOnce.Do(load)
	loc := localizers[l]
	if loc == nil {
		loc = localizers[Default]
	}
	if loc == nil {
		return Missing(id)
	}
	var data map[string]any
	if len(args) > 0 || count != nil {
		data = make(map[string]any, len(args)/2+1)
		for i := 0; i+1 < len(args); i += 2 {
			data[fmt.Sprint(args[i])] = args[i+1]
		}
		if count != nil {
			data["Count"] = count
		}
	}
	msg, tag, err := loc.LocalizeWithTag(&i18n.LocalizeConfig{MessageID: id, TemplateData: data, PluralCount: count})
	if err != nil || msg == "" {
		return Missing(id)
	}
	// go-i18n falls back to English for an id Korean lacks; a page half in
	// English is a missing translation, shown as one.
	if base, _ := tag.Base(); base.String() != string(l) {
		return Missing(id)
	}
	return msg
}
