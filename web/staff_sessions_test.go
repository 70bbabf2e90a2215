package web_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"shop/store"
	"shop/store/demo"
)

// userAgent sends every request of a browser with its User-Agent.
type userAgent struct {
	ua   string
	next http.RoundTripper
}

func (u userAgent) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("User-Agent", u.ua)
	return u.next.RoundTrip(r)
}

// browserAs is a browser that says it is ua.
func (s *shop) browserAs(t *testing.T, ua string) *browser {
	b := s.browser(t)
	jar, _ := cookiejar.New(nil)
	b.http.Jar = jar
	b.http.Transport = userAgent{ua: ua, next: http.DefaultTransport}
	return b
}

const (
	firefoxLinux  = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
	chromeWindows = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"
)

// wantSessions fails unless the customer has n sessions in the table.
func wantSessions(t *testing.T, s *shop, customerID string, n int) {
	t.Helper()
	list, err := s.env.Store.CustomerSessions(context.Background(), customerID)
	if err != nil || len(list) != n {
		t.Fatalf("%d sessions (%v), want %d: %+v", len(list), err, n, list)
	}
}

// The owner makes Ada staff and she opens the console in the session she
// had; the role change is recorded with who and when. Staff who are not
// owners see the role but no buttons, and their posts are refused. The
// owner demotes her: her sessions end at once, in both her browsers.
func TestOwnerMakesAndDemotesStaff(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	owner := s.staff(t)
	ada := s.customerID(t, demo.CustomerEmail)
	adaLaptop, adaPhone := s.browserAs(t, firefoxLinux), s.browserAs(t, chromeWindows)
	adaLaptop.signIn(demo.CustomerEmail, demo.CustomerPassword)
	adaPhone.signIn(demo.CustomerEmail, demo.CustomerPassword)
	wantStatus(t, "a customer at /admin", adaLaptop.get("/admin"), http.StatusForbidden)

	p := owner.get("/admin/customers/" + ada)
	wantStatus(t, "Ada's page", p, http.StatusOK)
	wantText(t, "Ada's role", p.testid("customer-role"), "customer")
	if p.testid("role-make-staff").Length() != 1 || p.testid("account-deactivate").Length() != 1 {
		t.Fatalf("the owner has no buttons: %s", trim(p.testid("customer-access").Text()))
	}
	p = owner.post("/admin/customers/"+ada+"/role", url.Values{"role": {"staff"}})
	wantStatus(t, "make Ada staff", p, http.StatusSeeOther)
	p = owner.get("/admin/customers/" + ada)
	wantText(t, "flash", p.testid("flash"), "Ada Lindqvist is now staff (was customer)")
	wantText(t, "Ada's role", p.testid("customer-role"), "staff")
	wantText(t, "the change", p.testid("role-change-row"), "customer → staff")
	wantText(t, "by whom", p.testid("role-change-row"), "Sam Staff")
	wantSessions(t, s, ada, 2) // a promotion ends nothing

	// Her session from before opens the console, and takes the staff link.
	wantStatus(t, "Ada made staff at /admin", adaLaptop.get("/admin"), http.StatusOK)
	if adaLaptop.get("/").testid("nav-admin").Length() != 1 {
		t.Fatal("Ada's session did not take her new role")
	}
	// Staff who are not owners see the role and no buttons; a post is 403.
	p = adaLaptop.get("/admin/customers/" + ada)
	wantText(t, "Ada sees her role", p.testid("customer-role"), "staff")
	if p.testid("customer-access-actions").Length() != 0 {
		t.Fatal("staff who are no owner see the role buttons")
	}
	henrik := s.customerID(t, "henrik@fikafield.example")
	wantStatus(t, "staff making staff", adaLaptop.post("/admin/customers/"+henrik+"/role", url.Values{"role": {"staff"}}), http.StatusForbidden)
	wantStatus(t, "staff deactivating", adaLaptop.post("/admin/customers/"+henrik+"/deactivate", url.Values{}), http.StatusForbidden)
	if c, err := s.env.Store.Customer(context.Background(), henrik); err != nil || c.Role != store.RoleCustomer || c.Deactivated {
		t.Fatalf("Henrik after staff's posts: %+v, %v", c, err)
	}

	// Demoted: both her sessions end at once.
	p = owner.post("/admin/customers/"+ada+"/role", url.Values{"role": {"customer"}})
	wantStatus(t, "demote Ada", p, http.StatusSeeOther)
	wantText(t, "flash", owner.get("/admin/customers/"+ada).testid("flash"), "Signed out of 2 sessions")
	wantSessions(t, s, ada, 0)
	p = adaLaptop.get("/admin")
	wantStatus(t, "demoted Ada at /admin", p, http.StatusSeeOther)
	if !strings.HasPrefix(p.header.Get("Location"), "/login") {
		t.Fatalf("demoted Ada sent to %q", p.header.Get("Location"))
	}
	wantSignedOut(t, adaPhone.get("/"), "Ada's other browser is still signed in after her demotion")
}

// The staff check reads the record on every request: a staff member whose
// record says customer is refused even while their session lives.
func TestStaffCheckReadsTheRecord(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := context.Background()
	ada := s.customerID(t, demo.CustomerEmail)
	sam, err := s.env.Store.Customer(ctx, s.customerID(t, demo.StaffEmail))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.env.Store.ChangeRole(ctx, ada, store.RoleStaff, sam); err != nil {
		t.Fatal(err)
	}
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	wantStatus(t, "staff Ada", b.get("/admin"), http.StatusOK)
	// Demoted through the store alone: her session is still there.
	if _, _, err := s.env.Store.ChangeRole(ctx, ada, store.RoleCustomer, sam); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "demoted Ada, session alive", b.get("/admin"), http.StatusForbidden)
	wantSignedIn(t, b.get("/"), "Ada's session ended without anyone ending it")
}

// Deactivated, an account is signed out everywhere and cannot sign in
// (saying so to who knows the password); reactivated, it can.
func TestOwnerDeactivatesAnAccount(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	owner := s.staff(t)
	ada := s.customerID(t, demo.CustomerEmail)
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	owner.get("/admin/customers/" + ada)
	wantStatus(t, "deactivate", owner.post("/admin/customers/"+ada+"/deactivate", url.Values{}), http.StatusSeeOther)
	p := owner.get("/admin/customers/" + ada)
	wantText(t, "state", p.testid("customer-state"), "deactivated")
	wantText(t, "the change", p.testid("role-change-row"), "Deactivated")
	wantSignedOut(t, b.get("/"), "a deactivated account is still signed in")

	p = b.postLogin(demo.CustomerEmail, demo.CustomerPassword)
	wantStatus(t, "deactivated sign-in", p, http.StatusForbidden)
	wantText(t, "message", p.testid("form-error"), "deactivated")
	wantSessions(t, s, ada, 0)
	// A wrong password hears nothing about it.
	p = b.postLogin(demo.CustomerEmail, "not her password at all")
	wantStatus(t, "deactivated, wrong password", p, http.StatusUnprocessableEntity)
	if strings.Contains(p.body, "deactivated") {
		t.Fatal("a wrong password learnt that the account is deactivated")
	}

	owner.get("/admin/customers/" + ada)
	wantStatus(t, "reactivate", owner.post("/admin/customers/"+ada+"/reactivate", url.Values{}), http.StatusSeeOther)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
}

// The shop's only owner cannot step down or deactivate themselves; with
// htmx the refusal swaps the account section.
func TestLastOwnerCannotStepDown(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	owner := s.staff(t)
	sam := s.customerID(t, demo.StaffEmail)
	p := owner.get("/admin/customers/" + sam)
	wantText(t, "Sam's role", p.testid("customer-role"), "owner")
	if p.testid("account-deactivate").Length() != 0 {
		t.Fatal("an owner is offered to deactivate themselves")
	}
	p = owner.post("/admin/customers/"+sam+"/role", url.Values{"role": {"staff"}})
	wantStatus(t, "last owner stepping down", p, http.StatusConflict)
	wantText(t, "problem", p.testid("access-problem"), "needs an active owner")
	p = owner.post("/admin/customers/"+sam+"/deactivate", url.Values{}, "HX-Request", "true")
	wantStatus(t, "last owner deactivating themselves", p, http.StatusConflict)
	if strings.Contains(p.body, "<html") || p.testid("access-problem").Length() != 1 {
		t.Fatalf("htmx refusal: %s", trim(p.body))
	}
	if c, err := s.env.Store.Customer(context.Background(), sam); err != nil || c.Role != store.RoleOwner || c.Deactivated {
		t.Fatalf("Sam after: %+v, %v", c, err)
	}
	wantStatus(t, "the owner still in the console", owner.get("/admin"), http.StatusOK)
	wantStatus(t, "an unknown role", owner.post("/admin/customers/"+sam+"/role", url.Values{"role": {"king"}}), http.StatusBadRequest)
}

// Ada signed in from two browsers sees both sessions, this one marked;
// signing the other out ends it (its next request is a visitor's), and
// "sign out all other sessions" ends the rest.
func TestAccountSessions(t *testing.T) {
	t.Parallel()
	s := newShop(t, withoutBackgroundReads)
	ada := s.customerID(t, demo.CustomerEmail)
	laptop, desktop := s.browserAs(t, firefoxLinux), s.browserAs(t, chromeWindows)
	wantStatus(t, "a visitor's sessions page", laptop.get("/account/sessions"), http.StatusSeeOther)
	laptop.signIn(demo.CustomerEmail, demo.CustomerPassword)
	desktop.signIn(demo.CustomerEmail, demo.CustomerPassword)

	home := laptop.get("/")
	if href, _ := home.testid("nav-sessions").Attr("href"); href != "/account/sessions" {
		t.Fatalf("the nav links the sessions page at %q", href)
	}
	s.env.Counter.Reset()
	p := laptop.get("/account/sessions")
	wantStatus(t, "sessions", p, http.StatusOK)
	// The session's read and the list's Query.
	if n := s.env.Counter.Total(); n != 2 {
		t.Errorf("the sessions page made %d requests %v, want 2", n, s.env.Counter.Ops())
	}
	rows := p.testid("account-session")
	if rows.Length() != 2 {
		t.Fatalf("%d sessions listed, want 2", rows.Length())
	}
	first, second := rows.Eq(0), rows.Eq(1)
	wantText(t, "this one", first, "Firefox on Linux")
	wantText(t, "this one marked", first.Find(`[data-testid="account-session-current"]`), "this device")
	if first.Find(`[data-testid="account-session-end"]`).Length() != 0 {
		t.Fatal("this session has a sign-out button of its own")
	}
	wantText(t, "the other", second, "Chrome on Windows")
	action, _ := second.Find("form").Attr("action")
	if !strings.HasPrefix(action, "/account/sessions/") {
		t.Fatalf("the other session's form posts to %q", action)
	}
	list, err := s.env.Store.CustomerSessions(context.Background(), ada)
	if err != nil {
		t.Fatal(err)
	}
	for _, sess := range list {
		if strings.Contains(p.body, sess.ID) {
			t.Fatal("the page shows a session id")
		}
	}

	wantStatus(t, "sign the other out", laptop.post(action, url.Values{}), http.StatusSeeOther)
	wantText(t, "flash", laptop.get("/").testid("flash"), "Signed out that session")
	p = desktop.get("/orders")
	wantStatus(t, "the signed-out browser's next request", p, http.StatusSeeOther)
	wantSignedOut(t, desktop.get("/"), "the session signed out from elsewhere still works")
	wantSignedIn(t, laptop.get("/"), "signing out the other session signed this one out")
	wantSessions(t, s, ada, 1)

	// This session cannot be ended by its handle: that is Sign out.
	list, err = s.env.Store.CustomerSessions(context.Background(), ada)
	if err != nil || len(list) != 1 {
		t.Fatal(list, err)
	}
	wantStatus(t, "end this session by handle", laptop.post("/account/sessions/"+list[0].Handle()+"/end", url.Values{}), http.StatusBadRequest)
	// Another customer's handle is no session of hers.
	henrik := s.browser(t)
	henrik.signIn("henrik@fikafield.example", "customer-demo-password")
	henrik.get("/account/sessions")
	henrik.post("/account/sessions/"+list[0].Handle()+"/end", url.Values{})
	wantSignedIn(t, laptop.get("/"), "Henrik signed Ada out")

	// Two more, then all others at once.
	desktop.signIn(demo.CustomerEmail, demo.CustomerPassword)
	third := s.browser(t)
	third.signIn(demo.CustomerEmail, demo.CustomerPassword)
	p = laptop.get("/account/sessions")
	if n := p.testid("account-session").Length(); n != 3 {
		t.Fatalf("%d sessions listed, want 3", n)
	}
	wantStatus(t, "sign out all others", laptop.post("/account/sessions/end-others", url.Values{}), http.StatusSeeOther)
	p = laptop.get("/account/sessions")
	wantText(t, "flash", p.testid("flash"), "Signed out 2 sessions elsewhere")
	if p.testid("account-session").Length() != 1 || p.testid("account-sessions-only").Length() != 1 {
		t.Fatalf("after signing out the others: %s", trim(p.testid("account-sessions").Text()))
	}
	wantSignedOut(t, desktop.get("/"), "the desktop is still signed in")
	wantSignedOut(t, third.get("/"), "the third browser is still signed in")
	wantSignedIn(t, laptop.get("/"), "signing out the others signed this one out")
}

// A signed-in page view writes the session's last-seen time only when it
// is over five minutes old: browsing writes nothing, and the sessions page
// is right to a few minutes.
func TestLastSeenIsWrittenEveryFewMinutes(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ada := s.customerID(t, demo.CustomerEmail)
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	b.get("/") // the flash
	writes := func() int {
		n := 0
		for op, c := range s.env.Counter.Ops() {
			if op == "UpdateItem" || op == "PutItem" || op == "TransactWriteItems" || op == "DeleteItem" {
				n += c
			}
		}
		return n
	}
	s.env.Counter.Reset()
	b.get("/")
	b.get("/orders")
	if n := writes(); n != 0 {
		t.Fatalf("fresh session: page views wrote %d times %v", n, s.env.Counter.Ops())
	}
	list, err := s.env.Store.CustomerSessions(context.Background(), ada)
	if err != nil || len(list) != 1 {
		t.Fatal(list, err)
	}
	// Last seen six minutes ago: the next view writes it, once.
	old := time.Now().Add(-6 * time.Minute).UTC().Format("2006-01-02T15:04:05.000Z07:00")
	_, err = s.env.Client.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName: aws.String(s.env.Table),
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "session#" + list[0].ID},
			"SK": &types.AttributeValueMemberS{Value: "session#" + list[0].ID},
		},
		UpdateExpression:          aws.String("SET LastSeenAt = :t"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":t": &types.AttributeValueMemberS{Value: old}},
	})
	if err != nil {
		t.Fatal(err)
	}
	s.env.Counter.Reset()
	b.get("/")
	b.get("/orders")
	if n := writes(); n != 1 {
		t.Fatalf("a stale session: %d writes %v, want 1", n, s.env.Counter.Ops())
	}
	list, err = s.env.Store.CustomerSessions(context.Background(), ada)
	if err != nil || len(list) != 1 || time.Since(list[0].LastSeenAt) > time.Minute {
		t.Fatalf("last seen after the touch: %+v, %v", list, err)
	}
}
