package jobs_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	netmail "net/mail"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"shop/handlers"
	"shop/jobs"
	"shop/store"
	"shop/views/mail"
)

// A mail naming a document goes with its PDF attached, rendered as it is
// sent from what the outbox item names (never kept there); a document that
// cannot be rendered now is a failed try, and the mail goes later.
func TestDeliverPendingAttachesTheDocument(t *testing.T) {
	t.Parallel()
	now := time.Now()
	m := testMail("receipt-s1-R1", "ada@example.com", now.Add(-time.Minute))
	m.AttachReceipt = "R0000000000AA"
	env, srv, _ := newDelivery(t, m)
	if got := outboxMail(t, env, m.ID); got.AttachReceipt != m.AttachReceipt {
		t.Fatalf("the outbox keeps the attachment's receipt as %q", got.AttachReceipt)
	}
	pdf := []byte("%PDF-1.3\n% a receipt\n")
	var mu sync.Mutex
	var asked []string
	fail := true
	d := newDelivererWith(t, env.Store, srv.URL(), func(c *jobs.DeliveryConfig) {
		c.Attach = func(_ context.Context, m store.Mail) (string, []byte, error) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, m.CustomerID+"/"+m.AttachReceipt)
			if fail {
				return "", nil, errors.New("the table is slow")
			}
			return "receipt-R2026-000024.pdf", pdf, nil
		}
	})
	deliver(t, d, 0, 1)
	if n := len(srv.Received()); n != 0 {
		t.Fatalf("a mail whose PDF failed was sent (%d)", n)
	}
	mu.Lock()
	fail = false
	mu.Unlock()
	// Its next try is due later: put it back as due now.
	again := outboxMail(t, env, m.ID)
	again.NextAttemptAt = time.Time{}
	again.CreatedAt = now.Add(-time.Minute)
	again.Status = store.MailPending
	if err := env.Store.MarkMail(context.Background(), again); err != nil {
		t.Fatal(err)
	}
	deliver(t, d, 1, 0)
	got := srv.Received()
	if len(got) != 1 {
		t.Fatalf("the server received %d messages", len(got))
	}
	if len(asked) != 2 || asked[1] != "c1/R0000000000AA" {
		t.Fatalf("rendered for %v", asked)
	}
	name, body := attachmentOf(t, got[0].Data)
	if name != "receipt-R2026-000024.pdf" || !bytes.Equal(body, pdf) {
		t.Fatalf("attached %q: %q", name, body)
	}
}

// attachmentOf is the name and bytes of a message's application/pdf part.
func attachmentOf(t *testing.T, data []byte) (string, []byte) {
	t.Helper()
	msg, err := netmail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/mixed" {
		t.Fatalf("Content-Type %q, want multipart/mixed\n%s", msg.Header.Get("Content-Type"), data)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ct, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
		if ct != "application/pdf" {
			continue
		}
		_, dp, _ := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
		raw, err := io.ReadAll(part)
		if err != nil {
			t.Fatal(err)
		}
		b, err := base64.StdEncoding.DecodeString(strings.NewReplacer("\r", "", "\n", "").Replace(string(raw)))
		if err != nil {
			t.Fatalf("attachment not base64: %v", err)
		}
		return dp["filename"], b
	}
	t.Fatalf("no PDF attached:\n%s", data)
	return "", nil
}

// The order's confirmation, as checkout writes it, is sent with its
// invoice rendered for real as it goes (handlers.MailAttachment, as the
// shop configures delivery): an application/pdf part whose bytes are a PDF
// and whose text holds the order's and the invoice's numbers.
func TestDeliverPendingAttachesTheRenderedInvoice(t *testing.T) {
	t.Parallel()
	env, srv, _ := newDelivery(t)
	ctx, st := ctxT(t), env.Store
	w := store.Warehouse{ID: "w1", Name: "Main", Address: store.Address{City: "Boras", Country: "Sweden"}}
	p := store.Product{ID: "tea", Name: "Sencha tea", Category: "coffee", Price: eur(2000)}
	if err := st.PutWarehouse(ctx, w); err != nil {
		t.Fatal(err)
	}
	if err := st.PutProduct(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AdjustStock(ctx, p, w, 5, "delivery", store.Customer{ID: "staff"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateGiftCard(ctx, store.GiftCard{Code: "GIFT-MAIL-0001", Balance: eur(5000)}); err != nil {
		t.Fatal(err)
	}
	o, err := st.HoldCheckout(ctx, store.CheckoutRequest{Key: "mail-pdf", CustomerID: "ada", Buyer: store.Buyer{Name: "Ada", Email: "ada@example.com"},
		Lines: []store.CheckoutLine{{ProductID: "tea", Quantity: 1}}, GiftCardCode: "GIFT-MAIL-0001", HoldFor: 30 * time.Minute,
		ShipTo:       store.Address{Name: "Ada", Street: "Main", Number: "1", ZipCode: "11111", City: "Boras", Country: "Sweden"},
		Confirmation: mail.Links{BaseURL: "https://shop.example"}.OrderPlaced})
	if err != nil || o.Status != store.OrderPlaced {
		t.Fatalf("an order the gift card pays whole: %+v %v", o, err)
	}
	d, err := st.OrderDetails(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	inv, ok := d.Invoice()
	if !ok {
		t.Fatal("the order has no invoice")
	}
	// Written with the order, due at once.
	m := outboxMail(t, env, store.MailID("order", o.ID))
	m.CreatedAt = time.Now().Add(-time.Minute)
	if err := st.MarkMail(ctx, m); err != nil {
		t.Fatal(err)
	}
	dl := newDelivererWith(t, st, srv.URL(), func(c *jobs.DeliveryConfig) { c.Attach = handlers.MailAttachment(st) })
	deliver(t, dl, 1, 0)
	got := srv.Received()
	if len(got) != 1 {
		t.Fatalf("the server received %d messages", len(got))
	}
	name, pdf := attachmentOf(t, got[0].Data)
	if name != "invoice-"+inv.ID+".pdf" || !bytes.HasPrefix(pdf, []byte("%PDF")) {
		t.Fatalf("attached %q, starting %q", name, pdf[:min(len(pdf), 16)])
	}
	text := pdfText(t, pdf)
	for _, want := range []string{o.Label(), inv.ID, "Sencha tea", "€20.00"} {
		if !strings.Contains(text, want) {
			t.Errorf("the attached invoice lacks %q:\n%s", want, text)
		}
	}
}

// pdfText is a PDF's text as pdftotext reads it (poppler-utils), its words
// joined by single spaces.
func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Fatal("pdftotext is not installed (apt-get install poppler-utils; .ci/run installs it)")
	}
	cmd := exec.Command("pdftotext", "-layout", "-", "-")
	cmd.Stdin = bytes.NewReader(pdf)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return strings.Join(strings.Fields(string(out)), " ")
}
