package jobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	netmail "net/mail"
	"strings"
	"time"

	mail "github.com/wneessen/go-mail"
	mailsmtp "github.com/wneessen/go-mail/smtp"

	"shop/store"
)

// DeliveryStore is what the deliverer reads and writes: the outbox's
// queue, and a lease so that one replica at a time sends.
type DeliveryStore interface {
	Now() time.Time
	Today() time.Time
	PendingMail(ctx context.Context, limit int) ([]store.Mail, error)
	MarkMail(ctx context.Context, m store.Mail) error
	AcquireLease(ctx context.Context, job string, day time.Time, owner string, ttl time.Duration) (store.Lease, error)
	RenewLease(ctx context.Context, l store.Lease, ttl time.Duration) (store.Lease, error)
	ReleaseLease(ctx context.Context, l store.Lease) error
}

// LeaseMailDelivery is the name of the lease a replica holds while it sends
// a batch of mail.
const LeaseMailDelivery = "mail-delivery"

// DeliveryConfig configures a Deliverer; zero values take the defaults.
type DeliveryConfig struct {
	// From is the sender (SHOP_MAIL_FROM), an address with or without a
	// name: "Fika & Field <shop@fikafield.example>". Required with SMTP.
	From string
	// SMTP is the server; nil with KeepInOutbox.
	SMTP *SMTPConfig
	// KeepInOutbox: no SMTP server, the outbox is the delivery. Pending
	// mails are marked kept; staff read them in the admin.
	KeepInOutbox bool

	Batch       int           // mails per DeliverPending (default 50)
	MaxAttempts int           // tries before a mail fails for good (default 30; GiveUpAfter too)
	Timeout     time.Duration // SMTP connection and command timeout (default 30 s)
	Replica     string        // this process, as the lease's owner (default a random id)
	LeaseTTL    time.Duration // the delivery lease's life; renewed at a third of it (default 1 min)
	Log         *slog.Logger  // default slog.Default()

	// A refused mail is tried again after RetryDelay (1, 2, 4 … minutes,
	// then hourly, jittered) until MaxAttempts tries or until its next try
	// would fall more than GiveUpAfter (default 24 h) after it was
	// written, whichever comes first: then it is failed for good.
	GiveUpAfter time.Duration
	// Jitter draws from [0, 1) for RetryDelay (default math/rand/v2's
	// Float64); tests fix it.
	Jitter func() float64
	// Attach renders the document a mail names (AttachOrder,
	// AttachReceipt) as a file to attach when it is sent; nil attaches
	// nothing. An error is a failed try: the mail goes again later.
	Attach func(ctx context.Context, m store.Mail) (name string, pdf []byte, err error)
}

func (c DeliveryConfig) withDefaults() DeliveryConfig {
	if c.Batch <= 0 {
		c.Batch = 50
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 30
	}
	if c.GiveUpAfter <= 0 {
		c.GiveUpAfter = 24 * time.Hour
	}
	if c.Jitter == nil {
		c.Jitter = rand.Float64
	}
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	if c.Replica == "" {
		c.Replica = "replica-" + store.NewID()
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = time.Minute
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	return c
}

// Deliverer sends the outbox's pending mails over SMTP, or with
// KeepInOutbox marks them kept.
type Deliverer struct {
	store      DeliveryStore
	cfg        DeliveryConfig
	client     *mail.Client // nil with KeepInOutbox
	fromDomain string       // for Message-IDs
}

// NewDeliverer checks the configuration and returns a Deliverer. It does
// not connect: an SMTP server that is down is a failed delivery later, not
// an error here.
func NewDeliverer(st DeliveryStore, cfg DeliveryConfig) (*Deliverer, error) {
	if st == nil {
		return nil, errors.New("mail delivery: no store")
	}
	cfg = cfg.withDefaults()
	d := &Deliverer{store: st, cfg: cfg}
	if cfg.KeepInOutbox {
		return d, nil
	}
	if cfg.SMTP == nil {
		return nil, errors.New("mail delivery: no SMTP server; configure one or keep mail in the outbox")
	}
	if cfg.From == "" {
		return nil, errors.New("mail delivery: no sender address (SHOP_MAIL_FROM)")
	}
	from, err := netmail.ParseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("mail delivery: sender %q: %w", cfg.From, err)
	}
	d.fromDomain = from.Address[strings.LastIndexByte(from.Address, '@')+1:]
	s := *cfg.SMTP
	d.cfg.SMTP = &s
	opts := []mail.Option{mail.WithPort(s.Port), mail.WithTimeout(cfg.Timeout)}
	switch s.Security {
	case SMTPImplicitTLS:
		opts = append(opts, mail.WithSSL())
	case SMTPStartTLS:
		opts = append(opts, mail.WithTLSPolicy(mail.TLSMandatory))
	case SMTPStartTLSOpportunistic:
		opts = append(opts, mail.WithTLSPolicy(mail.TLSOpportunistic))
	case SMTPNoTLS:
		opts = append(opts, mail.WithTLSPolicy(mail.NoTLS))
	default:
		return nil, fmt.Errorf("mail delivery: unknown SMTP security %d", s.Security)
	}
	if s.Username != "" {
		opts = append(opts, mail.WithUsername(s.Username), mail.WithPassword(s.Password))
		if s.Security == SMTPImplicitTLS || s.Security == SMTPStartTLS {
			// Always encrypted: the strongest mechanism the server offers.
			opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthAutoDiscover))
		} else {
			// Maybe in plain text: go-mail's PLAIN and LOGIN refuse to send
			// the password unencrypted to anything but localhost.
			opts = append(opts, mail.WithOpportunisticSMTPAuth(mail.SMTPAuthSCRAMSHA256, mail.SMTPAuthSCRAMSHA1,
				mail.SMTPAuthCramMD5, mail.SMTPAuthPlain, mail.SMTPAuthLogin))
		}
	}
	client, err := mail.NewClient(s.Host, opts...)
	if err != nil {
		return nil, fmt.Errorf("mail delivery: %w", err)
	}
	d.client = client
	return d, nil
}

// Run delivers every interval (default a minute), at once first, until ctx
// is cancelled. Failures are logged; mails that could not go stay queued.
func (d *Deliverer) Run(ctx context.Context, every time.Duration) {
	if every <= 0 {
		every = time.Minute
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		sent, failed, err := d.DeliverPending(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			d.cfg.Log.Error("mail delivery", "sent", sent, "failed", failed, "err", err)
		case sent > 0 || failed > 0:
			d.cfg.Log.Info("mail delivery", "sent", sent, "failed", failed, "kept", d.cfg.KeepInOutbox)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// DeliverPending sends up to a batch of the outbox's mails that are due,
// longest due first, and records each outcome: sent, or failed with the
// attempt counted, the error kept and its next try after RetryDelay (it
// stays queued, out of sight of every replica's deliverer until then,
// until MaxAttempts or GiveUpAfter: then it is failed for good and leaves
// the queue). An
// SMTP server that refuses or is down fails the mails, never the call: err
// is a store error. With KeepInOutbox the mails are marked kept and sent
// counts them. While another replica delivers (it holds the lease) this
// does nothing.
func (d *Deliverer) DeliverPending(ctx context.Context) (sent, failed int, err error) {
	if d.cfg.KeepInOutbox {
		return d.keepPending(ctx)
	}
	lease, err := d.store.AcquireLease(ctx, LeaseMailDelivery, d.store.Today(), d.cfg.Replica, d.cfg.LeaseTTL)
	if errors.Is(err, store.ErrLeaseHeld) || errors.Is(err, store.ErrLeaseDone) {
		d.cfg.Log.Debug("mail delivery taken by another replica", "owner", lease.Owner)
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("mail delivery lease: %w", err)
	}
	batchCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	held := make(chan store.Lease, 1)
	go func() { held <- d.holdLease(batchCtx, cancel, lease) }()

	sent, failed, err = d.sendPending(batchCtx)
	if cause := context.Cause(batchCtx); cause != nil && ctx.Err() == nil {
		d.cfg.Log.Warn("mail delivery stopped", "why", cause)
	}

	cancel(nil)
	lease = <-held
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer rcancel()
	if rerr := d.store.ReleaseLease(rctx, lease); rerr != nil && !errors.Is(rerr, store.ErrLeaseLost) {
		err = errors.Join(err, fmt.Errorf("release the mail delivery lease: %w", rerr))
	} else if ctx.Err() != nil {
		d.cfg.Log.Info("mail delivery stopped between two mails, its lease given back", "sent", sent, "failed", failed)
	}
	return sent, failed, err
}

// holdLease renews the lease until ctx ends; if it is lost, it cancels the
// batch, which stops before its next mail. It returns the last lease held.
func (d *Deliverer) holdLease(ctx context.Context, cancel context.CancelCauseFunc, lease store.Lease) store.Lease {
	t := time.NewTicker(d.cfg.LeaseTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return lease
		case <-t.C:
			l, err := d.store.RenewLease(ctx, lease, d.cfg.LeaseTTL)
			if err != nil {
				if ctx.Err() == nil {
					cancel(fmt.Errorf("renew the mail delivery lease: %w", err))
				}
				return lease
			}
			lease = l
		}
	}
}

func (d *Deliverer) sendPending(ctx context.Context) (sent, failed int, err error) {
	mails, err := d.store.PendingMail(ctx, d.cfg.Batch)
	if err != nil {
		return 0, 0, fmt.Errorf("pending mail: %w", err)
	}
	if len(mails) == 0 {
		return 0, 0, nil
	}
	// One connection for the batch. After a failed send the next mail gets
	// a fresh one; a server that cannot be reached is tried once per batch.
	var conn *mailsmtp.Client
	var connErr error
	defer func() {
		if conn != nil {
			_ = d.client.CloseWithSMTPClient(conn)
		}
	}()
	var errs []error
	for _, m := range mails {
		if ctx.Err() != nil {
			break // the caller stops, or the lease went to another replica
		}
		msg, sendErr := d.message(m)
		if sendErr == nil {
			sendErr = d.attach(ctx, msg, m)
		}
		if sendErr == nil {
			if conn == nil && connErr == nil {
				if conn, connErr = d.client.DialToSMTPClientWithContext(ctx); connErr != nil {
					if ctx.Err() != nil {
						break // cancelled while connecting: nothing was sent, nothing to record
					}
					conn, connErr = nil, fmt.Errorf("connect to %s: %w", d.cfg.SMTP.Addr(), connErr)
				}
			}
			if sendErr = connErr; sendErr == nil {
				if sendErr = d.client.SendWithSMTPClient(conn, msg); sendErr != nil {
					_ = d.client.CloseWithSMTPClient(conn)
					conn = nil
				}
			}
		}
		m = d.outcome(m, sendErr)
		// Record even when ctx ends now: a mail sent and not marked would
		// go again.
		mctx, mcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		err := d.store.MarkMail(mctx, m)
		mcancel()
		if err != nil {
			d.cfg.Log.Error("mail delivery: record the outcome", "mail", m.ID, "status", m.Status, "err", err)
			errs = append(errs, err)
			continue
		}
		if sendErr == nil {
			sent++
			continue
		}
		failed++
		d.cfg.Log.Warn("mail not delivered", "mail", m.ID, "attempts", m.Attempts, "status", m.Status, "err", sendErr)
	}
	return sent, failed, errors.Join(errs...)
}

// maxLastError bounds the error kept on a mail.
const maxLastError = 1000

// outcome is m after one delivery attempt that ended with sendErr.
func (d *Deliverer) outcome(m store.Mail, sendErr error) store.Mail {
	m.Attempts++
	if sendErr == nil {
		m.Status, m.SentAt, m.LastError, m.NextAttemptAt = store.MailSent, d.store.Now(), "", time.Time{}
		return m
	}
	m.Status, m.LastError = store.MailFailed, sendErr.Error()
	if len(m.LastError) > maxLastError {
		m.LastError = strings.ToValidUTF8(m.LastError[:maxLastError], "") + "…"
	}
	m.NextAttemptAt = d.store.Now().Add(RetryDelay(m.Attempts, d.cfg.Jitter()))
	if m.Attempts >= d.cfg.MaxAttempts || m.NextAttemptAt.After(m.CreatedAt.Add(d.cfg.GiveUpAfter)) {
		m.Status, m.NextAttemptAt = store.MailFailedForGood, time.Time{}
	}
	return m
}

// Retry delays of a refused mail: doubling from the first, at most the
// last.
const (
	firstRetryDelay = time.Minute
	maxRetryDelay   = time.Hour
)

// RetryDelay is how long a mail refused on its attempts-th try waits for
// the next: 1 minute after the first, doubling (2, 4 … 32), then an hour
// each. jitter, from [0, 1), takes up to a quarter off, so mails refused
// together (a server down for a while) do not all come back at once.
func RetryDelay(attempts int, jitter float64) time.Duration {
	wait := maxRetryDelay
	switch {
	case attempts < 1:
		wait = firstRetryDelay
	case attempts <= 7: // beyond, the doubling is past the cap
		wait = min(firstRetryDelay<<(attempts-1), maxRetryDelay)
	}
	jitter = min(max(jitter, 0), 1)
	return wait - time.Duration(jitter*float64(wait)/4)
}

// message is the MIME message of a mail: plain text with an HTML
// alternative, and a Message-ID made from the mail's id, so that a mail
// sent twice (a crash between sending and recording) is one message to
// the receiving side.
func (d *Deliverer) message(m store.Mail) (*mail.Msg, error) {
	msg := mail.NewMsg(mail.WithNoDefaultUserAgent())
	if err := msg.From(d.cfg.From); err != nil {
		return nil, fmt.Errorf("sender: %w", err)
	}
	if err := msg.To(m.To); err != nil {
		return nil, fmt.Errorf("recipient: %w", err)
	}
	msg.Subject(m.Subject)
	msg.SetMessageIDWithValue(messageID(m.ID, d.fromDomain))
	if !m.CreatedAt.IsZero() {
		msg.SetDateWithValue(m.CreatedAt)
	}
	switch {
	case m.Text != "" && m.HTML != "":
		msg.SetBodyString(mail.TypeTextPlain, m.Text)
		msg.AddAlternativeString(mail.TypeTextHTML, m.HTML)
	case m.HTML != "":
		msg.SetBodyString(mail.TypeTextHTML, m.HTML)
	default:
		msg.SetBodyString(mail.TypeTextPlain, m.Text)
	}
	return msg, nil
}

// messageID is outbox-id@domain, with the characters of id that need no
// quoting.
func messageID(id, domain string) string {
	local := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, id)
	return "outbox-" + local + "@" + domain
}

// keepPending marks a batch of pending mails kept: the outbox is the
// delivery. Marking twice does no harm, so no lease.
func (d *Deliverer) keepPending(ctx context.Context) (kept, failed int, err error) {
	mails, err := d.store.PendingMail(ctx, d.cfg.Batch)
	if err != nil {
		return 0, 0, fmt.Errorf("pending mail: %w", err)
	}
	var errs []error
	for _, m := range mails {
		m.Status, m.NextAttemptAt = store.MailKept, time.Time{}
		if err := d.store.MarkMail(ctx, m); err != nil {
			errs = append(errs, err)
			continue
		}
		kept++
	}
	return kept, 0, errors.Join(errs...)
}

// attach adds the PDF of the document the mail names, rendered now.
func (d *Deliverer) attach(ctx context.Context, msg *mail.Msg, m store.Mail) error {
	if d.cfg.Attach == nil || (m.AttachOrder == "" && m.AttachReceipt == "") {
		return nil
	}
	name, pdf, err := d.cfg.Attach(ctx, m)
	if err != nil {
		return fmt.Errorf("render the attachment of %s: %w", m.ID, err)
	}
	if len(pdf) == 0 {
		return nil // no such document (yet): the mail goes without
	}
	return msg.AttachReader(name, bytes.NewReader(pdf), mail.WithFileContentType("application/pdf"))
}
