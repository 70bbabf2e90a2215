package store_test

import (
	"errors"
	"testing"

	"shop/store"
	"shop/store/storetest"
)

// An address typed with a combining accent (NFD) and with the precomposed
// letter (NFC) is one address: one account, found either way.
func TestCustomerEmailNFDIsNFC(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	ctx := ctxT(t)
	const (
		nfc = "jos\u00e9@example.com"
		nfd = "jose\u0301@example.com"
	)
	if got := store.NormalizeEmail(" JOSE\u0301@Example.com "); got != nfc {
		t.Fatalf("NormalizeEmail = %q, want %q", got, nfc)
	}
	c, err := env.Store.CreateCustomer(ctx, store.NewCustomer{Email: nfd, Name: "José", PasswordHash: "h"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Email != nfc {
		t.Fatalf("stored email %q, want NFC %q", c.Email, nfc)
	}
	if _, err := env.Store.CreateCustomer(ctx, store.NewCustomer{Email: nfc, Name: "Other", PasswordHash: "x"}); !errors.Is(err, store.ErrEmailTaken) {
		t.Fatalf("sign-up with the NFC form of a taken NFD address: %v, want ErrEmailTaken", err)
	}
	for _, email := range []string{nfc, nfd} {
		if cr, err := env.Store.CredentialsByEmail(ctx, email); err != nil || cr.CustomerID != c.ID {
			t.Fatalf("CredentialsByEmail(%q) = %+v, %v; want customer %s", email, cr, err, c.ID)
		}
	}
}
