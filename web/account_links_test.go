package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"shop/handlers"
	"shop/store"
	"shop/store/demo"
)

// outboxMails is the outbox's mails of kind to, newest first.
func outboxMails(t *testing.T, s *shop, kind store.MailKind, to string) []store.Mail {
	t.Helper()
	p, err := s.env.Store.Outbox(context.Background(), 100, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Mail
	for _, m := range p.Items {
		if m.Kind == kind && m.To == to {
			out = append(out, m)
		}
	}
	return out
}

var mailedLink = regexp.MustCompile(`https?://[^/\s]+(/(?:password/reset|email/verify)\?t=[A-Za-z0-9_.%-]+)`)

// linkIn is the path of the link in a mail's text.
func linkIn(t *testing.T, m store.Mail) string {
	t.Helper()
	got := mailedLink.FindStringSubmatch(m.Text)
	if got == nil {
		t.Fatalf("no link in mail %s: %s", m.ID, m.Text)
	}
	return got[1]
}

// The forgotten password: the same answer for an account and for none, a
// mailed link that sets a new password once and signs every session out,
// and the old password refused after.
func TestForgotPasswordMailsALinkThatWorksOnce(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	elsewhere := s.browser(t)
	elsewhere.signIn(demo.CustomerEmail, demo.CustomerPassword)

	b := s.browser(t)
	login := b.get("/login")
	if href, _ := login.testid("forgot-link").Attr("href"); href != "/password/forgot" {
		t.Fatalf("sign-in page links %q for a forgotten password", href)
	}
	wantStatus(t, "forgot form", b.get("/password/forgot"), http.StatusOK)
	known := b.post("/password/forgot", url.Values{"email": {strings.ToUpper(demo.CustomerEmail)}})
	unknown := b.post("/password/forgot", url.Values{"email": {"nobody@example.com"}})
	wantStatus(t, "forgot, known email", known, http.StatusOK)
	wantStatus(t, "forgot, unknown email", unknown, http.StatusOK)
	says := func(p page, email string) string {
		return strings.Replace(strings.Join(strings.Fields(p.testid("forgot-sent").Text()), " "), email, "EMAIL", 1)
	}
	if a, b := says(known, strings.ToUpper(demo.CustomerEmail)), says(unknown, "nobody@example.com"); a != b || a == "" {
		t.Fatalf("the answers differ: %q and %q", a, b)
	}
	wantStatus(t, "bad email", b.post("/password/forgot", url.Values{"email": {"not an email"}}), http.StatusUnprocessableEntity)

	mails := outboxMails(t, s, store.MailPasswordReset, demo.CustomerEmail)
	if len(mails) != 1 || mails[0].Status != store.MailKept && mails[0].Status != store.MailPending {
		t.Fatalf("outbox holds %+v, want one reset mail", mails)
	}
	if n := len(outboxMails(t, s, store.MailPasswordReset, "nobody@example.com")); n != 0 {
		t.Fatalf("%d mails to an email without an account", n)
	}
	link := linkIn(t, mails[0])

	p := b.get(link)
	wantStatus(t, "reset form", p, http.StatusOK)
	wantText(t, "reset form", p.testid("reset-email"), demo.CustomerEmail)
	token, _ := p.doc.Find(`input[name="t"]`).Attr("value")
	p = b.post("/password/reset", url.Values{"t": {token}, "new_password": {"a brand new password"}, "new_password_again": {"another one entirely"}})
	wantStatus(t, "passwords differ", p, http.StatusUnprocessableEntity)
	if p.testid("error-new_password_again").Length() == 0 {
		t.Fatal("no error at the second password")
	}
	wantStatus(t, "too short", b.post("/password/reset", url.Values{"t": {token}, "new_password": {"short"}, "new_password_again": {"short"}}), http.StatusUnprocessableEntity)

	p = b.post("/password/reset", url.Values{"t": {token}, "new_password": {"a brand new password"}, "new_password_again": {"a brand new password"}})
	wantStatus(t, "reset", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); loc != "/login" {
		t.Fatalf("reset goes to %q", loc)
	}
	wantText(t, "flash", b.get("/login").testid("flash"), "new password is set")
	wantSignedOut(t, elsewhere.get("/"), "a session from before the reset is still signed in")

	// Once: the page and the form both refuse the used link.
	wantStatus(t, "used link", b.get(link), http.StatusGone)
	wantStatus(t, "used link posted", b.post("/password/reset", url.Values{"t": {token}, "new_password": {"yet another password"}, "new_password_again": {"yet another password"}}), http.StatusGone)

	wantStatus(t, "old password", b.postLogin(demo.CustomerEmail, demo.CustomerPassword), http.StatusUnprocessableEntity)
	b.signIn(demo.CustomerEmail, "a brand new password")
}

// Links that are not right get a 4xx page that says why: cut short,
// altered, signed for the other purpose, unknown, expired.
func TestBadAccountLinksAreRefusedPlainly(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	signer, err := handlers.NewLinkSigner([][]byte{keyA})
	if err != nil {
		t.Fatal(err)
	}
	ada := s.customerID(t, demo.CustomerEmail)
	cust := store.Customer{ID: ada, Email: demo.CustomerEmail}
	expired := store.NewAccountLink(store.LinkResetPassword, cust, time.Now().Add(-2*time.Hour), store.ResetLinkLife)
	if err := s.env.Store.MailAccountLink(context.Background(), expired, store.Mail{ID: "reset-expired", To: cust.Email,
		Kind: store.MailPasswordReset, CreatedAt: expired.CreatedAt, Status: store.MailPending}); err != nil {
		t.Fatal(err)
	}
	good := signer.Sign(store.LinkResetPassword, "never-mailed-secret")
	secret, sig, _ := strings.Cut(good, ".")
	for _, tc := range []struct {
		what, path string
		status     int
		says       string
	}{
		{"no token", "/password/reset", http.StatusBadRequest, "not right"},
		{"garbage", "/password/reset?t=%3Cscript%3E", http.StatusBadRequest, "not right"},
		{"no signature", "/password/reset?t=" + secret, http.StatusBadRequest, "not right"},
		{"altered secret", "/password/reset?t=x" + secret + "." + sig, http.StatusBadRequest, "not right"},
		{"altered signature", "/password/reset?t=" + secret + ".AAAA" + sig[4:], http.StatusBadRequest, "not right"},
		{"signed for verification", "/password/reset?t=" + signer.Sign(store.LinkVerifyEmail, secret), http.StatusBadRequest, "not right"},
		{"very long", "/password/reset?t=" + strings.Repeat("a", 300) + "." + sig, http.StatusBadRequest, "not right"},
		{"signed, never mailed", "/password/reset?t=" + good, http.StatusNotFound, "not one we sent"},
		{"expired", "/password/reset?t=" + signer.Sign(store.LinkResetPassword, expired.Secret), http.StatusGone, "expired"},
		{"verification, never mailed", "/email/verify?t=" + signer.Sign(store.LinkVerifyEmail, secret), http.StatusNotFound, "not one we sent"},
		{"verification, garbage", "/email/verify?t=abc.def", http.StatusBadRequest, "not right"},
	} {
		p := b.get(tc.path)
		wantStatus(t, tc.what, p, tc.status)
		if !strings.Contains(p.body, tc.says) {
			t.Errorf("%s: the page does not say %q: %s", tc.what, tc.says, trim(p.body))
		}
	}
	b.get("/password/forgot")
	p := b.post("/password/reset", url.Values{"t": {signer.Sign(store.LinkResetPassword, expired.Secret)}, "new_password": {"a brand new password"}, "new_password_again": {"a brand new password"}})
	wantStatus(t, "expired link posted", p, http.StatusGone)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword) // unchanged
}

// Reset links are limited per email, whether or not it has an account,
// with the same answer.
func TestForgotPasswordIsRateLimited(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	b.get("/password/forgot")
	for _, email := range []string{demo.CustomerEmail, "nobody@example.com"} {
		var last page
		for range 4 {
			last = b.post("/password/forgot", url.Values{"email": {email}})
		}
		wantStatus(t, "fourth link for "+email, last, http.StatusTooManyRequests)
		wantText(t, "limited", last.testid("form-error"), "Too many links")
	}
	if n := len(outboxMails(t, s, store.MailPasswordReset, demo.CustomerEmail)); n != 3 {
		t.Fatalf("%d reset mails, want 3", n)
	}
}

// A new account is mailed a verification link; the account page reminds
// until it is used, and mails it again a few times an hour; the link
// confirms once.
func TestSignUpVerifiesTheEmail(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	b.get("/signup")
	wantStatus(t, "sign up", b.post("/signup", url.Values{"email": {"grace@example.com"}, "name": {"Grace"}, "password": {"a long enough password"}}), http.StatusSeeOther)
	wantText(t, "welcome", b.get("/").testid("flash"), "mailed you a link")
	mails := outboxMails(t, s, store.MailVerifyEmail, "grace@example.com")
	if len(mails) != 1 {
		t.Fatalf("%d verification mails after sign-up", len(mails))
	}
	acc := b.get("/account")
	if acc.testid("verify-banner").Length() != 1 {
		t.Fatal("no reminder on the account page")
	}
	for i := range 3 {
		wantStatus(t, "send again", b.post("/account/verify-email", url.Values{}), http.StatusSeeOther)
		if n := len(outboxMails(t, s, store.MailVerifyEmail, "grace@example.com")); n != i+2 {
			t.Fatalf("%d verification mails after sending again %d times", n, i+1)
		}
	}
	wantStatus(t, "send again, too often", b.post("/account/verify-email", url.Values{}), http.StatusTooManyRequests)

	first := linkIn(t, mails[0]) // an older link works as well as the newest
	p := b.get(first)
	wantStatus(t, "verify page", p, http.StatusOK)
	wantText(t, "verify page", p.testid("verify-email"), "grace@example.com")
	p = b.post("/email/verify", hiddenFields(p, "verify-form"))
	wantStatus(t, "verify", p, http.StatusSeeOther)
	acc = b.get("/account")
	wantText(t, "flash", acc.testid("flash"), "is confirmed")
	if acc.testid("verify-banner").Length() != 0 {
		t.Fatal("still reminded after confirming")
	}
	wantStatus(t, "used link", b.get(first), http.StatusGone)
	wantStatus(t, "send again after", b.post("/account/verify-email", url.Values{}), http.StatusSeeOther)

	// Accounts from before verification (the demo's) are not reminded.
	other := s.browser(t)
	other.signIn(demo.CustomerEmail, demo.CustomerPassword)
	if other.get("/account").testid("verify-banner").Length() != 0 {
		t.Fatal("the demo customer is reminded to verify")
	}
}

// An order placed through checkout is confirmed by mail; staff shipping it
// mails the carrier and the tracking link.
func TestOrderMailsFromCheckoutAndShipping(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	b := s.browser(t)
	b.signIn(demo.CustomerEmail, demo.CustomerPassword)
	b.addToCart("cf-grinder", "1")
	p := s.placeOrder(t, b, b.freshCheckoutForm())
	wantStatus(t, "checkout", p, http.StatusSeeOther)
	orderID := strings.TrimPrefix(p.header.Get("Location"), "/orders/")
	placed := outboxMails(t, s, store.MailOrderPlaced, demo.CustomerEmail)
	if len(placed) != 1 || !strings.Contains(placed[0].Text, "Hand Grinder") || !strings.Contains(placed[0].Text, "/orders/"+orderID) {
		t.Fatalf("confirmations: %+v", placed)
	}

	staff := s.staff(t)
	path := "/admin/orders/" + orderID
	staff.get(path)
	wantStatus(t, "create shipments", staff.post(path+"/shipments", url.Values{"type": {"Standard"}}), http.StatusSeeOther)
	var sid string
	staff.get(path).testid("order-shipment").Each(func(_ int, a *goquerySelection) {
		if sid == "" {
			sid, _ = a.Attr("data-shipment")
		}
	})
	confirm := staff.post(path+"/shipments/"+sid, url.Values{"status": {"shipped"}, "carrier": {"ups"}, "tracking": {"1Z999AA10123456784"}, "version": {"1"}})
	wantStatus(t, "ship", staff.post(path+"/shipments/"+sid, hiddenFields(confirm, "confirm-form")), http.StatusSeeOther)
	shipped := outboxMails(t, s, store.MailOrderShipped, demo.CustomerEmail)
	if len(shipped) != 1 || !strings.Contains(shipped[0].Text, "UPS") || !strings.Contains(shipped[0].Text, "https://www.ups.com/track?tracknum=1Z999AA10123456784") {
		t.Fatalf("shipped mails: %+v", shipped)
	}
	confirm = staff.post(path+"/shipments/"+sid, url.Values{"status": {"delivered"}, "version": {"2"}})
	wantStatus(t, "deliver", staff.post(path+"/shipments/"+sid, hiddenFields(confirm, "confirm-form")), http.StatusSeeOther)
	if n := len(outboxMails(t, s, store.MailDelivered, demo.CustomerEmail)); n != 1 {
		t.Fatalf("%d delivered mails", n)
	}
}
