package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Staff keep the shipping zones: bad input comes back at each field in a
// 422 that writes nothing, a country in another zone is refused at the
// countries, a zone is changed and removed.
func TestAdminShippingZones(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.staff(t)
	home := b.get("/admin")
	if href, _ := home.testid("nav-shipping").Attr("href"); href != "/admin/shipping" {
		t.Fatalf("the console links shipping to %q", href)
	}
	p := b.get("/admin/shipping")
	wantStatus(t, "shipping", p, http.StatusOK)
	if p.testid("zones-empty").Length() != 1 {
		t.Fatal("no zones yet, and the page does not say so")
	}

	bad := url.Values{"name": {""}, "countries": {"SE, Narnia"}, "price": {"four"}, "free_from": {"-1"}, "days_min": {"0"}, "days_max": {"x"}}
	p = b.post("/admin/shipping", bad)
	wantStatus(t, "bad zone", p, http.StatusUnprocessableEntity)
	for _, field := range []string{"name", "countries", "price", "free_from", "days_min", "days_max"} {
		if p.testid("error-"+field).Text() == "" {
			t.Errorf("no message at %s", field)
		}
	}
	wantText(t, "unknown country", p.testid("error-countries"), "Narnia")
	if v, _ := p.testid("field-price").Attr("value"); v != "four" {
		t.Errorf("the price typed came back as %q", v)
	}
	p = b.post("/admin/shipping", bad, "HX-Request", "true")
	wantStatus(t, "bad zone with htmx", p, http.StatusUnprocessableEntity)
	if strings.Contains(p.body, "<html") || p.testid("zone-form").Length() != 1 {
		t.Fatalf("htmx answered %s", trim(p.body))
	}
	if zones, _ := s.env.Store.ShippingZones(context.Background()); len(zones) != 0 {
		t.Fatalf("bad input wrote %d zones", len(zones))
	}

	nordic := url.Values{"name": {"Nordics"}, "countries": {"SE, Norway,fi"}, "price": {"4.90"}, "free_from": {"50"}, "days_min": {"1"}, "days_max": {"3"}}
	wantStatus(t, "add a zone", b.post("/admin/shipping", nordic), http.StatusSeeOther)
	p = b.get("/admin/shipping")
	wantText(t, "flash", p.testid("flash"), "Nordics")
	wantText(t, "countries", p.testid("zone-countries"), "Finland, Norway, Sweden")
	wantText(t, "price", p.testid("zone-price"), "€4.90")
	wantText(t, "free from", p.testid("zone-free"), "€50.00")
	wantText(t, "days", p.testid("zone-days"), "1–3 days")

	p = b.post("/admin/shipping", url.Values{"name": {"EU"}, "countries": {"DE, FI"}, "price": {"9.90"}, "days_min": {"3"}, "days_max": {"6"}})
	wantStatus(t, "a country of another zone", p, http.StatusUnprocessableEntity)
	wantText(t, "overlap", p.testid("error-countries"), "Finland is in the zone Nordics already")

	zones, err := s.env.Store.ShippingZones(context.Background())
	if err != nil || len(zones) != 1 {
		t.Fatalf("zones %+v, %v", zones, err)
	}
	id := zones[0].ID
	edit := b.get("/admin/shipping/" + id)
	wantStatus(t, "edit", edit, http.StatusOK)
	if v, _ := edit.testid("field-price").Attr("value"); v != "4.90" {
		t.Fatalf("the zone's form has the price %q", v)
	}
	nordic.Set("price", "5.90")
	nordic.Set("version", "1")
	wantStatus(t, "change", b.post("/admin/shipping/"+id, nordic), http.StatusSeeOther)
	p = b.post("/admin/shipping/"+id, nordic) // version 1 again: changed meanwhile
	wantStatus(t, "a stale change", p, http.StatusUnprocessableEntity)
	wantText(t, "stale", p.testid("form-error"), "changed")
	wantText(t, "changed price", b.get("/admin/shipping").testid("zone-price"), "€5.90")

	wantStatus(t, "remove", b.post("/admin/shipping/"+id+"/delete", url.Values{"version": {"2"}}), http.StatusSeeOther)
	if b.get("/admin/shipping").testid("zone-row").Length() != 0 {
		t.Fatal("the zone is still listed")
	}
	wantStatus(t, "remove again", b.post("/admin/shipping/"+id+"/delete", url.Values{"version": {"2"}}), http.StatusNotFound)
	wantStatus(t, "an unknown zone", b.get("/admin/shipping/nope"), http.StatusNotFound)
}
