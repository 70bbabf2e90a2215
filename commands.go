package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	netmail "net/mail"
	"os"
	"time"

	"shop/jobs"
	"shop/store"
	"shop/store/payment"
)

func (c config) mailBaseURL() string {
	if c.baseURL != "" {
		return c.baseURL
	}
	return "http://" + c.addr
}

// staffAddress is where mails to staff go: SHOP_STAFF_MAIL, else the
// sender's own address (the shop's mailbox).
func (c config) staffAddress() string {
	if c.staffMail != "" {
		return c.staffMail
	}
	if a, err := netmail.ParseAddress(c.mailFrom); err == nil {
		return a.Address
	}
	return c.mailFrom
}

// healthcheck asks the shop listening on addr for /healthz; a wildcard
// listen address is asked on loopback.
func healthcheck(ctx context.Context, addr string, out io.Writer) error {
	base, err := loopbackURL(addr)
	if err != nil {
		return usagef("healthcheck: %v", err)
	}
	url := base + "/healthz"
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %s", url, resp.Status)
	}
	_, err = fmt.Fprintf(out, "%s: %s\n", url, resp.Status)
	return err
}

// loopbackURL is the shop listening on addr as this machine reaches it: a
// wildcard listen address on loopback.
func loopbackURL(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("SHOP_ADDR %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port), nil
}

// printPlan prints what migrate would change, one step a line.
func printPlan(ctx context.Context, st *store.Store, table string, out io.Writer) error {
	plan, err := st.PlanTable(ctx)
	if err != nil {
		return err
	}
	if len(plan) == 0 {
		_, err = fmt.Fprintf(out, "table %s is up to date: migrate would change nothing\n", table)
		return err
	}
	fmt.Fprintf(out, "migrate would, on table %s:\n", table)
	for _, step := range plan {
		if _, err := fmt.Fprintf(out, "  - %s\n", step); err != nil {
			return err
		}
	}
	return nil
}

// replicaName names this process in run records and leases: SHOP_REPLICA,
// else host and process id.
func (c config) replicaName() string {
	if c.replica != "" {
		return c.replica
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("%s-%d", host, os.Getpid())
}

// runJob runs one job once and prints its counts as one JSON object on the
// last line. Without force it takes the job's lease for the date and fails
// if another holds it.
func runJob(ctx context.Context, runner *jobs.Runner, st *store.Store, job string, date time.Time, force bool, out io.Writer) error {
	var run store.JobRun
	var err error
	if force {
		fmt.Fprintf(out, "running %s for %s without the lease (--force)\n", job, store.FormatDate(date))
		run, err = runner.Run(ctx, job, date, jobs.TriggerCommandLine)
	} else {
		fmt.Fprintf(out, "running %s for %s under its lease\n", job, store.FormatDate(date))
		run, err = jobs.RunLeased(ctx, runner, st, job, date, jobs.TriggerCommandLine, nil)
		if errors.Is(err, store.ErrLeaseHeld) || errors.Is(err, store.ErrLeaseDone) {
			return fmt.Errorf("%s for %s: %w (use --force to run anyway: charges are still made once)", job, store.FormatDate(date), err)
		}
	}
	if errors.Is(err, jobs.ErrFutureDate) {
		return usagef("jobs run: %v", err)
	}
	if run.ID == "" && err != nil {
		return err
	}
	line, jerr := json.Marshal(struct {
		store.RunCounts
		Run     string  `json:"run"`
		Job     string  `json:"job"`
		Date    string  `json:"date"`
		Outcome string  `json:"outcome"`
		Seconds float64 `json:"seconds"`
	}{run.Counts, run.ID, job, store.FormatDate(date), run.Outcome, run.Duration().Seconds()})
	if jerr != nil {
		return jerr
	}
	fmt.Fprintln(out, string(line))
	return err
}

// createAPIKey adds an integration with its first key and prints the
// secret alone on the last line, for a script to take (| tail -n 1). A
// name used before, even by a revoked integration, is refused.
func createAPIKey(ctx context.Context, st *store.Store, name string, out io.Writer) error {
	_, key, secret, err := st.CreateIntegration(ctx, name)
	if errors.Is(err, store.ErrBadIntegrationName) {
		return usagef("api-keys create: --name %q: %v", name, err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Integration %q added with a key (fingerprint %s). Copy it now: it is not shown again.\n", key.Integration, key.ID[:12])
	fmt.Fprintln(out, secret)
	return nil
}

// seedSubscriptions makes count customers, each with one active monthly
// subscription to a subscribable product (made if the shop has none), due
// on the date, paid by a card the test provider saved that pays or, for the
// declining percent, one short of funds (its charges are declined). The
// cards are saved once, for one customer of the provider's that every
// seeded subscriber shares (seeded load, not people). It charges nothing
// and writes no receipts. It returns the subscribers it made.
func seedSubscriptions(ctx context.Context, st *store.Store, p *payment.TestProvider, count int, due time.Time, declining int, out io.Writer) ([]store.Subscriber, error) {
	product, err := st.FirstSubscribableProduct(ctx)
	if errors.Is(err, store.ErrNotFound) {
		product = store.Product{ID: "seed-coffee", Name: "Seeded coffee subscription", Category: "coffee",
			Price: store.Money{Amount: 1490, Currency: store.DefaultCurrency}, Subscribable: true,
			MonthlyPrice: store.Money{Amount: 1290, Currency: store.DefaultCurrency}}
		if product, err = st.CreateProduct(ctx, product); err != nil && !errors.Is(err, store.ErrConflict) {
			return nil, err
		}
		err = nil
	}
	if err != nil {
		return nil, err
	}
	ref, err := p.EnsureCustomer(ctx, payment.CustomerRequest{CustomerID: "seed", Email: "subscribers@seed.example", Name: "Seeded subscribers", Key: "seed-subscribers"})
	if err != nil {
		return nil, err
	}
	good, err := saveTestCard(ctx, p, ref, payment.CardSucceeds)
	if err != nil {
		return nil, err
	}
	bad, err := saveTestCard(ctx, p, ref, payment.CardInsufficientFunds)
	if err != nil {
		return nil, err
	}
	now := st.Now()
	var seeded []store.Subscriber
	const batch = 400
	for done := 0; done < count; {
		n := min(batch, count-done)
		subs := make([]store.Subscriber, n)
		for i := range subs {
			k := done + i
			c := store.Customer{ID: store.NewID(), Name: fmt.Sprintf("Subscriber %d", k+1), Role: store.RoleCustomer, CreatedAt: now}
			c.Email = "subscriber-" + c.ID + "@seed.example"
			card := good
			if k*100 < count*declining { // the first P percent decline
				card = bad
			}
			subs[i] = store.Subscriber{Customer: c, Subscription: store.Subscription{
				ID: store.NewID(), AccountID: c.ID, ProductID: product.ID, ProductName: product.Name, Email: c.Email,
				MonthlyPrice: product.MonthlyPrice, PeriodMonths: 1, PaymentDay: due.Day(), Status: store.SubscriptionActive,
				Card: card, NextPaymentDate: due, NextReminderDate: store.ReminderDate(due, due.AddDate(0, 0, -st.ReminderLead()), st.ReminderLead()),
				CreatedAt: now, Version: 1,
			}}
		}
		if err := st.SeedSubscribers(ctx, subs); err != nil {
			return nil, err
		}
		seeded = append(seeded, subs...)
		done += n
		fmt.Fprintf(out, "seeded %d of %d subscriptions due %s\n", done, count, store.FormatDate(due))
	}
	return seeded, nil
}

// saveTestCard saves a test card for the provider's customer ref, as its
// setup page does, and returns it as a subscription keeps it.
func saveTestCard(ctx context.Context, p *payment.TestProvider, ref, number string) (store.Card, error) {
	cs, err := p.StartCheckout(ctx, payment.CheckoutRequest{Mode: payment.ModeSetup, Amount: store.Money{Currency: store.DefaultCurrency},
		CustomerRef: ref, SuccessURL: p.BaseURL + "/subscriptions", Key: "seed-card-" + store.NewID()})
	if err != nil {
		return store.Card{}, err
	}
	if _, err := p.PayCheckout(ctx, cs.ID, payment.CardForm{Number: number, Expiry: "12/99", CVC: "123", Name: "Seeded subscriber"}); err != nil {
		return store.Card{}, fmt.Errorf("save test card: %w", err)
	}
	if cs, err = p.RetrieveCheckout(ctx, cs.ID); err != nil || cs.Card == nil {
		return store.Card{}, fmt.Errorf("save test card: %v", err)
	}
	return jobs.CardOf(*cs.Card, ref), nil
}
