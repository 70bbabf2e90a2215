package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// strictShape is a body of the kinds the API reads, and deeper: a nested
// object, a list of objects and a map.
type strictShape struct {
	Title    string `json:"title"`
	Quantity int    `json:"quantity"`
	Nested   *struct {
		SKU string `json:"sku"`
	} `json:"nested,omitempty"`
	Lines []struct {
		SKU string `json:"sku"`
	} `json:"lines,omitempty"`
	Extra  map[string]int `json:"extra,omitempty"`
	Hidden string         `json:"-"`
}

func TestDecodeStrict(t *testing.T) {
	t.Parallel()
	deep := `{"extra": {"a": ` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}}`
	for _, tc := range []struct {
		name, body string
		field      string // the fault's field; "-" for an error that is no jsonFault
		want       string // in the message
	}{
		{"duplicate key", `{"quantity": 1, "quantity": 999999}`, "quantity", "twice"},
		{"duplicate key, escaped", `{"quantity": 1, "quan\u0074ity": 2}`, "quantity", "twice"},
		{"duplicate title", `{"title": "a", "quantity": 1, "title": "b"}`, "title", "twice"},
		{"wrong case", `{"Quantity": 1}`, "Quantity", `this one is "quantity"`},
		{"wrong case of a field that is there too", `{"quantity": 1, "QUANTITY": 2}`, "QUANTITY", "case-sensitive"},
		{"unknown field", `{"title": "x", "owner": "shop"}`, "owner", `unknown field "owner"`},
		{"a field json leaves out", `{"Hidden": "x"}`, "Hidden", "unknown field"},
		{"nested duplicate", `{"nested": {"sku": "a", "sku": "b"}}`, "nested.sku", "twice"},
		{"nested wrong case", `{"nested": {"SKU": "a"}}`, "nested.SKU", `this one is "nested.sku"`},
		{"in a list", `{"lines": [{"sku": "a"}, {"sku": "a", "sku": "b"}]}`, "lines[1].sku", "twice"},
		{"in a list, unknown", `{"lines": [{"sku": "a", "qty": 1}]}`, "lines[0].qty", "unknown"},
		{"a map's key twice", `{"extra": {"a": 1, "a": 2}}`, "extra.a", "twice"},
		{"nested too deep", deep, "extra.a" + strings.Repeat("[0]", 30), "deeper"},
		{"an array", `[]`, "", "one JSON object"},
		{"null", `null`, "", "one JSON object"},
		{"a string", `"x"`, "", "one JSON object"},
		{"two objects", `{} {}`, "", "nothing after it"},
		{"an object and junk", `{"title": "x"} x`, "", "nothing after it"},
		{"malformed", `{"title": `, "-", ""},
		{"cut short", `{"title": "x"`, "-", ""},
		{"a bad type", `{"quantity": "5"}`, "-", ""},
		{"empty", ``, "-", ""},
	} {
		var into strictShape
		err := decodeStrict([]byte(tc.body), &into)
		var fault *jsonFault
		switch {
		case err == nil:
			t.Errorf("%s: %s accepted as %+v", tc.name, tc.body, into)
		case tc.field == "-" && errors.As(err, &fault):
			t.Errorf("%s: a fault %+v, want encoding/json's error", tc.name, fault)
		case tc.field == "-":
		case !errors.As(err, &fault):
			t.Errorf("%s: %v, want a fault at %q", tc.name, err, tc.field)
		case fault.Field != tc.field || !strings.Contains(fault.Msg, tc.want):
			t.Errorf("%s: fault at %q: %q; want at %q saying %q", tc.name, fault.Field, fault.Msg, tc.field, tc.want)
		}
	}
	if err := decodeStrict(nil, &strictShape{}); !errors.Is(err, io.EOF) {
		t.Errorf("no body: %v", err)
	}
	for _, cut := range []string{`{"title": `, `{"title"`, `{`, `{"lines": [`} {
		if err := decodeStrict([]byte(cut), &strictShape{}); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: %v, want the body cut short", cut, err)
		}
	}

	var got strictShape
	body := `{"title": "Launch", "quantity": 5, "nested": {"sku": "a"}, "lines": [{"sku": "b"}, {"sku": "c"}], "extra": {"a": 1, "b": 2}}`
	if err := decodeStrict([]byte(body), &got); err != nil || got.Title != "Launch" || got.Quantity != 5 || got.Nested.SKU != "a" ||
		len(got.Lines) != 2 || got.Extra["b"] != 2 {
		t.Fatalf("a good body: %+v, %v", got, err)
	}
	// Keys may repeat in different objects, and a map's keys are free.
	if err := decodeStrict([]byte(`{"lines": [{"sku": "a"}, {"sku": "a"}], "extra": {"Title": 1, "title": 2}}`), &got); err != nil {
		t.Fatalf("equal keys in different objects: %v", err)
	}
	var anything any
	if err := decodeStrict([]byte(`{"a": {"b": 1, "c": [1, {"d": 2}]}}`), &anything); err != nil {
		t.Fatalf("into any: %v", err)
	}
	if err := decodeStrict([]byte(`{"a": {"b": 1, "b": 2}}`), &anything); err == nil {
		t.Fatal("a duplicate key into any accepted")
	}
}

// What decodeStrict accepts, encoding/json reads the same way, with every
// key exactly a field's name; and the same body with a key sent twice is
// refused, naming it.
func FuzzDecodeStrict(f *testing.F) {
	for _, s := range []string{
		`{"title": "x", "quantity": 1}`, `{"quantity": 1, "quantity": 999999}`, `{"Client": "x"}`, `{"title": "\u0074"}`,
		`{"nested": {"sku": "a"}, "lines": [{"sku": "b"}], "extra": {"k": 1}}`, `{"extra": {"a": 1, "a": 2}}`, `{} {}`, `[]`, `null`,
		`{"title": "x"`, `{"quan\u0074ity": 1, "quantity": 2}`, `{"TITLE": "x"}`, `{"title": "a", "title": "a"}`, "{\"title\": \"\xff\"}",
		`{"lines": [[[[[]]]]]}`, `{"quantity": 1e40}`, `{"quantity": -0}`, `{"":1}`,
	} {
		f.Add([]byte(s))
	}
	names := map[string]bool{"title": true, "quantity": true, "nested": true, "lines": true, "extra": true}
	f.Fuzz(func(t *testing.T, data []byte) {
		var strict strictShape
		if err := decodeStrict(data, &strict); err != nil {
			return
		}
		var lenient strictShape
		if err := json.Unmarshal(data, &lenient); err != nil || !reflect.DeepEqual(strict, lenient) {
			t.Fatalf("%q: strict %+v, encoding/json %+v, %v", data, strict, lenient, err)
		}
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(data, &keys); err != nil {
			t.Fatalf("%q: accepted, but not an object: %v", data, err)
		}
		for k := range keys {
			if !names[k] {
				t.Fatalf("%q: accepted the key %q", data, k)
			}
		}
		// The body again with its first byte's object opening on a
		// duplicate of a key it has.
		for k := range keys {
			i := bytes.IndexByte(data, '{')
			dup := append(append(append([]byte{}, data[:i+1]...), []byte(`"`+k+`": null,`)...), data[i+1:]...)
			var again strictShape
			err := decodeStrict(dup, &again)
			var fault *jsonFault
			if !errors.As(err, &fault) || fault.Field != k {
				t.Fatalf("%q with %q twice: %v", data, k, err)
			}
			break
		}
	})
}
