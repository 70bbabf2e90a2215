package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"shop/jobs"
	"shop/store"
	"shop/store/demo"
	"shop/store/payment"
	"shop/store/storetest/paytest"
)

// outboxRow is one mail as the outbox's list shows it.
type outboxRow struct{ id, kind, subject, href string }

// outboxRows reads every page of the outbox, following "Show more".
func outboxRows(t *testing.T, staff *browser) []outboxRow {
	t.Helper()
	var rows []outboxRow
	p := staff.get("/admin/outbox")
	wantStatus(t, "outbox", p, http.StatusOK)
	for {
		p.testid("mail-row").Each(func(_ int, r *goquerySelection) {
			link := r.Find(sel("mail-link"))
			rows = append(rows, outboxRow{id: jobsAttr(r, "data-mail"), kind: squash(r.Find(sel("mail-kind")).Text()),
				subject: squash(link.Text()), href: jobsAttr(link, "href")})
		})
		more := jobsAttr(p.testid("outbox-more"), "hx-get")
		if more == "" {
			return rows
		}
		p = staff.get(more, "HX-Request", "true")
		wantStatus(t, "more of the outbox", p, http.StatusOK)
	}
}

// Every kind of mail the shop sends, made as the shop makes it (pages for
// what people do, the billing jobs for theirs), is listed in the outbox and
// opens there: its page shows its subject. So does a mail from before the
// account mails' ids lost their dot. The verification and reset links read
// from their mails' pages work, as the README says.
func TestOutboxOpensEveryKindOfMail(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx, st := context.Background(), s.env.Store
	today := st.Today()
	staff := s.staff(t)

	// Sign-up: the verification mail.
	grace, graceID := s.newCustomer(t, "Grace Outbox")
	graceEmail := "grace.outbox@example.com"

	// An order through checkout (its confirmation), shipped and delivered
	// from the console (two mails), a return received (a mail) and refunded
	// (a refund mail). A gift card pays it, so its refund goes back to the
	// gift card: a card's refund is its provider's (the test provider's
	// pages and webhook are TestCheckoutWithGiftCardAndCard's).
	if _, err := st.CreateGiftCard(ctx, store.GiftCard{Code: "GIFT-OUTBOX-01", Balance: store.Money{Amount: 50000, Currency: "EUR"}}); err != nil {
		t.Fatal(err)
	}
	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	ada.addToCart("cf-grinder", "1")
	form := ada.freshCheckoutForm()
	form.Set("giftcard", "GIFT-OUTBOX-01")
	p := s.placeOrder(t, ada, form)
	wantStatus(t, "checkout", p, http.StatusSeeOther)
	orderPath := p.header.Get("Location")
	orderID := strings.TrimPrefix(orderPath, "/orders/")
	adminOrder := "/admin/orders/" + orderID
	staff.get(adminOrder)
	wantStatus(t, "create shipments", staff.post(adminOrder+"/shipments", url.Values{"type": {"Standard"}}), http.StatusSeeOther)
	sid := jobsAttr(staff.get(adminOrder).testid("order-shipment").First(), "data-shipment")
	wantStatus(t, "ship", staff.step(adminOrder, sid, url.Values{"status": {"shipped"}, "carrier": {"ups"}, "tracking": {"1Z999AA10123456784"}}), http.StatusSeeOther)
	wantStatus(t, "deliver", staff.step(adminOrder, sid, url.Values{"status": {"delivered"}}), http.StatusSeeOther)
	p = ada.get(orderPath)
	wantStatus(t, "ask a return", ada.post(orderPath+"/returns", returnForm(p, "Arrived damaged", map[string]string{"cf-grinder": "1"})), http.StatusSeeOther)
	ret := jobsAttr(staff.get(adminOrder).testid("order-return-link"), "href")
	wantStatus(t, "receive", staff.post(ret+"/receive", url.Values{"version": {returnVersion(t, staff.get(ret), "receive-form")}}), http.StatusSeeOther)
	wantStatus(t, "inspect", staff.post(ret+"/inspect", url.Values{"version": {returnVersion(t, staff.get(ret), "inspect-form")}, "verdict-0": {"accepted"}}), http.StatusSeeOther)
	wantStatus(t, "refund the return", staff.post(ret+"/refund", url.Values{"version": {returnVersion(t, staff.get(ret), "refund-form")}, "warehouse": {"sto"}, "confirm": {"yes"}}), http.StatusSeeOther)

	// An order the customer cancels: its refund mail.
	placed := newOrderMaker(t, st).place(st, s.customerID(t, demo.CustomerEmail), line("kt-mug", 1))
	confirm := ada.get("/orders/" + placed.ID + "/cancel")
	wantStatus(t, "cancel page", confirm, http.StatusOK)
	wantStatus(t, "cancel", ada.post("/orders/"+placed.ID+"/cancel", url.Values{"key": {jobsAttr(confirm.testid("cancel-form").Find(`input[name="key"]`), "value")}}), http.StatusSeeOther)

	// A drop cancelled while Grace holds a ticket.
	d := s.openDrop(t, "Outbox drop", 2)
	wantStatus(t, "claim", grace.claim(d.ID, false), http.StatusOK)
	wantStatus(t, "cancel the drop", staff.post("/admin/drops/"+d.ID+"/cancel", url.Values{}), http.StatusSeeOther)

	// A subscription (charged on subscribing) whose receipt staff refund
	// in part; its product's price change, announced by the reminders job.
	box := s.coffeeBox(t)
	grace.subscribe(boxID, "10", "1")
	rec := s.receiptOf(t, graceID)
	receiptPath := "/admin/customers/" + graceID + "/receipts/" + rec.Number
	key := jobsAttr(staff.get(receiptPath).testid("refund-form").Find(`input[name="key"]`), "value")
	wantStatus(t, "refund the receipt", staff.post(receiptPath+"/refund", url.Values{"amount": {"1.00"}, "reason": {"Late"}, "key": {key}, "confirm": {"yes"}}), http.StatusSeeOther)
	if _, err := st.SchedulePriceChange(ctx, box, store.Money{Amount: boxPerMon + 100, Currency: "EUR"}, today.AddDate(0, 0, store.PriceNoticeDays), "staff"); err != nil {
		t.Fatal(err)
	}

	// The billing jobs' mails: a reminder with its card's warning, a
	// receipt, a declined payment, an ending subscription.
	card := func(number, expiry string) store.Card {
		return paytest.LegacyCard(t, s.env.Store, number, expiry) // as subscriptions of an older version keep it
	}
	soon := time.Date(today.Year(), today.Month()+1, 1, 0, 0, 0, 0, time.UTC) // the card pays until this month's end
	for i, sub := range []store.Subscription{
		{Card: card(payment.CardSucceeds, soon.Format("01/06")), NextPaymentDate: soon.AddDate(0, 1, 0), NextReminderDate: today},
		{Card: card(payment.CardSucceeds, "12/99"), NextPaymentDate: today, NextReminderDate: today.AddDate(0, 0, -7)},
		{Card: card(payment.CardDeclined, "12/99"), NextPaymentDate: today, NextReminderDate: today.AddDate(0, 0, -7)},
		{Card: card(payment.CardSucceeds, "12/99"), NextPaymentDate: today.AddDate(0, 0, 3), EndsOn: today},
	} {
		id := store.NewID()
		sub.ID, sub.AccountID, sub.ProductID, sub.ProductName = id, "acc"+id, "cf-light", "Archipelago Light Roast 500 g"
		sub.Email, sub.MonthlyPrice, sub.PeriodMonths, sub.PaymentDay = fmt.Sprintf("jobs%d@example.com", i), store.Money{Amount: 990, Currency: "EUR"}, 1, sub.NextPaymentDate.Day()
		sub.Status, sub.CreatedAt, sub.Version = store.SubscriptionActive, today.AddDate(0, -1, 0), 1
		if err := st.CreateSubscription(ctx, sub); err != nil {
			t.Fatal(err)
		}
	}
	runner := jobs.NewRunner(st, s.gateway, jobs.Config{Replica: "outbox-test", Concurrency: 4, Payments: payment.NewProviders(s.provider)})
	for _, job := range []string{jobs.JobReminders, jobs.JobPayments} {
		if run, err := runner.Run(ctx, job, today, jobs.TriggerStaff); err != nil {
			t.Fatalf("%s: %+v %v", job, run.Counts, err)
		}
	}

	// The password reset, last: it signs Grace out.
	reset := s.browser(t)
	reset.get("/password/forgot")
	wantStatus(t, "forgot", reset.post("/password/forgot", url.Values{"email": {graceEmail}}), http.StatusOK)

	// A verification mail of before, its id's timestamp with a dot, as
	// the table holds them.
	old := store.Mail{ID: "verify-" + graceID + "-20261128T011055.808", To: graceEmail, Kind: store.MailVerifyEmail,
		Subject: "An old verification mail", Text: "Confirm your email.", CustomerID: graceID,
		CreatedAt: time.Now().Add(-time.Hour).UTC().Truncate(time.Millisecond), Status: store.MailKept}
	if err := st.PutMail(ctx, old); err != nil {
		t.Fatal(err)
	}

	// Every kind is in the outbox; every mail opens with its subject.
	rows := outboxRows(t, staff)
	kinds := map[store.MailKind]int{}
	all, cursor := []store.Mail{}, ""
	for {
		page, err := st.Outbox(ctx, 100, cursor)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page.Items...)
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	byID := map[string]store.Mail{}
	for _, m := range all {
		byID[m.ID] = m
		kinds[m.Kind]++
		if m.ID != old.ID && !store.ValidID(m.ID) {
			t.Errorf("a new %s mail's id %q is not an id the outbox's page can have", m.Kind, m.ID)
		}
	}
	if len(rows) != len(all) {
		t.Fatalf("the outbox lists %d mails, the table holds %d", len(rows), len(all))
	}
	for _, k := range []store.MailKind{store.MailVerifyEmail, store.MailPasswordReset, store.MailOrderPlaced, store.MailOrderShipped,
		store.MailDelivered, store.MailReturnRequested, store.MailReturnReceived, store.MailRefund, store.MailDropCancelled, store.MailReceiptRefund,
		store.MailReminder, store.MailCardExpiring, store.MailPriceChange, store.MailReceipt, store.MailPaymentFailed, store.MailCancelled} {
		if kinds[k] == 0 {
			t.Errorf("no %s mail in the outbox (kinds: %v)", k, kinds)
		}
	}
	// Two refund mails: the return's (staff's words) and the cancellation's.
	if kinds[store.MailRefund] < 2 {
		t.Errorf("%d refund mails, want the return's and the cancellation's", kinds[store.MailRefund])
	}
	var verifyPage, resetPage page
	for _, r := range rows {
		m := staff.get(r.href)
		if m.status != http.StatusOK {
			t.Errorf("%s mail %s (%s): status %d: %s", r.kind, r.id, r.href, m.status, trim(m.testid("error-message").Text()))
			continue
		}
		wantText(t, "mail "+r.id, m.testid("mail-subject"), r.subject)
		switch mail := byID[r.id]; {
		case mail.To != graceEmail || mail.ID == old.ID:
		case mail.Kind == store.MailVerifyEmail:
			verifyPage = m
		case mail.Kind == store.MailPasswordReset:
			resetPage = m
		}
	}
	if verifyPage.doc == nil || resetPage.doc == nil {
		t.Fatal("no verification or reset mail opened")
	}

	// The links, as staff read them in the outbox, work.
	verify := linkInText(t, verifyPage.testid("mail-text").Text())
	p = grace.get(verify)
	wantStatus(t, "verification link", p, http.StatusOK)
	wantStatus(t, "confirm", grace.post("/email/verify", hiddenFields(p, "verify-form")), http.StatusSeeOther)
	wantText(t, "confirmed", grace.get("/account").testid("flash"), "is confirmed")

	link := linkInText(t, resetPage.testid("mail-text").Text())
	p = reset.get(link)
	wantStatus(t, "reset link", p, http.StatusOK)
	token := jobsAttr(p.doc.Find(`input[name="t"]`), "value")
	wantStatus(t, "reset", reset.post("/password/reset", url.Values{"t": {token}, "new_password": {"a brand new password"}, "new_password_again": {"a brand new password"}}), http.StatusSeeOther)
	s.browser(t).signIn(graceEmail, "a brand new password")
}

// linkInText is the path of the account link in a mail's text.
func linkInText(t *testing.T, text string) string {
	t.Helper()
	got := mailedLink.FindStringSubmatch(text)
	if got == nil {
		t.Fatalf("no link in %q", text)
	}
	return got[1]
}

// Whatever is not found under /admin (a mail, an order, a product, a page
// the console does not have) is a 404 in the console's layout, its menu
// there and its way back leading to the console; htmx gets the panel
// alone. A customer refused the console is answered in the shop's. The
// outbox's page takes the old dotted ids in their exact shape only.
func TestAdminNotFoundShowsInTheConsole(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	staff := s.staff(t)
	for _, path := range []string{
		"/admin/outbox/no-such-mail",
		"/admin/outbox/verify-06h202fx3v0yf8hz0sr0-20261128T011055.808", // the old shape: no such mail
		"/admin/outbox/verify-06h202fx3v0yf8hz0sr0-20261128T011055.80",  // nearly the old shape
		"/admin/outbox/order-06h202fx3v0yf8hz0sr0.808",
		"/admin/orders/" + store.NewID(),
		"/admin/products/no-such-product",
		"/admin/customers/" + store.NewID(),
		"/admin/no-such-page",
	} {
		p := staff.get(path)
		wantStatus(t, path, p, http.StatusNotFound)
		if p.testid("nav-console").Length() != 1 || p.testid("shop-zone").Length() != 1 || p.testid("nav-admin").Length() != 0 {
			t.Errorf("%s: the 404 is not in the console's layout: %s", path, trim(p.body))
		}
		if href := jobsAttr(p.testid("error-back"), "href"); href != "/admin" {
			t.Errorf("%s: the way back leads to %q", path, href)
		}
	}
	p := staff.get("/admin/outbox/no-such-mail", "HX-Request", "true")
	wantStatus(t, "htmx", p, http.StatusNotFound)
	if p.testid("error").Length() != 1 || p.testid("nav-console").Length() != 0 || jobsAttr(p.testid("error-back"), "href") != "/admin" {
		t.Errorf("htmx's 404: %s", trim(p.body))
	}
	wantText(t, "the mail's 404", staff.get("/admin/outbox/no-such-mail").testid("error-message"), "That mail was not found")

	ada := s.browser(t)
	ada.signIn(demo.CustomerEmail, demo.CustomerPassword)
	p = ada.get("/admin/outbox/no-such-mail")
	wantStatus(t, "a customer at the console", p, http.StatusForbidden)
	if p.testid("nav-console").Length() != 0 || jobsAttr(p.testid("error-back"), "href") != "/" {
		t.Errorf("a customer's refusal is in the console's layout: %s", trim(p.body))
	}
}
