package views

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"

	"shop/store"
	"shop/store/rules"
	"shop/views/lang"
)

// The signed-in storefront's render alone, without the server around it:
// CPU and allocations per render are far steadier than the load test's
// requests a second on a shared machine.

// signedInLayout is the frame of Ada's product page: signed in, two items
// in her cart.
func signedInLayout() Layout {
	return Layout{
		Title:       "Archipelago Light Roast",
		Description: "A light roast for the morning.",
		Viewer:      Viewer{ID: "cus_ada", Name: "Ada Lovelace"},
		CSRF:        strings.Repeat("tK9_-x", 14) + "ab",
		Path:        "/products/cf-light",
		RequestID:   "req-1",
		CartUnits:   2,
	}
}

// signedInProduct is the demo's subscribable coffee as Ada's product page
// shows it: stock in two warehouses and the subscribe form with its
// preview, the day and period it starts with.
func signedInProduct() ProductPage {
	p := store.Product{ID: "cf-light", Name: "Archipelago Light Roast", Description: "A light roast for the morning.",
		Category: "coffee", Price: store.Money{Amount: 1390, Currency: "EUR"}, Subscribable: true,
		MonthlyPrice: store.Money{Amount: 1290, Currency: "EUR"}}
	today, _ := rules.ParseDate("2026-11-28")
	q := store.QuoteSubscription(today, p, today.Day(), 1, nil)
	token := signedInLayout().CSRF
	return ProductPage{
		Product:  p,
		Category: store.Category{Slug: "coffee", Name: "Coffee"},
		Stock:    StockPanel{ProductID: p.ID, Levels: []store.StockLevel{{City: "Göteborg", Quantity: 40}, {City: "Malmö", Quantity: 12}}},
		Add:      AddToCart{ProductID: p.ID, Quantity: "1", CSRF: token, Available: 52},
		Subscribe: &SubscribeForm{Product: p, SignedIn: true, Key: "06h2jhqampg1ddbf96xg", Day: "28", Period: "1", Card: "new",
			Errors: FieldErrors{}, CSRF: token, Quote: &q, Ships: true},
	}
}

// benchCtx is a request's context as deep as the shop's middleware makes
// it (each value one more link a lookup of the language walks).
func benchCtx(l lang.Lang) context.Context {
	ctx := context.Background()
	type k int
	for i := range 8 {
		ctx = context.WithValue(ctx, k(i), i)
	}
	ctx = WithZone(lang.With(ctx, l), time.UTC)
	for i := 8; i < 12; i++ {
		ctx = context.WithValue(ctx, k(i), i)
	}
	return ctx
}

func benchRender(b *testing.B, c templ.Component) {
	ctx := benchCtx(lang.English)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := c.Render(ctx, &buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "bytes/page")
}

// The frame of every customer page, around nothing.
func BenchmarkSignedInLayout(b *testing.B) {
	benchRender(b, Storefront(signedInLayout()))
}

// The subscribe panel a signed-in customer sees on a subscribable
// product's page.
func BenchmarkSignedInSubscribePanel(b *testing.B) {
	benchRender(b, SubscribePanel(signedInProduct().Subscribe))
}

// What a signed-in product page renders on every request: the frame and
// the viewer's parts (the add form, the stock, the subscribe panel); the
// breadcrumb, picture and words are kept (Kept) and only copied.
func BenchmarkSignedInProductPage(b *testing.B) {
	p := signedInProduct()
	benchRender(b, templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		return Storefront(signedInLayout()).Render(templ.WithChildren(ctx, templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
			if err := AddToCartForm(p.Add).Render(ctx, w); err != nil {
				return err
			}
			if err := StockCounter(p.Stock).Render(ctx, w); err != nil {
				return err
			}
			return SubscribePanel(p.Subscribe).Render(ctx, w)
		})), w)
	}))
}
