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
	"strings"
	"sync"
	"testing"
	"time"

	"shop/jobs"
	"shop/store"
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
