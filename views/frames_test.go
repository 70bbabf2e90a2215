package views

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/a-h/templ"

	"shop/views/lang"
)

// renderBoth renders c as the shop does (its frame and parts kept, once to
// keep them and once from what was kept) and as if nothing were kept.
func renderBoth(t *testing.T, l lang.Lang, c templ.Component) (kept, rendered string) {
	t.Helper()
	return renderBothIn(t, benchCtx(l), c)
}

func renderBothIn(t *testing.T, ctx context.Context, c templ.Component) (kept, rendered string) {
	t.Helper()
	render := func() string {
		var buf bytes.Buffer
		if err := c.Render(ctx, &buf); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	first, second := render(), render()
	if first != second {
		t.Fatalf("the page made from what was kept differs from the one that kept it:\n%s\n%s", first, second)
	}
	renderEverything.Store(true)
	defer renderEverything.Store(false)
	return second, render()
}

func around(c templ.Component, body string) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		return c.Render(templ.WithChildren(ctx, templ.Raw(body)), w)
	})
}

// The storefront's frame is kept per language, address and shape with
// holes for the viewer's parts: each viewer's page is exactly what
// rendering it makes, and what is kept holds nothing of any viewer's.
func TestStorefrontFrameKeepsNothingOfTheViewer(t *testing.T) {
	ada := signedInLayout()
	ada.Flash = Flash{Kind: FlashSuccess, Message: "Added <2> × \"Hand Grinder\" & more"}
	bob := Layout{Title: "Archipelago Light Roast", Viewer: Viewer{ID: "cus_bob", Name: "Bob <Builder>", Staff: true},
		CSRF: "bobs-token", Path: ada.Path}
	visitor := Layout{Title: "Archipelago Light Roast", CSRF: "visitors-token", Path: ada.Path}
	search := ada
	search.Path, search.Search = "/search", &SearchPage{Query: "coffee <b>&", Problem: "too short"}
	odd := visitor
	odd.Path = `/products/a&b"<x>?'`
	odd.Title = strings.Repeat("A very long title & more ", 5)
	nul := visitor
	nul.Path = "/products/a\x00b"

	var shown []string // what each viewer's page shows of them
	for _, l := range lang.All {
		for _, tc := range []struct {
			name   string
			layout Layout
			own    []string
		}{
			{"ada", ada, []string{"Ada Lovelace", ada.CSRF, "Hand Grinder", "(2)"}},
			{"bob", bob, []string{"Bob &lt;Builder&gt;", "bobs-token", "nav-admin"}},
			{"visitor", visitor, []string{"visitors-token", "nav-login"}},
			{"search", search, []string{"coffee &lt;b&gt;&amp;", "Ada Lovelace"}},
			{"odd address", odd, []string{"visitors-token", "A very long title"}},
			{"NUL in the address", nul, []string{"visitors-token"}},
		} {
			kept, rendered := renderBoth(t, l, around(Storefront(tc.layout), "<p>the page</p>"))
			if kept != rendered {
				t.Fatalf("%s, %s: the kept frame's page differs from the rendered one:\n%s\n%s", l, tc.name, kept, rendered)
			}
			for _, s := range tc.own {
				if !strings.Contains(kept, s) {
					t.Fatalf("%s, %s: the page does not show %q", l, tc.name, s)
				}
			}
			shown = append(shown, tc.own...)
		}
	}
	// Bob's page after Ada's, from the same frame, holds nothing of hers.
	var buf bytes.Buffer
	if err := around(Storefront(bob), "").Render(benchCtx(lang.English), &buf); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Ada", ada.CSRF, "Hand Grinder", "(2)", "flash-success"} {
		if strings.Contains(buf.String(), s) {
			t.Fatalf("Bob's page holds %q of Ada's", s)
		}
	}
	// What is kept is the frames' text alone: none of it is a viewer's.
	storefrontFrames.mu.RLock()
	defer storefrontFrames.mu.RUnlock()
	if len(storefrontFrames.kept) == 0 {
		t.Fatal("no frame was kept")
	}
	for k, f := range storefrontFrames.kept {
		text := string(bytes.Join(f.text, nil))
		for _, s := range append(shown, "the page", "Archipelago") {
			if s != "nav-login" && strings.Contains(text, s) {
				t.Fatalf("the frame kept for %v holds %q", k, s)
			}
		}
	}
}

// renderAllOf is c rendered as if nothing were kept.
func renderAllOf(t *testing.T, ctx context.Context, c templ.Component) string {
	t.Helper()
	renderEverything.Store(true)
	defer renderEverything.Store(false)
	var buf bytes.Buffer
	if err := c.Render(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}
