package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"shop/store/demo"
)

// customerLang is the language on the record of the account with email.
func customerLang(t *testing.T, s *shop, email string) string {
	t.Helper()
	ctx := context.Background()
	cred, err := s.env.Store.CredentialsByEmail(ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.env.Store.Customer(ctx, cred.CustomerID)
	if err != nil {
		t.Fatal(err)
	}
	return c.Lang
}

func pageLang(p page) string { return p.doc.Find("html").AttrOr("lang", "") }

// The customer's language is on their record, which decides their mail:
// written at sign-up from the request's language, once when they choose
// another by link while signed in, and it follows them to a browser that
// never chose one.
func TestCustomerLanguageIsOnTheRecord(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	const email = "minji@example.com"

	b := s.browser(t)
	b.get("/signup", "Accept-Language", "ko-KR,ko;q=0.9")
	p := b.post("/signup", url.Values{"email": {email}, "name": {"Kim Minji"}, "password": {"a long enough password"}}, "Accept-Language", "ko-KR,ko;q=0.9")
	wantStatus(t, "sign up in Korean", p, http.StatusSeeOther)
	if got := customerLang(t, s, email); got != "ko" {
		t.Fatalf("signed up with Accept-Language ko: record says %q", got)
	}
	p = b.get("/account", "Accept-Language", "ko-KR,ko;q=0.9")
	wantText(t, "the welcome, in Korean", p.testid("flash"), "환영합니다")

	// Choosing Indonesian while signed in: one write to the record (and
	// the session's save, which notes it), then none on the next pages.
	s.env.Counter.Reset()
	p = b.get("/orders?lang=id")
	wantStatus(t, "orders in Indonesian", p, http.StatusOK)
	if ops := s.env.Counter.Ops(); writes(ops) != 2 || ops["UpdateItem"] != 2 {
		t.Errorf("choosing a language made %v: want the record's update and the session's", ops)
	}
	if got := customerLang(t, s, email); got != "id" {
		t.Fatalf("after ?lang=id the record says %q", got)
	}
	s.env.Counter.Reset()
	b.get("/account?lang=id")
	b.get("/orders")
	if ops := s.env.Counter.Ops(); writes(ops) != 0 {
		t.Errorf("pages after the choice made %v: want no writes", ops)
	}

	// Signed out, then in from a browser that never chose: Indonesian.
	wantStatus(t, "sign out", b.post("/logout", url.Values{}), http.StatusSeeOther)
	fresh := s.browser(t)
	p = fresh.postLogin(email, "a long enough password")
	wantStatus(t, "sign in from a fresh browser", p, http.StatusSeeOther)
	if c := p.setCookie("lang"); !strings.Contains(c, "lang=id") {
		t.Errorf("sign-in set the language cookie %q, want lang=id", c)
	}
	p = fresh.get("/account")
	if pageLang(p) != "id" {
		t.Fatalf("after sign-in the account page is in %q, want id", pageLang(p))
	}
	wantText(t, "the welcome back, in Indonesian", p.testid("flash"), "Selamat datang kembali")
	wantText(t, "the account page in Indonesian", p.doc.Find("h1"), "Akun Anda")

	// A visitor choosing a language writes nothing (no record to keep it).
	s.env.Counter.Reset()
	s.browser(t).get("/login?lang=ko")
	if ops := s.env.Counter.Ops(); writes(ops) != 0 {
		t.Errorf("a visitor choosing a language made %v", ops)
	}
}

// The account, order and sign-in pages in Korean and Indonesian: their
// words, money and dates as each language writes them.
func TestAccountPagesInKoreanAndIndonesian(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	for _, tc := range []struct {
		lang                                          string
		login, account, orders, sessions, deleteTitle string
		placed                                        string // a word of a date written the language's way
		money                                         string // how the language writes euros
	}{
		{"ko", "로그인", "내 계정", "주문 내역", "로그인되어 있는 곳", "계정 삭제", "년", "€"},
		{"id", "Masuk", "Akun Anda", "Pesanan Anda", "Tempat Anda masuk", "Hapus akun Anda", "20", ","},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			b := s.browser(t)
			p := b.get("/login?lang=" + tc.lang)
			wantStatus(t, "sign-in page", p, http.StatusOK)
			wantText(t, "sign-in button", p.testid("login-submit"), tc.login)
			p = b.post("/login", url.Values{"email": {demo.CustomerEmail}, "password": {"wrong password"}})
			if p.testid("form-error").Length() == 0 || strings.Contains(p.testid("form-error").Text(), "incorrect") {
				t.Errorf("the wrong-password error is not in %s: %q", tc.lang, p.testid("form-error").Text())
			}
			for _, path := range []string{"/signup", "/password/forgot"} {
				if p := b.get(path); pageLang(p) != tc.lang {
					t.Errorf("%s in %q", path, pageLang(p))
				}
			}
			b.signIn(demo.CustomerEmail, demo.CustomerPassword)
			// Sign-in reads the shop in the record's language (the demo's
			// Ada has English); she chooses hers again.
			b.get("/?lang=" + tc.lang)
			p = b.get("/account")
			wantText(t, "account heading", p.doc.Find("h1"), tc.account)
			if pageLang(p) != tc.lang {
				t.Fatalf("account page in %q", pageLang(p))
			}
			p = b.get("/orders")
			wantText(t, "orders heading", p.doc.Find("h1"), tc.orders)
			link, ok := p.testid("order-number").First().Attr("href")
			if !ok {
				t.Fatal("Ada has no orders")
			}
			p = b.get(link)
			wantStatus(t, "an order", p, http.StatusOK)
			wantText(t, "order placed date", p.doc.Find("hgroup"), tc.placed)
			wantText(t, "invoice total", p.testid("invoice-total"), tc.money)
			if st := p.testid("order-status").Text(); strings.Contains(st, "Delivered") || strings.Contains(st, "Shipped") {
				t.Errorf("order status in English: %q", st)
			}
			wantText(t, "sessions heading", b.get("/account/sessions").doc.Find("h1"), tc.sessions)
			wantText(t, "delete heading", b.get("/account/delete").doc.Find("h1"), tc.deleteTitle)
		})
	}
}
