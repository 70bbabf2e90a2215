package stripepay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"shop/store"
	"shop/store/payment"
)

// stripe-mock is Stripe's own mock of its API: it checks every request
// against Stripe's OpenAPI description and answers with fixtures, so it
// proves the requests, not the flow (a confirmed intent still reads
// requires_payment_method). It is a tool of go.mod (go get -tool
// github.com/stripe/stripe-mock@v0.203.0): built from the module cache,
// started once per test binary by the first test that needs it, on a port
// of the system's choosing on 127.0.0.1, stopped by TestMain.
var stripeMock struct {
	once sync.Once
	cmd  *exec.Cmd
	dir  string
	url  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if stripeMock.cmd != nil {
		_ = stripeMock.cmd.Process.Kill()
		_ = stripeMock.cmd.Wait()
	}
	if stripeMock.dir != "" {
		_ = os.RemoveAll(stripeMock.dir)
	}
	os.Exit(code)
}

// stripeMockURL is the running stripe-mock's base URL.
func stripeMockURL(t *testing.T) string {
	t.Helper()
	stripeMock.once.Do(func() { stripeMock.url, stripeMock.err = startStripeMock() })
	if stripeMock.err != nil {
		t.Fatalf("stripe-mock: %v", stripeMock.err)
	}
	return stripeMock.url
}

func startStripeMock() (string, error) {
	dir, err := os.MkdirTemp("", "stripe-mock-")
	if err != nil {
		return "", err
	}
	stripeMock.dir = dir
	bin := filepath.Join(dir, "stripe-mock")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/stripe/stripe-mock").CombinedOutput(); err != nil {
		return "", fmt.Errorf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-http-addr", "127.0.0.1:0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // gone with a test binary that panics
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return "", err
	}
	stripeMock.cmd = cmd
	// It prints "Listening for HTTP at address: 127.0.0.1:PORT" once it has
	// loaded Stripe's OpenAPI description.
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "Listening for HTTP at address: "); ok {
				addr <- a
				break
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case a := <-addr:
		return "http://" + a, nil
	case <-time.After(2 * time.Minute):
		return "", errors.New("did not say where it listens within 2 minutes")
	}
}

// recorder records every request the adapter makes and Stripe's status.
type recorder struct {
	mu   sync.Mutex
	seen []string // "POST /v1/customers 200"
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(req)
	status := "no answer"
	if err == nil {
		status = fmt.Sprint(res.StatusCode)
	}
	r.mu.Lock()
	r.seen = append(r.seen, req.Method+" "+req.URL.Path+" "+status)
	r.mu.Unlock()
	return res, err
}

// Every request the adapter makes is one Stripe's API takes: stripe-mock
// answers each with 200.
func TestEveryRequestIsValidForStripesAPI(t *testing.T) {
	rec := &recorder{}
	p, err := New(Config{SecretKey: "sk_test_123", WebhookSecret: testWebhookSecret, APIURL: stripeMockURL(t),
		HTTPClient: &http.Client{Transport: rec, Timeout: 30 * time.Second}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	eur := func(a int64) store.Money { return store.Money{Amount: a, Currency: "EUR"} }
	meta := map[string]string{"order": "o_42"}

	cus, err := p.EnsureCustomer(ctx, payment.CustomerRequest{CustomerID: "c_1", Email: "ada@example.com", Name: "Ada Lovelace", Key: "c_1"})
	if err != nil || cus == "" {
		t.Fatalf("EnsureCustomer: %q, %v", cus, err)
	}
	pay, err := p.StartCheckout(ctx, payment.CheckoutRequest{Mode: payment.ModePayment, Amount: eur(4250), Description: "Order 1042",
		CustomerRef: cus, SaveCard: true, ExpiresAt: time.Now().Add(time.Hour),
		SuccessURL: "https://shop.example/checkout/o_42/paid", CancelURL: "https://shop.example/checkout/o_42", Key: "o_42", Metadata: meta})
	if err != nil || pay.ID == "" {
		t.Fatalf("StartCheckout (payment): %+v, %v", pay, err)
	}
	if _, err := p.StartCheckout(ctx, payment.CheckoutRequest{Mode: payment.ModeSetup, Amount: store.Money{Currency: "KRW"},
		CustomerRef: cus, ExpiresAt: time.Now().Add(2 * time.Hour), SuccessURL: "https://shop.example/account/cards?added=1",
		CancelURL: "https://shop.example/account/cards", Key: "card-c_1-1", Metadata: map[string]string{"subscription": "s_7"}}); err != nil {
		t.Fatalf("StartCheckout (setup): %v", err)
	}
	if _, err := p.RetrieveCheckout(ctx, pay.ID); err != nil {
		t.Fatalf("RetrieveCheckout: %v", err)
	}
	if _, err := p.ExpireCheckout(ctx, pay.ID); err != nil {
		t.Fatalf("ExpireCheckout: %v", err)
	}
	pi, err := p.CreatePayment(ctx, payment.PaymentRequest{Amount: eur(1250), CustomerRef: cus, MethodRef: "pm_card_visa",
		Description: "Coffee subscription, January", Key: "sub_1/2026-01/1", ReturnURL: "https://shop.example/account/payments", Metadata: map[string]string{"subscription": "sub_1"}})
	if err != nil || pi.ID == "" {
		t.Fatalf("CreatePayment: %+v, %v", pi, err)
	}
	// stripe-mock's intent stays requires_payment_method after any
	// confirmation: the adapter reads that as a decline.
	if _, err := p.ConfirmPayment(ctx, pi.ID); err != nil && !errors.Is(err, payment.ErrDeclined) {
		t.Fatalf("ConfirmPayment: %v", err)
	}
	if _, err := p.RetrievePayment(ctx, pi.ID); err != nil {
		t.Fatalf("RetrievePayment: %v", err)
	}
	re, err := p.Refund(ctx, payment.RefundRequest{PaymentRef: pi.ID, Amount: eur(500), Key: "refund-o_42-ret-r_7",
		Metadata: map[string]string{store.RefundMetaOrder: "o_42", store.RefundMetaRefund: "ret-r_7", store.RefundMetaKey: "refund-o_42-ret-r_7"}})
	if err != nil || re.ID == "" {
		t.Fatalf("Refund: %+v, %v", re, err)
	}
	// A refund answered pending is read again, not made again.
	if _, err := p.RetrieveRefund(ctx, re.ID); err != nil {
		t.Fatalf("RetrieveRefund: %v", err)
	}
	if err := p.DeleteCustomer(ctx, cus); err != nil {
		t.Fatalf("DeleteCustomer: %v", err)
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	routes := map[string]bool{}
	for _, s := range rec.seen {
		if !strings.HasSuffix(s, " 200") {
			t.Errorf("stripe-mock refused: %s", s)
		}
		f := strings.Fields(s)
		routes[f[0]+" "+f[1]] = true
	}
	for _, want := range []string{
		"POST /v1/customers", "DELETE /v1/customers/" + cus,
		"POST /v1/checkout/sessions", "GET /v1/checkout/sessions/" + pay.ID, "POST /v1/checkout/sessions/" + pay.ID + "/expire",
		"POST /v1/payment_intents", "GET /v1/payment_intents/" + pi.ID, "POST /v1/payment_intents/" + pi.ID + "/confirm",
		"POST /v1/refunds", "GET /v1/refunds/" + re.ID,
	} {
		if !routes[want] {
			t.Errorf("no request %s; made %v", want, rec.seen)
		}
	}
}
