package store_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/storetest"
)

// An integration's name is taken once, forever: of many racing to add the
// same name one wins, and once revoked the name stays taken, gets no new
// key and no new drop.
func TestIntegrationNamesAreTakenForGood(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	st, ctx := env.Store, ctxT(t)

	const racers = 8
	var wg sync.WaitGroup
	errs := make([]error, racers)
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, _, errs[i] = st.CreateIntegration(ctx, "partner")
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, store.ErrConflict):
			t.Fatalf("a racer: %v", err)
		}
	}
	access, err := st.APIAccess(ctx)
	if err != nil || won != 1 || len(access.Integrations) != 1 || len(access.Keys) != 1 || !access.Works(access.Keys[0]) {
		t.Fatalf("%d of %d racers won; the table holds %+v, %v", won, racers, access, err)
	}
	first := access.Keys[0]

	// Another key of it works beside the first; rotating the first
	// revokes it and makes a third, of the same integration.
	second, _, err := st.IssueAPIKey(ctx, "partner")
	if err != nil || second.Integration != "partner" {
		t.Fatalf("issue: %+v, %v", second, err)
	}
	third, _, err := st.RotateAPIKey(ctx, first.ID)
	if err != nil || third.Integration != "partner" {
		t.Fatalf("rotate: %+v, %v", third, err)
	}
	if _, _, err := st.RotateAPIKey(ctx, first.ID); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("rotating a revoked key: %v", err)
	}
	if _, _, err := st.IssueAPIKey(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a key of no integration: %v", err)
	}
	works := func() map[string]bool {
		access, err := st.APIAccess(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, k := range access.Keys {
			out[k.ID] = access.Works(k)
		}
		return out
	}
	if w := works(); w[first.ID] || !w[second.ID] || !w[third.ID] || len(w) != 3 {
		t.Fatalf("keys that work after a rotation: %v", w)
	}

	// Revoked: no key of it works, it gets none, and its name stays taken.
	if err := st.RevokeIntegration(ctx, "partner"); err != nil {
		t.Fatal(err)
	}
	if err := st.RevokeIntegration(ctx, "partner"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("revoking it again: %v", err)
	}
	if err := st.RevokeIntegration(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("revoking no integration: %v", err)
	}
	if w := works(); w[first.ID] || w[second.ID] || w[third.ID] {
		t.Fatalf("keys that work after the integration was revoked: %v", w)
	}
	if _, _, _, err := st.CreateIntegration(ctx, "partner"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a revoked integration's name used again: %v", err)
	}
	if _, _, err := st.IssueAPIKey(ctx, "partner"); !errors.Is(err, store.ErrIntegrationRevoked) {
		t.Fatalf("a key of a revoked integration: %v", err)
	}
	if _, _, err := st.RotateAPIKey(ctx, second.ID); !errors.Is(err, store.ErrIntegrationRevoked) {
		t.Fatalf("rotating a key of a revoked integration: %v", err)
	}
	now := time.Now()
	for _, audience := range []string{"api:partner", "api:nobody"} {
		_, err := st.CreateDrop(ctx, store.NewDrop{Title: "x", Quantity: 1, Opens: now, Closes: now.Add(time.Hour), Audience: audience})
		var de *store.DropError
		if !errors.As(err, &de) || de.Kind != "audience_unknown" {
			t.Fatalf("a drop for %s: %v", audience, err)
		}
	}
	if n := env.CountEntities(t, "drop"); n != 0 {
		t.Fatalf("%d drops for integrations that cannot have one", n)
	}
	if _, _, _, err := st.CreateIntegration(ctx, "has space"); !errors.Is(err, store.ErrBadIntegrationName) {
		t.Fatalf("a bad name: %v", err)
	}
}

// An integration's drop is never published nor a product drop, and no
// drop closes more than the configured days after it opens (a year by
// default).
func TestNewDropBounds(t *testing.T) {
	t.Parallel()
	env := storetest.New(t, store.WithDropMaxDays(2))
	st, ctx := env.Store, ctxT(t)
	if _, _, _, err := st.CreateIntegration(ctx, "partner"); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	ok := store.NewDrop{Title: "x", Quantity: 1, Opens: now, Closes: now.Add(48 * time.Hour), Audience: "api:partner"}
	for _, tc := range []struct {
		name string
		edit func(*store.NewDrop)
		kind string
	}{
		{"published", func(d *store.NewDrop) { d.Published = true }, "audience_published"},
		{"a product drop", func(d *store.NewDrop) {
			d.ProductID, d.Price, d.RedeemWithin = "tea", store.Money{Amount: 100, Currency: "EUR"}, time.Hour
		}, "audience_product"},
		{"no such audience", func(d *store.NewDrop) { d.Audience = "customers" }, "audience"},
		{"an audience of a bad name", func(d *store.NewDrop) { d.Audience = "api:has space" }, "audience"},
		{"closing past the bound", func(d *store.NewDrop) { d.Closes = d.Opens.Add(48*time.Hour + time.Millisecond) }, "closes_too_late"},
		{"a shop drop closing past the bound", func(d *store.NewDrop) {
			d.Audience, d.Closes = store.DropAudienceShop, d.Opens.Add(72*time.Hour)
		}, "closes_too_late"},
		{"closing in year 9999", func(d *store.NewDrop) { d.Closes = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC) }, "closes_too_late"},
	} {
		nd := ok
		tc.edit(&nd)
		for _, err := range []error{st.ValidateDrop(nd), func() error { _, err := st.CreateDrop(ctx, nd); return err }()} {
			var de *store.DropError
			if !errors.As(err, &de) || de.Kind != tc.kind {
				t.Fatalf("%s: %v, want a DropError %s", tc.name, err, tc.kind)
			}
		}
	}
	if n := env.CountEntities(t, "drop"); n != 0 {
		t.Fatalf("%d refused drops written", n)
	}
	d, err := st.CreateDrop(ctx, ok)
	if err != nil || d.Audience != "api:partner" {
		t.Fatalf("a drop of the longest length: %+v, %v", d, err)
	}
	if err := storetest.New(t).Store.ValidateDrop(store.NewDrop{Title: "x", Quantity: 1, Opens: now, Closes: now.Add(365 * 24 * time.Hour)}); err != nil {
		t.Fatalf("a year is the default bound: %v", err)
	}
}

// `shop migrate` gives API keys of the first shape (a name, no
// integration) the integration of their name, made once and dated by the
// oldest; drops of the first shape (an Owner, no Audience) read their
// owner as their audience, so the integration keeps them. Run twice, it
// changes nothing more.
func TestMigrateGivesOldKeysTheirIntegration(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	st, ctx := env.Store, ctxT(t)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	stamp := func(t time.Time) string { return t.Format("2006-01-02T15:04:05.000Z07:00") }
	oldKey := func(hash, name string, at time.Time, revoked bool) map[string]types.AttributeValue {
		rec := map[string]any{"PK": "apikey#" + hash, "SK": "apikey#" + hash, "EntityType": "apiKey", "Name": name,
			"CreatedAt": stamp(at), "Revoked": revoked, "GSI1-PK": "apikeys", "GSI1-SK": stamp(at) + "#" + hash}
		if revoked {
			rec["RevokedAt"] = stamp(at.Add(time.Hour))
		}
		item, err := attributevalue.MarshalMap(rec)
		if err != nil {
			t.Fatal(err)
		}
		return item
	}
	// audit's first key was revoked and its name used again: both joined
	// the drops of "api:audit".
	env.PutItems(t, []map[string]types.AttributeValue{
		oldKey("a1", "audit", t0, true), oldKey("a2", "audit", t0.Add(24*time.Hour), false), oldKey("p1", "partner", t0.Add(time.Hour), false),
	})
	now := time.Now()
	var drops []store.Drop
	for _, owner := range []string{"api:audit", "shop"} {
		d, err := st.CreateDrop(ctx, store.NewDrop{Title: owner, Quantity: 1, Opens: now, Closes: now.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		upd := expression.Set(expression.Name("Owner"), expression.Value(owner)).Remove(expression.Name("Audience"))
		expr, err := expression.NewBuilder().WithUpdate(upd).Build()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := env.Client.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(env.Table), Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "subject#" + d.ID}, "SK": &types.AttributeValueMemberS{Value: "info"},
		}, UpdateExpression: expr.Update(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()}); err != nil {
			t.Fatal(err)
		}
		drops = append(drops, d)
	}
	if access, err := st.APIAccess(ctx); err != nil || len(access.Integrations) != 0 || len(access.Keys) != 3 || access.Works(access.Keys[0]) {
		t.Fatalf("before the migration: %+v, %v", access, err)
	}

	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	access, err := st.APIAccess(ctx)
	if err != nil {
		t.Fatal(err)
	}
	audit, ok := access.Integration("audit")
	if _, okP := access.Integration("partner"); !ok || !okP || len(access.Integrations) != 2 || !audit.CreatedAt.Equal(t0) || audit.Revoked {
		t.Fatalf("integrations after the migration: %+v", access.Integrations)
	}
	works := map[string]bool{}
	for _, k := range access.Keys {
		works[k.ID] = access.Works(k)
	}
	if works["a1"] || !works["a2"] || !works["p1"] || len(access.KeysOf("audit")) != 2 {
		t.Fatalf("keys that work after the migration: %v; audit's %+v", works, access.KeysOf("audit"))
	}
	for i, want := range []string{"api:audit", "shop"} {
		d, err := st.Drop(ctx, drops[i].ID)
		if err != nil || d.Audience != want {
			t.Fatalf("drop of owner %s: audience %q, %v", want, d.Audience, err)
		}
	}
	if _, _, _, err := st.CreateIntegration(ctx, "audit"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a new integration named as an old key: %v", err)
	}

	env.Counter.Reset()
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// Its step is one Query (and the drops' rekeying another); the
	// PutItems are other steps' conditional ones, which write nothing.
	if ops := env.Counter.Ops(); ops["UpdateItem"] != 0 || ops["Query"] != 2 {
		t.Errorf("a second migration made %v, want two Queries and no update", ops)
	}
	if n := env.CountEntities(t, "integration"); n != 2 {
		t.Errorf("%d integrations after a second migration", n)
	}
}
