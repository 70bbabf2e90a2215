package handlers

import (
	"strings"
	"testing"

	"shop/store"
)

func testSigner(t testing.TB, keys ...string) LinkSigner {
	t.Helper()
	var bs [][]byte
	for _, k := range keys {
		bs = append(bs, []byte(k))
	}
	s, err := NewLinkSigner(bs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A token opens for its own purpose under any of the keys, and for
// nothing else.
func TestLinkSignerOpensOnlyItsOwnTokens(t *testing.T) {
	a := testSigner(t, "key-a-0123456789abcdef0123456789ab")
	rotated := testSigner(t, "key-b-0123456789abcdef0123456789ab", "key-a-0123456789abcdef0123456789ab")
	other := testSigner(t, "key-c-0123456789abcdef0123456789ab")
	const secret = "c2VjcmV0LXNlY3JldC1zZWNyZXQ"
	tok := a.Sign(store.LinkResetPassword, secret)
	if got, ok := a.Open(store.LinkResetPassword, tok); !ok || got != secret {
		t.Fatalf("Open(Sign) = %q, %v", got, ok)
	}
	if got, ok := rotated.Open(store.LinkResetPassword, tok); !ok || got != secret {
		t.Fatalf("after a key rotation: %q, %v", got, ok)
	}
	for what, bad := range map[string]struct {
		s   LinkSigner
		tok string
	}{
		"other purpose":   {a, a.Sign(store.LinkVerifyEmail, secret)},
		"other key":       {other, tok},
		"no signature":    {a, secret},
		"empty signature": {a, secret + "."},
		"empty secret":    {a, "." + strings.SplitN(tok, ".", 2)[1]},
		"two dots":        {a, tok + ".x"},
		"too long":        {a, strings.Repeat("a", maxLinkToken) + tok},
	} {
		if got, ok := bad.s.Open(store.LinkResetPassword, bad.tok); ok {
			t.Errorf("%s: opened %q", what, got)
		}
	}
	if _, err := NewLinkSigner(nil); err == nil {
		t.Error("a signer without keys")
	}
}

// Whatever a link's token is, Open does not panic, and what it opens is a
// secret whose token Sign makes back.
func FuzzOpenLinkToken(f *testing.F) {
	s := testSigner(f, "key-a-0123456789abcdef0123456789ab")
	for _, seed := range []string{
		s.Sign(store.LinkResetPassword, "c2VjcmV0"), s.Sign(store.LinkVerifyEmail, "x"), "", ".", "a.b", "a..b",
		"%00.%00", "é.é", strings.Repeat("a", 200), "c2VjcmV0.AAAAAAAAAAAAAAAAAAAAAA",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		secret, ok := s.Open(store.LinkResetPassword, tok)
		if !ok {
			return
		}
		if secret == "" || s.Sign(store.LinkResetPassword, secret) != tok {
			t.Fatalf("opened %q to %q, which signs to %q", tok, secret, s.Sign(store.LinkResetPassword, secret))
		}
	})
}
