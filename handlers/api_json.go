package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// The API reads its JSON strictly. encoding/json alone takes the last of
// two equal keys ({"quantity":1,"quantity":999999} made a drop of
// 999,999) and matches names whatever their case ({"Client": …}): a body
// a proxy, a log or another parser reads differently from us. decodeStrict
// refuses both, and unknown names, before encoding/json decodes.

// jsonMaxDepth bounds how deep objects and arrays nest in a body.
const jsonMaxDepth = 32

// jsonFault is a body refused for one name: a key twice, a key in the
// wrong case, a key the shape does not have.
type jsonFault struct {
	Field string // the key's path: "quantity", "items[0].sku"
	Msg   string
}

func (e *jsonFault) Error() string { return e.Msg }

// decodeStrict decodes data, one JSON value and nothing after it, into
// into (a pointer), refusing with a *jsonFault a key that appears twice in
// one object, a key that is not exactly (case included) the json name of a
// field of the struct it fills, and a struct filled from anything but an
// object. Other faults are encoding/json's errors (syntax, types).
func decodeStrict(data []byte, into any) error {
	t := reflect.TypeOf(into)
	if t == nil || t.Kind() != reflect.Pointer {
		return errors.New("decodeStrict: into is not a pointer")
	}
	w := jsonWalk{dec: json.NewDecoder(bytes.NewReader(data))}
	w.dec.UseNumber()
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	if et := derefType(t.Elem()); et.Kind() == reflect.Struct && tok != json.Delim('{') {
		return &jsonFault{Msg: "the body is one JSON object"}
	}
	if err := w.after(tok, t.Elem(), "", 0); err != nil {
		return err
	}
	if _, err := w.dec.Token(); !errors.Is(err, io.EOF) {
		return &jsonFault{Msg: "the body is one JSON object with nothing after it"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(into)
}

type jsonWalk struct{ dec *json.Decoder }

// token is the next token; the body ending within the value is
// io.ErrUnexpectedEOF (Token says io.EOF, which means an empty body).
func (w *jsonWalk) token() (json.Token, error) {
	tok, err := w.dec.Token()
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return tok, err
}

// value reads one value whose Go type is t (nil: anything goes).
func (w *jsonWalk) value(t reflect.Type, path string, depth int) error {
	tok, err := w.token()
	if err != nil {
		return err
	}
	return w.after(tok, t, path, depth)
}

// after reads the rest of the value tok starts.
func (w *jsonWalk) after(tok json.Token, t reflect.Type, path string, depth int) error {
	delim, ok := tok.(json.Delim)
	if !ok {
		return nil // a scalar: encoding/json checks its type
	}
	if depth >= jsonMaxDepth {
		return &jsonFault{Field: path, Msg: fmt.Sprintf("the JSON nests deeper than %d", jsonMaxDepth)}
	}
	t = derefType(t)
	switch delim {
	case '{':
		seen := map[string]bool{}
		for w.dec.More() {
			kt, err := w.token()
			if err != nil {
				return err
			}
			key, _ := kt.(string)
			field := jsonPath(path, key)
			if seen[key] {
				return &jsonFault{Field: field, Msg: fmt.Sprintf("%q appears twice: send each field once", field)}
			}
			seen[key] = true
			var vt reflect.Type
			if t != nil {
				switch t.Kind() {
				case reflect.Struct:
					ft, fault := jsonField(t, key, path)
					if fault != nil {
						return fault
					}
					vt = ft
				case reflect.Map:
					vt = t.Elem()
				}
			}
			if err := w.value(vt, field, depth+1); err != nil {
				return err
			}
		}
	case '[':
		var et reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			et = t.Elem()
		}
		for i := 0; w.dec.More(); i++ {
			if err := w.value(et, path+"["+strconv.Itoa(i)+"]", depth+1); err != nil {
				return err
			}
		}
	}
	_, err := w.token() // the closing delimiter
	return err
}

// jsonField is the type of the struct field whose json name is exactly
// key, or the fault of a key that names none; parent is the path of the
// object the key is in.
func jsonField(t reflect.Type, key, parent string) (reflect.Type, *jsonFault) {
	near := ""
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("json"); ok {
			if tag == "-" {
				continue
			}
			if n, _, _ := strings.Cut(tag, ","); n != "" {
				name = n
			}
		}
		switch {
		case name == key:
			return f.Type, nil
		case strings.EqualFold(name, key):
			near = name
		}
	}
	path := jsonPath(parent, key)
	if near != "" {
		return nil, &jsonFault{Field: path, Msg: fmt.Sprintf("unknown field %q: names are case-sensitive, this one is %q", path, jsonPath(parent, near))}
	}
	return nil, &jsonFault{Field: path, Msg: fmt.Sprintf("unknown field %q", path)}
}

func derefType(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func jsonPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}
