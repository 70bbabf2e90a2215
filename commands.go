package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	netmail "net/mail"
	"os"
	"time"

	"shop/jobs"
	"shop/store"
)

// command is one subcommand: its words, what it takes, and its own flags.
type command struct {
	name  string // its words, e.g. "jobs run"
	args  string // its positional arguments in the usage line
	about string
	// minArgs and maxArgs bound the positional arguments (-1: no limit).
	minArgs, maxArgs int
	flags            func(fs *flag.FlagSet, c *config)
}

var commands = []command{
	{name: "serve", about: "start the shop (the default)"},
	{name: "migrate", about: "create or update the table and its indexes (idempotent; never drops anything on AWS)",
		flags: func(fs *flag.FlagSet, c *config) {
			fs.BoolVar(&c.dryRun, "dry-run", false, "print what it would change, change nothing")
		}},
	{name: "healthcheck", about: "ask the shop at SHOP_ADDR for /healthz (a container's health check): exit 0 when it answers 200"},
	{name: "iam-policy", about: "print the least-privilege IAM policy (JSON) the shop needs on the table --table names",
		flags: func(fs *flag.FlagSet, c *config) {
			fs.StringVar(&c.policyRegion, "region", "", "its AWS region (default: any the caller asks for, ${aws:RequestedRegion})")
			fs.StringVar(&c.policyAccount, "account", "", "its AWS account, 12 digits (default: the caller's, ${aws:PrincipalAccount})")
		}},
	{name: "seed", about: "load the demo shop on a table that has not had it (idempotent)"},
	{name: "seed subscriptions", about: "create N customers, each with one monthly subscription due on a date (for benchmarks and checks)",
		flags: func(fs *flag.FlagSet, c *config) {
			fs.IntVar(&c.count, "count", 0, "how many customers with a subscription (required, positive)")
			fs.StringVar(&c.due, "due", "", "their next payment date, YYYY-MM-DD (required)")
			fs.IntVar(&c.declining, "declining", 0, "percent of them paying with the card that is declined")
		}},
	{name: "import-workbench", args: "FILE...", about: "write the sample items of NoSQL Workbench models", minArgs: 1, maxArgs: -1},
	{name: "jobs run", args: "reminders|payments|archive|card-refunds|ticket-stock", about: "run one job once and print its counts as JSON on the last line", minArgs: 1, maxArgs: 1,
		flags: func(fs *flag.FlagSet, c *config) {
			fs.StringVar(&c.date, "date", "", "the billing date to process, YYYY-MM-DD (default today in SHOP_TZ; never after today)")
			fs.BoolVar(&c.force, "force", false, "run without taking the lease (charges are still made exactly once)")
		}},
	{name: "customers index", about: "write every customer's finder items, by which staff find them by the start of a name or email (idempotent)"},
	{name: "cluster", about: "run replicas of the shop on one DynamoDB Local behind HAProxy on this machine (at SHOP_ADDR, loopback only); Ctrl-C stops them all",
		flags: func(fs *flag.FlagSet, c *config) {
			fs.IntVar(&c.replicas, "replicas", 3, "how many replicas, 1 to 9")
			fs.IntVar(&c.replicaPort, "replica-port", 0, "the first replica's port, the others' follow (default: the proxy's port + 1)")
			fs.IntVar(&c.enginePort, "engine-port", 0, "DynamoDB Local's port (default: a free one)")
		}},
	{name: "api-keys create", about: "add an integration (another system using the JSON API) and make its first key; the secret is the last line printed, and is not shown again (more keys: the console's API keys page)",
		flags: func(fs *flag.FlagSet, c *config) {
			fs.StringVar(&c.keyName, "name", "", "the integration's name, taken for good: 1 to 32 letters, digits, '-' and '_' (required)")
		}},
}

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
