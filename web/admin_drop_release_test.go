package web_test

import (
	"net/http"
	"net/url"
	"testing"

	"shop/store"
)

// Staff give a customer's ticket back from the drop's page: a question
// first, then the ticket is released and its place claimable at once (by
// another customer here); a second release is refused with its reason.
func TestAdminDropReleaseTicket(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	d := s.openDrop(t, "One to give back", 1)
	ada, adaID := s.newCustomer(t, "Ada Release")
	bo, _ := s.newCustomer(t, "Bo Release")
	wantStatus(t, "Ada claims", ada.claim(d.ID, false), http.StatusOK)
	wantStatus(t, "Bo, sold out", bo.claim(d.ID, false), http.StatusConflict)

	staff := s.staff(t)
	p := staff.get("/admin/drops/" + d.ID)
	wantStatus(t, "staff drop page", p, http.StatusOK)
	link := p.testid("admin-ticket-release")
	if link.Length() != 1 {
		t.Fatalf("%d release links on a drop with one valid ticket", link.Length())
	}
	confirm := staff.get(attr(link, "href"))
	wantStatus(t, "the question", confirm, http.StatusOK)
	form := confirm.testid("release-form")
	if form.Length() != 1 || confirm.testid("release-keep").Length() != 1 {
		t.Fatalf("no release form:\n%s", trim(confirm.body))
	}
	if ticket, err := s.env.Store.Ticket(t.Context(), d.ID, adaID); err != nil || ticket.Status != store.TicketValid {
		t.Fatalf("asking released the ticket: %+v, %v", ticket, err)
	}
	action := attr(form, "action")
	p = staff.post(action, url.Values{})
	wantStatus(t, "release", p, http.StatusSeeOther)
	p = staff.get(p.header.Get("Location"))
	wantText(t, "flash", p.testid("flash"), "Released the ticket of Ada Release")
	if attr(p.testid("admin-ticket-row"), "data-status") != "released" || p.testid("admin-ticket-release").Length() != 0 {
		t.Fatalf("after the release the row is %q with %d release links", attr(p.testid("admin-ticket-row"), "data-status"), p.testid("admin-ticket-release").Length())
	}
	wantText(t, "claimed", p.testid("admin-drop-claimed-live"), "0")

	// The place is free on this replica at once; Ada sees her ticket given
	// back, and may claim like anyone.
	wantStatus(t, "Bo claims the freed place", bo.claim(d.ID, false), http.StatusOK)
	wantText(t, "Ada's tickets", ada.get("/tickets").testid("ticket-status"), "given back")
	if ada.get("/drops/"+d.ID).testid("my-ticket").Length() != 0 {
		t.Fatal("Ada's drop page still shows her released ticket as hers")
	}

	p = staff.post(action, url.Values{})
	wantStatus(t, "a second release", p, http.StatusConflict)
	wantText(t, "refused", p.testid("form-error"), "released already")
	if p := staff.get("/admin/drops/" + d.ID + "/tickets/nobody/release"); p.status != http.StatusNotFound {
		t.Fatalf("release page of no ticket: %d", p.status)
	}
}
