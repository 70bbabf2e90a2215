package lang

import (
	"fmt"
	"strconv"
	"strings"
)

// The catalogues' messages are nearly all text with a few {{.Name}}
// values, yet go-i18n runs each through text/template on every ask, and
// a page asks for dozens: the storefront's profile had its messages at a
// tenth of the app's CPU. So each form of such a message is cut once into
// text and value names, and put together from the call's values; anything
// else (a template with more than values, a value the call does not give,
// a plural rule not known here) goes to go-i18n as before, and
// TestCompiledMessagesAreGoI18nsOwn holds the two to the same text.

// compiledMessage is a message's forms by plural category ("one", "other").
type compiledMessage map[string][]messagePart

// messagePart is text, or the value named field when field is not "".
type messagePart struct{ text, field string }

// compiled holds every simple message of each catalogue, by id.
var compiled map[Lang]map[string]compiledMessage

// compile cuts the messages of one catalogue, as its TOML reads.
func compile(raw map[string]any) map[string]compiledMessage {
	out := make(map[string]compiledMessage, len(raw))
	for id, v := range raw {
		forms := map[string]string{}
		switch v := v.(type) {
		case string:
			forms["other"] = v
		case map[string]any:
			for k, f := range v {
				s, ok := f.(string)
				if !ok || (k != "one" && k != "other") {
					forms = nil
					break
				}
				forms[k] = s
			}
		}
		m := compiledMessage{}
		for k, s := range forms {
			parts, ok := cutMessage(s)
			if !ok {
				m = nil
				break
			}
			m[k] = parts
		}
		if len(m) > 0 {
			out[id] = m
		}
	}
	return out
}

// cutMessage cuts text with {{.Name}} values into parts; false for any
// other template action.
func cutMessage(s string) ([]messagePart, bool) {
	var parts []messagePart
	for {
		open := strings.Index(s, "{{")
		if open < 0 {
			if s != "" || len(parts) == 0 {
				parts = append(parts, messagePart{text: s})
			}
			return parts, !strings.Contains(s, "}}")
		}
		end := strings.Index(s[open:], "}}")
		if end < 0 {
			return nil, false
		}
		name, ok := strings.CutPrefix(strings.TrimSpace(s[open+2:open+end]), ".")
		if !ok || !isField(name) {
			return nil, false
		}
		if open > 0 {
			parts = append(parts, messagePart{text: s[:open]})
		}
		parts = append(parts, messagePart{field: name})
		s = s[open+end+2:]
	}
}

func isField(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		letter := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// render puts the message together in language l, with count (nil for
// none) and args as name, value pairs; false when go-i18n must.
func (m compiledMessage) render(l Lang, count any, args []any) (string, bool) {
	form := "other"
	if count != nil {
		n, ok := count.(int)
		if !ok {
			return "", false
		}
		switch l {
		case English: // CLDR: one for 1, other for the rest (of integers)
			if n == 1 {
				form = "one"
			}
		case Korean, Indonesian: // CLDR: other alone
		default:
			return "", false
		}
	}
	parts, ok := m[form]
	if !ok {
		return "", false
	}
	if len(parts) == 1 && parts[0].field == "" {
		return parts[0].text, true
	}
	var b strings.Builder
	for _, p := range parts {
		if p.field == "" {
			b.WriteString(p.text)
			continue
		}
		v, ok := value(p.field, count, args)
		if !ok {
			return "", false
		}
		switch v := v.(type) {
		case string:
			b.WriteString(v)
		case int:
			b.WriteString(strconv.Itoa(v))
		case int64:
			b.WriteString(strconv.FormatInt(v, 10))
		case fmt.Stringer:
			b.WriteString(v.String())
		default: // nil, pointers and the rest: text/template's own rules
			return "", false
		}
	}
	return b.String(), true
}

// value is the call's value of field: Count is the count's, unless args
// name it too (go-i18n sets Count last).
func value(field string, count any, args []any) (any, bool) {
	if field == "Count" && count != nil {
		return count, true
	}
	for i := len(args) - 2; i >= 0; i -= 2 { // the last of a name twice, as go-i18n's map keeps
		if name, ok := args[i].(string); ok && name == field {
			return args[i+1], true
		}
	}
	return nil, false
}
