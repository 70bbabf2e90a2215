package page

import (
	"testing"

	"github.com/gorilla/securecookie"
)

// A visitor's cookie carries its id as it is, and cookies made with gob
// before that are still read: the id names the visitor's cart.
func TestVisitorCookiesOldAndNewAreRead(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
	tokens, err := NewTokens([][]byte{key}, false)
	if err != nil {
		t.Fatal(err)
	}
	const id = "06h2jgw8j905tqxh57gg"
	gob, err := securecookie.New(key, nil).Encode(visitorCookie, id)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := securecookie.EncodeMulti(visitorCookie, id, tokens.visitors...)
	if err != nil {
		t.Fatal(err)
	}
	other, err := securecookie.New([]byte("another key, another key, another key, another key!"), nil).Encode(visitorCookie, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, cookie string
		want         string
	}{
		{"made as it is", raw, id},
		{"made with gob", gob, id},
		{"signed by another key", other, ""},
		{"tampered", raw[:len(raw)-2] + "AA", ""},
		{"empty", "", ""},
	} {
		got, ok := tokens.visitorIDOf(tc.cookie)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: got %q, %v; want %q", tc.name, got, ok, tc.want)
		}
	}
}

// Any cookie value decodes to an id or an error, never a panic.
func FuzzVisitorIDs(f *testing.F) {
	f.Add([]byte("06h2jgw8j905tqxh57gg"))
	f.Add([]byte{0x17, 0x0c, 0x00, 0x14})
	f.Fuzz(func(t *testing.T, b []byte) {
		var id string
		_ = visitorIDs{}.Deserialize(b, &id)
	})
}
