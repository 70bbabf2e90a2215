package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"golang.org/x/crypto/bcrypt"

	"shop/store"
)

// A customer who forgot the password asks from the sign-in page, opens
// the link the mail holds (read from the outbox), sets a new password and
// signs in with it; the link does not work a second time. A new account
// is reminded to confirm its email until it opens its link.
func TestBrowserJourneyForgotPassword(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	const email, next = "maja@example.com", "a brand new password"
	hash, err := bcrypt.GenerateFromPassword([]byte("the forgotten one"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.env.Store.CreateCustomer(context.Background(), store.NewCustomer{Email: email, Name: "Maja Ek", PasswordHash: string(hash)}); err != nil {
		t.Fatal(err)
	}
	j := newJourney(t, s.base)
	j.do("forgot, from the sign-in page",
		chromedp.Navigate(s.base+"/login"), chromedp.WaitVisible(sel("forgot-link")),
		chromedp.Click(sel("forgot-link")), chromedp.WaitVisible(sel("forgot-form")))
	j.shot("60-forgot-password")
	j.do("ask for a link",
		chromedp.SendKeys(sel("field-email"), email),
		chromedp.Click(sel("forgot-submit")),
		chromedp.WaitVisible(sel("forgot-sent")))
	j.waitText("the answer", sel("forgot-sent"), "If "+email+" has an account here")
	j.shot("61-forgot-password-sent")

	mails := outboxMails(t, s, store.MailPasswordReset, email)
	if len(mails) != 1 {
		t.Fatalf("%d reset mails in the outbox", len(mails))
	}
	link := linkIn(t, mails[0])
	j.do("open the mailed link", chromedp.Navigate(s.base+link), chromedp.WaitVisible(sel("reset-form")))
	j.waitText("whose password", sel("reset-email"), email)
	j.shot("62-reset-password")
	j.do("passwords that differ",
		chromedp.SendKeys(sel("field-new_password"), next),
		chromedp.SendKeys(sel("field-new_password_again"), next+"!"),
		chromedp.Click(sel("reset-submit")),
		chromedp.WaitVisible(sel("error-new_password_again")))
	j.do("set the new password",
		chromedp.SendKeys(sel("field-new_password"), next),
		chromedp.SendKeys(sel("field-new_password_again"), next),
		chromedp.Click(sel("reset-submit")),
		chromedp.WaitVisible(sel("login-form")))
	j.waitText("told to sign in", sel("flash"), "new password is set")
	j.do("sign in with it",
		chromedp.SendKeys(sel("field-email"), email),
		chromedp.SendKeys(sel("field-password"), next),
		chromedp.Click(sel("login-submit")),
		chromedp.WaitVisible(sel("viewer-name")))

	j.do("the link again", chromedp.Navigate(s.base+link), chromedp.WaitVisible("main"))
	if body := j.text("main"); !strings.Contains(body, "used already") {
		t.Fatalf("the used link's page says %q", body)
	}
	j.shot("63-reset-link-used")
	j.signOut()

	j.do("sign up",
		chromedp.Navigate(s.base+"/signup"), chromedp.WaitVisible(sel("signup-form")),
		chromedp.SendKeys(sel("field-email"), "nils@example.com"),
		chromedp.SendKeys(sel("field-name"), "Nils Holm"),
		chromedp.SendKeys(sel("field-password"), "a long enough password"),
		chromedp.Click(sel("signup-submit")),
		chromedp.WaitVisible(sel("viewer-name")))
	j.do("the account reminds", chromedp.Navigate(s.base+"/account"), chromedp.WaitVisible(sel("verify-banner")))
	j.shot("64-account-verify-banner")
	verify := outboxMails(t, s, store.MailVerifyEmail, "nils@example.com")
	if len(verify) != 1 {
		t.Fatalf("%d verification mails", len(verify))
	}
	j.do("open the verification link", chromedp.Navigate(s.base+linkIn(t, verify[0])), chromedp.WaitVisible(sel("verify-form")))
	j.shot("65-verify-email")
	j.do("confirm", chromedp.Click(sel("verify-submit")), chromedp.WaitVisible(sel("account-details")))
	j.waitText("confirmed", sel("flash"), "is confirmed")
	if j.count(sel("verify-banner")) != 0 {
		t.Fatal("still reminded after confirming")
	}
}
