package jobs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"mime"
	"mime/multipart"
	"net"
	netmail "net/mail"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"shop/jobs"
	"shop/store"
	"shop/store/storetest"
)

func TestParseSMTPURL(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want jobs.SMTPConfig
		err  string // a part of the error; "" for none
	}{
		{raw: "smtps://user:pass@mail.example.com:465", want: jobs.SMTPConfig{Host: "mail.example.com", Port: 465, Username: "user", Password: "pass", Security: jobs.SMTPImplicitTLS}},
		{raw: "smtps://mail.example.com", want: jobs.SMTPConfig{Host: "mail.example.com", Port: 465, Security: jobs.SMTPImplicitTLS}},
		{raw: "smtp://user:pass@mail.example.com:587", want: jobs.SMTPConfig{Host: "mail.example.com", Port: 587, Username: "user", Password: "pass", Security: jobs.SMTPStartTLS}},
		{raw: "smtp://mail.example.com", want: jobs.SMTPConfig{Host: "mail.example.com", Port: 587, Security: jobs.SMTPStartTLS}},
		{raw: "SMTP://Mail.Example.COM:2525/", want: jobs.SMTPConfig{Host: "mail.example.com", Port: 2525, Security: jobs.SMTPStartTLS}},
		{raw: "smtp://mail.example.com?starttls=required", want: jobs.SMTPConfig{Host: "mail.example.com", Port: 587, Security: jobs.SMTPStartTLS}},
		{raw: "smtp://u:p@mail.example.com:25?starttls=opportunistic", want: jobs.SMTPConfig{Host: "mail.example.com", Port: 25, Username: "u", Password: "p", Security: jobs.SMTPStartTLSOpportunistic}},
		{raw: "smtp://127.0.0.1:2525?starttls=none", want: jobs.SMTPConfig{Host: "127.0.0.1", Port: 2525, Security: jobs.SMTPNoTLS}},
		{raw: "smtp://[::1]:2525?starttls=none", want: jobs.SMTPConfig{Host: "::1", Port: 2525, Security: jobs.SMTPNoTLS}},
		{raw: "smtps://[2001:DB8::0001]", want: jobs.SMTPConfig{Host: "2001:db8::1", Port: 465, Security: jobs.SMTPImplicitTLS}},
		{raw: "  smtps://u:p@mail.example.com\n", want: jobs.SMTPConfig{Host: "mail.example.com", Port: 465, Username: "u", Password: "p", Security: jobs.SMTPImplicitTLS}},
		{raw: "smtps://apikey:p%40ss%3Aw%2Frd%25@mail.example.com", want: jobs.SMTPConfig{Host: "mail.example.com", Port: 465, Username: "apikey", Password: "p@ss:w/rd%", Security: jobs.SMTPImplicitTLS}}, // reserved characters percent-encoded
		{raw: "smtps://user@mail.example.com", want: jobs.SMTPConfig{Host: "mail.example.com", Port: 465, Username: "user", Security: jobs.SMTPImplicitTLS}},

		{raw: "", err: "empty"},
		{raw: "mail.example.com:587", err: "scheme"},
		{raw: "//mail.example.com", err: "no scheme"},
		{raw: "http://mail.example.com", err: `scheme "http" is not smtps or smtp`},
		{raw: "smtp:mail.example.com", err: "two slashes"},
		{raw: "smtp://", err: "no host"},
		{raw: "smtps://user:s3cret@:465", err: "no host"},
		{raw: "smtp://mail.example.com:0", err: "port"},
		{raw: "smtp://mail.example.com:65536", err: "port"},
		{raw: "smtp://mail.example.com:", err: "empty port"},
		{raw: "smtp://mail.example.com:abc", err: "port"},
		{raw: "smtps://user:s3cret@mail.example.com:99999", err: "port"},
		{raw: "smtps://user:s3cret@mail example.com", err: "host"},
		{raw: "smtp://mail..example.com", err: "not a host name"},
		{raw: "smtp://[fe80::1%25eth0]:25", err: "IPv6"},
		{raw: "smtp://[mail.example.com]:25", err: "host"},
		{raw: "smtp://:pass@mail.example.com", err: "empty user name"},
		{raw: "smtp://us%00er:pass@mail.example.com", err: "control character"},
		{raw: "smtp://mail.example.com/inbox", err: "path"},
		{raw: "smtp://mail.example.com#frag", err: "fragment"},
		{raw: "smtp://mail.example.com?tls=none", err: `unknown query parameter "tls"`},
		{raw: "smtp://mail.example.com?starttls=off", err: "want required, opportunistic or none"},
		{raw: "smtp://mail.example.com?starttls=none&starttls=none", err: "2 times"},
		{raw: "smtps://mail.example.com?starttls=none", err: "smtps:// is TLS from the start"},
		{raw: "smtp://mail.example.com?starttls=%zz", err: "query"},
	} {
		t.Run(tc.raw, func(t *testing.T) {
			got, err := jobs.ParseSMTPURL(tc.raw)
			if tc.err != "" {
				if err == nil {
					t.Fatalf("ParseSMTPURL(%q) = %+v, want an error with %q", tc.raw, got, tc.err)
				}
				if !strings.Contains(err.Error(), tc.err) {
					t.Errorf("ParseSMTPURL(%q): %v, want %q in it", tc.raw, err, tc.err)
				}
				if strings.Contains(err.Error(), "s3cret") {
					t.Errorf("ParseSMTPURL(%q): the error shows the password: %v", tc.raw, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseSMTPURL(%q): %v", tc.raw, err)
			}
			if got != tc.want {
				t.Errorf("ParseSMTPURL(%q) = %+v, want %+v", tc.raw, got, tc.want)
			}
			back, err := jobs.ParseSMTPURL(got.URL())
			if err != nil || back != got {
				t.Errorf("ParseSMTPURL(%q) = %+v, %v; want %+v", got.URL(), back, err, got)
			}
			if got.Password != "" && (strings.Contains(got.String(), ":"+got.Password+"@") || !strings.Contains(got.String(), ":xxxxx@")) {
				t.Errorf("String() %q shows the password", got.String())
			}
		})
	}
}

func FuzzParseSMTPURL(f *testing.F) {
	for _, s := range []string{
		"smtps://user:pass@mail.example.com:465", "smtp://user:pass@mail.example.com:587",
		"smtp://127.0.0.1:2525?starttls=none", "smtp://u@h?starttls=opportunistic", "smtps://[::1]",
		"smtp://a%40b:c%3Ad@host/", "smtp://h:", "smtp://[fe80::1%25eth0]", "smtp://h?starttls=none&x=1",
		"smtp://h:0587", "SMTPS://H", "smtp://ex%61mple.com",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		c, err := jobs.ParseSMTPURL(raw)
		if err != nil {
			return
		}
		if c.Host == "" || c.Port < 1 || c.Port > 65535 || c.Security.String() == "unknown" {
			t.Fatalf("ParseSMTPURL(%q) accepted %+v", raw, c)
		}
		canon := c.URL()
		back, err := jobs.ParseSMTPURL(canon)
		if err != nil {
			t.Fatalf("ParseSMTPURL(%q) = %+v, whose URL %q does not parse: %v", raw, c, canon, err)
		}
		if back != c {
			t.Fatalf("ParseSMTPURL(%q) = %+v, but its URL %q parses to %+v", raw, c, canon, back)
		}
		if back.URL() != canon {
			t.Fatalf("URL of %q is %q, then %q", raw, canon, back.URL())
		}
	})
}

// smtpServer is a real SMTP server on 127.0.0.1 (go-smtp) that requires
// AUTH PLAIN and records what it accepts.
type smtpServer struct {
	addr   string
	reject atomic.Bool  // refuse every RCPT TO with a 550
	rcpts  atomic.Int32 // RCPT TO commands seen, refused or not

	mu   sync.Mutex
	got  []received
	srv  *smtp.Server
	done chan struct{}
}

type received struct {
	From string
	To   []string
	Data []byte
}

const (
	smtpUser = "shop"
	smtpPass = "p@ss word"
)

// startSMTP serves on addr ("127.0.0.1:0" for any port) until the test ends.
func startSMTP(t *testing.T, addr string) *smtpServer {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s := &smtpServer{addr: l.Addr().String(), done: make(chan struct{})}
	s.srv = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &smtpSession{srv: s}, nil }))
	s.srv.Domain = "localhost"
	s.srv.AllowInsecureAuth = true
	s.srv.ReadTimeout, s.srv.WriteTimeout = 10*time.Second, 10*time.Second
	s.srv.ErrorLog = log.New(io.Discard, "", 0)
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(l)
	}()
	t.Cleanup(s.Stop)
	return s
}

// Stop closes the server and its connections.
func (s *smtpServer) Stop() {
	_ = s.srv.Close()
	<-s.done
}

// URL is the server's URL for the deliverer: no TLS, with AUTH.
func (s *smtpServer) URL() string {
	return fmt.Sprintf("smtp://%s:%s@%s?starttls=none", smtpUser, "p%40ss%20word", s.addr)
}

func (s *smtpServer) Received() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.got...)
}

type smtpSession struct {
	srv  *smtpServer
	auth bool
	from string
	to   []string
}

func (s *smtpSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *smtpSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != smtpUser || pass != smtpPass {
			return smtp.ErrAuthFailed
		}
		s.auth = true
		return nil
	}), nil
}

func (s *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	if !s.auth {
		return smtp.ErrAuthRequired
	}
	s.from = from
	return nil
}

func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.srv.rcpts.Add(1)
	if s.srv.reject.Load() {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "mailbox unavailable"}
	}
	s.to = append(s.to, to)
	return nil
}

func (s *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.srv.mu.Lock()
	defer s.srv.mu.Unlock()
	s.srv.got = append(s.srv.got, received{From: s.from, To: s.to, Data: b})
	return nil
}

func (s *smtpSession) Reset()        { s.from, s.to = "", nil }
func (s *smtpSession) Logout() error { return nil }

// parsed is a received message as a mail client shows it.
type parsed struct {
	From, To, Subject, MessageID string
	Text, HTML                   string
}

func parseMessage(t *testing.T, data []byte) parsed {
	t.Helper()
	msg, err := netmail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("read message: %v\n%s", err, data)
	}
	var dec mime.WordDecoder
	subject, err := dec.DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		t.Fatal(err)
	}
	p := parsed{From: msg.Header.Get("From"), To: msg.Header.Get("To"), Subject: subject, MessageID: msg.Header.Get("Message-ID")}
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/alternative" {
		t.Fatalf("Content-Type %q (%v), want multipart/alternative\n%s", msg.Header.Get("Content-Type"), err, data)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		part, err := mr.NextPart() // undoes quoted-printable
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(part)
		if err != nil {
			t.Fatal(err)
		}
		ct, cparams, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
		if cs := cparams["charset"]; !strings.EqualFold(cs, "utf-8") {
			t.Errorf("part %s has charset %q, want UTF-8", ct, cs)
		}
		text := strings.ReplaceAll(string(body), "\r\n", "\n")
		switch ct {
		case "text/plain":
			p.Text = text
		case "text/html":
			p.HTML = text
		default:
			t.Errorf("unexpected part %s", ct)
		}
	}
	return p
}

const mailFrom = "Fika & Field <shop@fikafield.example>"

// testMail is a pending mail created at created.
func testMail(id, to string, created time.Time) store.Mail {
	return store.Mail{
		ID: id, To: to, Kind: store.MailReceipt, Subject: "Receipt " + id + ": Kaffe – Åsa's blend",
		Text:       "Hello,\n\nWe charged €12.00 for Åsa's blend.\n\nFika & Field\n",
		HTML:       `<p>Hello,</p><p>We charged <strong>€12.00</strong> for Åsa's blend.</p><p><a href="https://shop.example/receipts/` + id + `">Receipt</a></p>`,
		CustomerID: "c1", SubscriptionID: "s1", CreatedAt: created, Status: store.MailPending,
	}
}

func newDeliverer(t *testing.T, st jobs.DeliveryStore, smtpURL string) *jobs.Deliverer {
	t.Helper()
	return newDelivererWith(t, st, smtpURL, func(*jobs.DeliveryConfig) {})
}

// newDelivererWith is newDeliverer with its configuration changed by set;
// its retries are not jittered.
func newDelivererWith(t *testing.T, st jobs.DeliveryStore, smtpURL string, set func(*jobs.DeliveryConfig)) *jobs.Deliverer {
	t.Helper()
	cfg, err := jobs.ParseSMTPURL(smtpURL)
	if err != nil {
		t.Fatal(err)
	}
	c := jobs.DeliveryConfig{From: mailFrom, SMTP: &cfg, Timeout: 5 * time.Second, Log: discardLog(), Jitter: func() float64 { return 0 }}
	set(&c)
	d, err := jobs.NewDeliverer(st, c)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// newClockedDelivery is newDelivery on a table whose clock the test moves
// (a millisecond a reading), its mails written now on that clock.
func newClockedDelivery(t *testing.T, ms ...func(now time.Time) store.Mail) (storetest.Env, *storetest.Clock, *smtpServer, *jobs.Deliverer) {
	t.Helper()
	clock := storetest.NewClock(time.Now().UTC().Truncate(time.Second), time.Millisecond)
	env := storetest.New(t, store.WithClock(clock.Now))
	srv := startSMTP(t, "127.0.0.1:0")
	for _, m := range ms {
		putMails(t, env, m(clock.Now()))
	}
	return env, clock, srv, newDeliverer(t, env.Store, srv.URL())
}

func discardLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// outboxMail reads a mail back from the outbox.
func outboxMail(t *testing.T, env storetest.Env, id string) store.Mail {
	t.Helper()
	p, err := env.Store.Outbox(ctxT(t), 100, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range p.Items {
		if m.ID == id {
			return m
		}
	}
	t.Fatalf("mail %s is not in the outbox", id)
	return store.Mail{}
}

func pendingIDs(t *testing.T, env storetest.Env) []string {
	t.Helper()
	ms, err := env.Store.PendingMail(ctxT(t), 50)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	return ids
}

func putMails(t *testing.T, env storetest.Env, ms ...store.Mail) {
	t.Helper()
	for _, m := range ms {
		if err := env.Store.PutMail(ctxT(t), m); err != nil {
			t.Fatal(err)
		}
	}
}

func deliver(t *testing.T, d *jobs.Deliverer, wantSent, wantFailed int) {
	t.Helper()
	sent, failed, err := d.DeliverPending(ctxT(t))
	if err != nil || sent != wantSent || failed != wantFailed {
		t.Fatalf("DeliverPending = %d sent, %d failed, %v; want %d, %d, nil", sent, failed, err, wantSent, wantFailed)
	}
}

// newDelivery is a fresh table holding ms and a deliverer sending them to
// a test SMTP server of its own.
func newDelivery(t *testing.T, ms ...store.Mail) (storetest.Env, *smtpServer, *jobs.Deliverer) {
	t.Helper()
	env := storetest.New(t)
	srv := startSMTP(t, "127.0.0.1:0")
	putMails(t, env, ms...)
	return env, srv, newDeliverer(t, env.Store, srv.URL())
}

func TestDeliverPendingSendsTextAndHTML(t *testing.T) {
	t.Parallel()
	now := time.Now()
	a := testMail("receipt-s1-R1", "ada@example.com", now.Add(-2*time.Minute))
	b := testMail("reminder-s2-2026-05-01", "Bea Berg <bea@example.org>", now.Add(-time.Minute))
	env, srv, d := newDelivery(t, a, b)

	deliver(t, d, 2, 0)

	got := srv.Received()
	if len(got) != 2 {
		t.Fatalf("the server received %d messages, want 2", len(got))
	}
	for i, want := range []struct {
		m    store.Mail
		rcpt string
	}{{a, "ada@example.com"}, {b, "bea@example.org"}} { // oldest first
		r := got[i]
		if r.From != "shop@fikafield.example" || len(r.To) != 1 || r.To[0] != want.rcpt {
			t.Errorf("message %d: envelope from %q to %q, want shop@fikafield.example to %q", i, r.From, r.To, want.rcpt)
		}
		p := parseMessage(t, r.Data)
		if p.Subject != want.m.Subject {
			t.Errorf("message %d: subject %q, want %q", i, p.Subject, want.m.Subject)
		}
		if from, err := netmail.ParseAddress(p.From); err != nil || from.Name != "Fika & Field" || from.Address != "shop@fikafield.example" {
			t.Errorf("message %d: From %q (%v)", i, p.From, err)
		}
		if to, err := netmail.ParseAddress(p.To); err != nil || to.Address != want.rcpt {
			t.Errorf("message %d: To %q (%v), want %s", i, p.To, err, want.rcpt)
		}
		if p.MessageID != "<outbox-"+want.m.ID+"@fikafield.example>" {
			t.Errorf("message %d: Message-ID %q, want it made of %s and the sender's domain", i, p.MessageID, want.m.ID)
		}
		if strings.TrimRight(p.Text, "\n") != strings.TrimRight(want.m.Text, "\n") {
			t.Errorf("message %d: text part\n%q\nwant\n%q", i, p.Text, want.m.Text)
		}
		if strings.TrimRight(p.HTML, "\n") != want.m.HTML {
			t.Errorf("message %d: HTML part\n%q\nwant\n%q", i, p.HTML, want.m.HTML)
		}
	}

	for _, m := range []store.Mail{a, b} {
		o := outboxMail(t, env, m.ID)
		if o.Status != store.MailSent || o.SentAt.IsZero() || o.Attempts != 1 || o.LastError != "" {
			t.Errorf("%s in the outbox: status %s, sent at %v, %d attempts, error %q; want sent now after 1 attempt", m.ID, o.Status, o.SentAt, o.Attempts, o.LastError)
		}
	}
	if ids := pendingIDs(t, env); len(ids) != 0 {
		t.Errorf("still pending after delivery: %v", ids)
	}
	deliver(t, d, 0, 0)
	if n := len(srv.Received()); n != 2 {
		t.Errorf("a second delivery sent again: %d messages in all", n)
	}
}

func TestDeliverPendingRetriesRejectedMail(t *testing.T) {
	t.Parallel()
	var m store.Mail
	env, clock, srv, d := newClockedDelivery(t, func(now time.Time) store.Mail {
		m = testMail("payfail-s1-2026-05-01-a1", "ada@example.com", now)
		return m
	})
	srv.reject.Store(true)

	deliver(t, d, 0, 1)
	o := outboxMail(t, env, m.ID)
	if o.Status != store.MailFailed || o.Attempts != 1 || !strings.Contains(o.LastError, "550") || !strings.Contains(o.LastError, "mailbox unavailable") {
		t.Errorf("after a refused RCPT: status %s, %d attempts, error %q; want failed, 1, the server's 550", o.Status, o.Attempts, o.LastError)
	}
	if wait := o.NextAttemptAt.Sub(m.CreatedAt); wait < time.Minute || wait > time.Minute+time.Second {
		t.Errorf("next attempt %v after the mail was written, want a minute", wait)
	}
	if ids := pendingIDs(t, env); len(ids) != 0 {
		t.Errorf("due a moment after a refusal: %v, want none until its next attempt", ids)
	}
	if n := len(srv.Received()); n != 0 {
		t.Fatalf("the server took %d messages while refusing", n)
	}

	srv.reject.Store(false)
	clock.Set(o.NextAttemptAt.Add(time.Millisecond))
	if ids := pendingIDs(t, env); len(ids) != 1 || ids[0] != m.ID {
		t.Errorf("due at its next attempt: %v, want [%s]", ids, m.ID)
	}
	deliver(t, d, 1, 0)
	o = outboxMail(t, env, m.ID)
	if o.Status != store.MailSent || o.Attempts != 2 || o.SentAt.IsZero() || o.LastError != "" || !o.NextAttemptAt.IsZero() {
		t.Errorf("after the retry: status %s, %d attempts, sent at %v, error %q, next %v; want sent on attempt 2", o.Status, o.Attempts, o.SentAt, o.LastError, o.NextAttemptAt)
	}
	if ids := pendingIDs(t, env); len(ids) != 0 {
		t.Errorf("still pending after the retry: %v", ids)
	}
	if n := len(srv.Received()); n != 1 {
		t.Errorf("the server received %d messages, want 1", n)
	}
}

// A server that refuses a mail three times, then takes it: each retry
// waits its backoff (1, 2, 4 minutes); no deliverer, this one or another
// replica's, tries it before its time.
func TestDeliverPendingBacksOffUntilTheServerTakesIt(t *testing.T) {
	t.Parallel()
	var m store.Mail
	env, clock, srv, d := newClockedDelivery(t, func(now time.Time) store.Mail {
		m = testMail("receipt-s1-R7", "ada@example.com", now)
		return m
	})
	other := newDelivererWith(t, env.Store, srv.URL(), func(c *jobs.DeliveryConfig) { c.Replica = "other" })
	srv.reject.Store(true)

	deliver(t, d, 0, 1)
	for i, wait := range []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute} {
		o := outboxMail(t, env, m.ID)
		if o.Status != store.MailFailed || o.Attempts != i+1 {
			t.Fatalf("after try %d: %s, %d attempts", i+1, o.Status, o.Attempts)
		}
		last := clock.Now()
		if got := o.NextAttemptAt.Sub(last); got > wait || got < wait-time.Second {
			t.Errorf("after try %d: next in %v, want %v", i+1, got, wait)
		}
		clock.Set(o.NextAttemptAt.Add(-time.Second)) // a second early
		tries := srv.rcpts.Load()
		deliver(t, d, 0, 0)
		deliver(t, other, 0, 0)
		if srv.rcpts.Load() != tries {
			t.Fatalf("after try %d: tried again before its next attempt", i+1)
		}
		clock.Set(o.NextAttemptAt.Add(time.Millisecond))
		if i == 2 {
			srv.reject.Store(false)
			deliver(t, other, 1, 0) // any replica's deliverer, once it is due
			break
		}
		deliver(t, d, 0, 1)
	}
	o := outboxMail(t, env, m.ID)
	if o.Status != store.MailSent || o.Attempts != 4 || len(srv.Received()) != 1 {
		t.Errorf("once taken: %s after %d attempts, %d messages received; want sent on the 4th, once", o.Status, o.Attempts, len(srv.Received()))
	}
}

func TestRetryDelay(t *testing.T) {
	for _, c := range []struct {
		attempts int
		jitter   float64
		want     time.Duration
	}{
		{0, 0, time.Minute},
		{1, 0, time.Minute},
		{2, 0, 2 * time.Minute},
		{3, 0, 4 * time.Minute},
		{4, 0, 8 * time.Minute},
		{5, 0, 16 * time.Minute},
		{6, 0, 32 * time.Minute},
		{7, 0, time.Hour}, // 64 minutes, capped
		{8, 0, time.Hour},
		{30, 0, time.Hour},
		{1000, 0, time.Hour},
		{1, 0.5, 52*time.Second + 500*time.Millisecond}, // up to a quarter off
		{3, 0.999999, 3 * time.Minute},                  // a quarter off 4 minutes, all but

		{8, 0.5, 52*time.Minute + 30*time.Second},
		{2, -1, 2 * time.Minute}, // out of range: clamped
		{2, 2, 90 * time.Second},
	} {
		got := jobs.RetryDelay(c.attempts, c.jitter)
		if d := got - c.want; d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("RetryDelay(%d, %v) = %v, want %v", c.attempts, c.jitter, got, c.want)
		}
	}
	// Without jitter, the 30 tries of a mail refused every time span
	// about the 24 hours after which it is given up.
	var total time.Duration
	for n := 1; n < 30; n++ {
		total += jobs.RetryDelay(n, 0)
	}
	if total < 23*time.Hour || total > 25*time.Hour {
		t.Errorf("30 tries span %v, want about a day", total)
	}
}

// Not parallel: the port it frees must stay free until the server takes
// it, and tests of its own package listening meanwhile could get it.
func TestDeliverPendingServerDown(t *testing.T) {
	clock := storetest.NewClock(time.Now().UTC(), time.Millisecond)
	env := storetest.New(t, store.WithClock(clock.Now))
	// A port nobody listens on, until the server starts there.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	a := testMail("receipt-s1-R1", "ada@example.com", clock.Now().Add(-time.Minute))
	b := testMail("receipt-s2-R2", "bea@example.org", clock.Now())
	putMails(t, env, a, b)
	d := newDeliverer(t, env.Store, fmt.Sprintf("smtp://%s:%s@%s?starttls=none", smtpUser, "p%40ss%20word", addr))

	deliver(t, d, 0, 2) // refused: not an error of the call
	for _, m := range []store.Mail{a, b} {
		o := outboxMail(t, env, m.ID)
		if o.Status != store.MailFailed || o.Attempts != 1 || !strings.Contains(o.LastError, "connect to "+addr) || !strings.Contains(o.LastError, "refused") {
			t.Errorf("%s with the server down: status %s, %d attempts, error %q", m.ID, o.Status, o.Attempts, o.LastError)
		}
	}
	if ids := pendingIDs(t, env); len(ids) != 0 {
		t.Errorf("due right after the server was down: %v, want none until their next attempt", ids)
	}
	clock.Set(clock.Now().Add(time.Minute + time.Second))
	if ids := pendingIDs(t, env); len(ids) != 2 {
		t.Errorf("due a minute after the server was down: %v, want both", ids)
	}

	srv := startSMTP(t, addr)
	deliver(t, d, 2, 0)
	if n := len(srv.Received()); n != 2 {
		t.Errorf("the server received %d messages once up, want 2", n)
	}
	if ids := pendingIDs(t, env); len(ids) != 0 {
		t.Errorf("still pending: %v", ids)
	}
}

func TestDeliverPendingGivesUpAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	m := testMail("reminder-s1-2026-05-01", "gone@example.com", time.Now())
	m.Status, m.Attempts, m.LastError = store.MailFailed, 4, "550 earlier"
	env := storetest.New(t)
	srv := startSMTP(t, "127.0.0.1:0")
	putMails(t, env, m)
	d := newDelivererWith(t, env.Store, srv.URL(), func(c *jobs.DeliveryConfig) { c.MaxAttempts = 5 })
	srv.reject.Store(true)

	deliver(t, d, 0, 1)
	o := outboxMail(t, env, m.ID)
	if o.Status != store.MailFailedForGood || o.Attempts != 5 || !strings.Contains(o.LastError, "550") || !o.NextAttemptAt.IsZero() {
		t.Errorf("after the 5th attempt: status %s, %d attempts, error %q, next %v; want failed for good after 5", o.Status, o.Attempts, o.LastError, o.NextAttemptAt)
	}
	if ids := pendingIDs(t, env); len(ids) != 0 {
		t.Errorf("a mail failed for good is still queued: %v", ids)
	}
	srv.reject.Store(false)
	deliver(t, d, 0, 0)
	if n := len(srv.Received()); n != 0 {
		t.Errorf("a mail failed for good was sent")
	}
}

// A mail still refused a day after it was written is given up, whatever
// its count of attempts.
func TestDeliverPendingGivesUpAfterADay(t *testing.T) {
	t.Parallel()
	var m store.Mail
	env, _, srv, d := newClockedDelivery(t, func(now time.Time) store.Mail {
		m = testMail("reminder-s1-2026-05-02", "gone@example.com", now.Add(-23*time.Hour-30*time.Minute))
		m.Status, m.Attempts, m.LastError = store.MailFailed, 9, "550 earlier"
		return m
	})
	srv.reject.Store(true)
	deliver(t, d, 0, 1)
	if o := outboxMail(t, env, m.ID); o.Status != store.MailFailedForGood || o.Attempts != 10 {
		t.Errorf("refused 23.5 hours after it was written, its next try an hour on: %s after %d attempts; want failed for good", o.Status, o.Attempts)
	}
}

func TestDeliverPendingRequiresSTARTTLS(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	srv := startSMTP(t, "127.0.0.1:0") // offers no STARTTLS
	m := testMail("receipt-s1-R1", "ada@example.com", time.Now())
	putMails(t, env, m)
	d := newDeliverer(t, env.Store, fmt.Sprintf("smtp://%s:%s@%s", smtpUser, "p%40ss%20word", srv.addr))

	deliver(t, d, 0, 1)
	if o := outboxMail(t, env, m.ID); o.Status != store.MailFailed || !strings.Contains(o.LastError, "STARTTLS") {
		t.Errorf("without STARTTLS: status %s, error %q; want failed, not sent in the clear", o.Status, o.LastError)
	}
	if n := len(srv.Received()); n != 0 {
		t.Errorf("sent without TLS: %d messages", n)
	}
}

func TestDeliverPendingWaitsForLease(t *testing.T) {
	t.Parallel()
	env, srv, d := newDelivery(t, testMail("receipt-s1-R1", "ada@example.com", time.Now()))

	ctx := ctxT(t)
	other, err := env.Store.AcquireLease(ctx, jobs.LeaseMailDelivery, env.Store.Today(), "other-replica", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	deliver(t, d, 0, 0)
	if n := len(srv.Received()); n != 0 {
		t.Fatalf("sent while another replica held the lease")
	}
	if err := env.Store.ReleaseLease(ctx, other); err != nil {
		t.Fatal(err)
	}
	deliver(t, d, 1, 0)
	deliver(t, d, 0, 0) // the deliverer gave its lease back
}

func TestDeliverKeepInOutbox(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	a := testMail("receipt-s1-R1", "ada@example.com", time.Now().Add(-time.Minute))
	b := testMail("receipt-s2-R2", "bea@example.org", time.Now())
	b.Status, b.Attempts, b.LastError = store.MailFailed, 1, "earlier"
	putMails(t, env, a, b)
	d, err := jobs.NewDeliverer(env.Store, jobs.DeliveryConfig{KeepInOutbox: true, Log: discardLog()})
	if err != nil {
		t.Fatal(err)
	}
	deliver(t, d, 2, 0)
	for _, m := range []store.Mail{a, b} {
		if o := outboxMail(t, env, m.ID); o.Status != store.MailKept || !o.SentAt.IsZero() || o.Subject != m.Subject || o.HTML != m.HTML {
			t.Errorf("%s: status %s, sent at %v; want kept, as written", m.ID, o.Status, o.SentAt)
		}
	}
	if ids := pendingIDs(t, env); len(ids) != 0 {
		t.Errorf("still pending: %v", ids)
	}
	deliver(t, d, 0, 0)
}

func TestDeliverRunUntilCancelled(t *testing.T) {
	t.Parallel()
	env := storetest.New(t)
	srv := startSMTP(t, "127.0.0.1:0")
	d := newDeliverer(t, env.Store, srv.URL())
	ctx, cancel := context.WithCancel(ctxT(t))
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Run(ctx, 50*time.Millisecond)
	}()
	putMails(t, env, testMail("receipt-s1-R1", "ada@example.com", time.Now()))
	deadline := time.Now().Add(20 * time.Second)
	for len(srv.Received()) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not stop when its context was cancelled")
	}
	if n := len(srv.Received()); n != 1 {
		t.Errorf("Run delivered %d messages, want 1", n)
	}
}

func TestNewDelivererRefusesBadConfig(t *testing.T) {
	var st *store.Store // not called: the configuration is refused first
	cfg, err := jobs.ParseSMTPURL("smtp://127.0.0.1:2525?starttls=none")
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]jobs.DeliveryConfig{
		"no SMTP server": {From: mailFrom},
		"no sender":      {SMTP: &cfg},
		"bad sender":     {From: "not an address", SMTP: &cfg},
	} {
		if _, err := jobs.NewDeliverer(st, c); err == nil {
			t.Errorf("%s: NewDeliverer accepted %+v", name, c)
		}
	}
	if _, err := jobs.NewDeliverer(st, jobs.DeliveryConfig{KeepInOutbox: true}); err != nil {
		t.Errorf("KeepInOutbox needs no SMTP server nor sender: %v", err)
	}
}
