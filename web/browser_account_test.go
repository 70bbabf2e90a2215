package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"golang.org/x/crypto/bcrypt"

	"shop/store"
)

// A customer opens their account from the name in the header, changes the
// password (a wrong current one comes back in place first), saves an
// address with a country from the list, sees the header's cart count follow
// an add without a reload, and finds the address filled in at checkout. On
// a 360 px phone the account page does not scroll sideways.
func TestBrowserJourneyAccount(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	const email, old, next = "linnea@example.com", "a long enough password", "a brand new password"
	hash, err := bcrypt.GenerateFromPassword([]byte(old), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.env.Store.CreateCustomer(context.Background(), store.NewCustomer{Email: email, Name: "Linnea Berg", PasswordHash: string(hash)}); err != nil {
		t.Fatal(err)
	}
	j := newJourney(t, s.base)
	j.signIn(email, old)
	j.openMenu()
	j.do("the name in the header opens the account", chromedp.Click(`[data-testid="nav-menu"] `+sel("viewer-name")), chromedp.WaitVisible(sel("password-form")))
	j.shot("20-account")

	j.do("a wrong current password",
		chromedp.SendKeys(sel("field-current_password"), "not the password"),
		chromedp.SendKeys(sel("field-new_password"), next),
		chromedp.SendKeys(sel("field-new_password_again"), next),
		chromedp.Click(sel("password-submit")),
		chromedp.WaitVisible(sel("error-current_password")),
	)
	if got := j.rawText(sel("error-current_password")); !strings.Contains(got, "not your current password") {
		t.Fatalf("the wrong current password says %q", got)
	}
	j.do("change the password",
		chromedp.SendKeys(sel("field-current_password"), old),
		chromedp.SendKeys(sel("field-new_password"), next),
		chromedp.SendKeys(sel("field-new_password_again"), next),
		chromedp.Click(sel("password-submit")),
		chromedp.WaitVisible(sel("flash")),
	)
	j.waitText("password changed", sel("flash"), "Password changed")

	j.do("save an address",
		chromedp.SendKeys(sel("field-street"), "Karl Johans gate"),
		chromedp.SendKeys(sel("field-number"), "22"),
		chromedp.SendKeys(sel("field-zip"), "0159"),
		chromedp.SendKeys(sel("field-city"), "Oslo"),
		chromedp.SetValue(sel("field-country"), "NO"),
		chromedp.Click(sel("address-submit")),
		chromedp.WaitVisible(sel("address-default")),
	)
	if got := j.text(sel("address")); !strings.Contains(got, "Karl Johans gate 22") || !strings.Contains(got, "Norway") {
		t.Fatalf("the saved address reads %q", got)
	}
	j.shot("21-account-address")

	j.do("add to cart", chromedp.Navigate(s.base+"/products/cf-grinder"), chromedp.WaitVisible(sel("add-submit")),
		chromedp.Click(sel("add-submit")), chromedp.WaitVisible(sel("added")))
	j.waitText("the header counts the item without a reload", "#cart-count-quick", "(1)") // beside the folded menu

	j.do("checkout", chromedp.Navigate(s.base+"/checkout"), chromedp.WaitVisible(sel("checkout-form")))
	got, err := chromedp.Run(j.ctx, chromedp.Evaluate[[]string](`['street','number','city','country'].map(f => document.querySelector('[data-testid="field-' + f + '"]').value)`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != "Karl Johans gate|22|Oslo|NO" {
		t.Fatalf("checkout is filled in with %q, want the saved address", got)
	}
	j.shot("22-checkout-filled")

	j.signOut()
	j.signIn(email, next) // the new password works

	j.phone()
	j.noSidewaysScroll("/account")
	j.shot("phone-20-account")
}
