package web_test

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"shop/store/payment"
	"shop/store/storetest"
	"shop/web"
)

// Behind a proxy, a replica given a name says it on every answer (pages,
// errors, machine endpoints), so a check can tell which one served; an
// unnamed one says nothing.
func TestANamedReplicaSaysSoInEveryAnswer(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	for _, name := range []string{"", "replica-2"} {
		app, err := web.New(web.Config{Store: env.Store, Payments: payment.NewProviders(testProvider(t, env.Store)), SessionKeys: [][]byte{keyA},
			BcryptCost: bcrypt.MinCost, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Replica: name})
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/healthz", "/", "/no-such-page"} {
			resp, err := app.Test(httptest.NewRequest("GET", path, nil), -1)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.Header.Get(web.ReplicaHeader); got != name {
				t.Errorf("replica %q, GET %s (%d): %s %q", name, path, resp.StatusCode, web.ReplicaHeader, got)
			}
		}
	}
}
