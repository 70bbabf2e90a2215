package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"shop/store/demo"
	"shop/store/dynamolocal"
)

// shop cluster: several replicas of the shop on one DynamoDB Local, behind
// HAProxy, all on this machine's loopback: what a shop behind a load
// balancer runs, small enough to try and to check (go tool task cluster,
// cluster-check). Its files are under <data dir>/cluster.

// clusterFile is where a running cluster says what it started, for a
// check (or a person) to find the replicas, their processes and the engine.
const clusterFile = "cluster.json"

// clusterState is the content of clusterFile.
type clusterState struct {
	Proxy    string           `json:"proxy"`  // the shop's address, through HAProxy
	Engine   string           `json:"engine"` // DynamoDB Local's endpoint
	Table    string           `json:"table"`
	Admin    string           `json:"admin_socket"` // HAProxy's runtime API (enable/disable server)
	Backend  string           `json:"backend"`      // HAProxy's backend of the replicas
	Replicas []clusterReplica `json:"replicas"`
}

type clusterReplica struct {
	Name string `json:"name"` // as in its X-Shop-Replica header, job runs and leases
	URL  string `json:"url"`
	PID  int    `json:"pid"`
	Log  string `json:"log"`
}

// clusterBackend is the HAProxy backend holding the replicas.
const clusterBackend = "replicas"

// clusterOwned are the settings the cluster gives each replica itself:
// given to shop cluster, they are the cluster's, not passed on.
var clusterOwned = []string{"addr", "data-dir", "dynamodb-endpoint", "session-keys", "proxy-header", "trusted-proxies",
	"demo", "replica", "base-url", "replicas", "replica-port", "engine-port"}

// checkCluster refuses a cluster that could not run here: it listens on
// loopback only, and its ports must not collide.
func checkCluster(c config) error {
	if c.replicas < 1 || c.replicas > 9 {
		return usagef("cluster: --replicas %d: use 1 to 9", c.replicas)
	}
	if c.endpoint == "aws" {
		return usagef("cluster: it runs on this machine's DynamoDB Local (or a DYNAMODB_ENDPOINT URL), not on AWS")
	}
	host, port, err := net.SplitHostPort(c.addr)
	if err != nil {
		return usagef("cluster: SHOP_ADDR %q: %v", c.addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return usagef("cluster: SHOP_ADDR %q: the cluster listens on loopback only, e.g. 127.0.0.1:8080", c.addr)
	}
	proxy, err := strconv.Atoi(port)
	if err != nil || proxy < 1 || proxy > 65535 {
		return usagef("cluster: SHOP_ADDR %q: the port is a number from 1 to 65535", c.addr)
	}
	first := c.replicaPort
	if first == 0 {
		first = proxy + 1
	}
	last := first + c.replicas - 1
	switch {
	case first < 1 || last > 65535:
		return usagef("cluster: --replica-port %d: the replicas' ports %d to %d are not all ports", c.replicaPort, first, last)
	case proxy >= first && proxy <= last:
		return usagef("cluster: the proxy's port %d is one of the replicas' (%d to %d)", proxy, first, last)
	case c.enginePort < 0 || c.enginePort > 65535:
		return usagef("cluster: --engine-port %d: use 0 (a free port) or a port", c.enginePort)
	case c.enginePort == proxy || (c.enginePort >= first && c.enginePort <= last):
		return usagef("cluster: --engine-port %d is taken by the proxy or a replica", c.enginePort)
	}
	return nil
}

// clusterPorts are the proxy's port and the first replica's.
func clusterPorts(c config) (proxy, first int) {
	_, port, _ := net.SplitHostPort(c.addr) // checked by checkCluster
	proxy, _ = strconv.Atoi(port)
	first = c.replicaPort
	if first == 0 {
		first = proxy + 1
	}
	return proxy, first
}

// runCluster starts DynamoDB Local (unless DYNAMODB_ENDPOINT names an
// engine), loads the demo shop or migrates the table, starts the replicas
// and HAProxy in front, and runs until ctx ends, then stops them in order:
// the proxy, the replicas (SIGTERM), the engine.
func runCluster(ctx context.Context, cfg config, log *slog.Logger, out io.Writer) error {
	cl, err := newCluster(cfg, log)
	if err != nil {
		return err
	}
	endpoint := cfg.endpoint
	var engineLost <-chan error // nil with an engine elsewhere: never
	if endpoint == "" {
		engine, err := cl.startEngine(ctx)
		if err != nil {
			return err
		}
		defer cl.stopEngine(engine)
		endpoint, engineLost = engine.Watcher.Engine().Endpoint, engine.Lost
	}
	env, err := cl.replicaEnv(endpoint)
	if err != nil {
		return err
	}
	if err := cl.setUpTable(ctx, env); err != nil {
		return err
	}
	state := clusterState{Proxy: "http://" + cfg.addr, Engine: endpoint, Table: cfg.table,
		Admin: filepath.Join(cl.dir, "haproxy.sock"), Backend: clusterBackend}
	var replicas []*child
	defer func() { cl.stopReplicas(replicas) }() // those started, even when not all were
	if err := cl.startReplicas(ctx, env, &state, &replicas); err != nil {
		return err
	}
	proxy, err := cl.startProxy(ctx, state)
	if err != nil {
		return err
	}
	// SIGUSR1 is HAProxy's soft stop: it stops listening, then finishes
	// the requests under way; it goes first, before the replicas.
	defer proxy.stop(syscall.SIGUSR1, 15*time.Second, log)
	if err := waitAnswer(ctx, state.Proxy+"/healthz", 30*time.Second, proxy); err != nil {
		return fmt.Errorf("haproxy: %w (its log: %s)", err, cl.proxyLog())
	}
	if err := cl.writeState(state); err != nil {
		return err
	}
	defer os.Remove(cl.stateFile())
	cl.announce(out, state)
	return cl.watch(ctx, replicas, proxy, engineLost)
}

// cluster is a shop cluster being run: its settings, the programs it
// starts, and the directory of its files.
type cluster struct {
	cfg          config
	log          *slog.Logger
	haproxy, exe string
	dir          string // <data dir>/cluster
	logs         string // the children's logs
	// passed are the flags given to shop cluster that each child gets too.
	passed []string
}

// newCluster finds HAProxy and the shop's own binary and makes the
// cluster's directories; a state file a killed cluster left goes.
func newCluster(cfg config, log *slog.Logger) (*cluster, error) {
	cl := &cluster{cfg: cfg, log: log}
	var err error
	if cl.haproxy, err = findHAProxy(); err != nil {
		return nil, err
	}
	if cl.exe, err = os.Executable(); err != nil {
		return nil, err
	}
	if cl.dir, err = filepath.Abs(filepath.Join(cfg.dataDir, "cluster")); err != nil {
		return nil, err
	}
	cl.logs = filepath.Join(cl.dir, "logs")
	if err := os.MkdirAll(cl.logs, 0o700); err != nil {
		return nil, err
	}
	_ = os.Remove(cl.stateFile()) // a cluster that was killed left it; none is as good
	for _, f := range cfg.setFlags {
		name, _, _ := strings.Cut(strings.TrimPrefix(f, "-"), "=")
		if !slices.Contains(clusterOwned, name) {
			cl.passed = append(cl.passed, f)
		}
	}
	return cl, nil
}

func (cl *cluster) stateFile() string { return filepath.Join(cl.dir, clusterFile) }
func (cl *cluster) proxyLog() string  { return filepath.Join(cl.logs, "haproxy.log") }

// startEngine starts the cluster's DynamoDB Local. It is restarted on its
// port and data when it dies, as serve restarts its own: the replicas
// answer 503 meanwhile, and serve again once it is back. Only when it
// cannot come back does the cluster end (Lost).
func (cl *cluster) startEngine(ctx context.Context) (*dynamolocal.Serving, error) {
	started := time.Now()
	opts := dynamolocal.Options{DataDir: filepath.Join(cl.dir, "dynamodb"), Port: cl.cfg.enginePort, Log: engineLog(cl.log)}
	local, err := dynamolocal.Start(ctx, opts)
	if err != nil && ctx.Err() == nil {
		// Java on a loaded machine can miss the engine's minute to
		// listen; a second start usually makes it.
		cl.log.Warn("DynamoDB Local did not start; once more", "err", err)
		local, err = dynamolocal.Start(ctx, opts)
	}
	if err != nil {
		return nil, err
	}
	engine, err := dynamolocal.Serve(ctx, local, "", dynamolocal.WatchOptions{Log: cl.log})
	if err != nil {
		return nil, err
	}
	cl.log.Info("DynamoDB Local started", "endpoint", local.Endpoint, "took", time.Since(started).Round(time.Millisecond))
	return engine, nil
}

func (cl *cluster) stopEngine(engine *dynamolocal.Serving) {
	if err := engine.Stop(); err != nil {
		cl.log.Warn("stop DynamoDB Local", "err", err)
	}
	cl.log.Info("DynamoDB Local stopped")
}

// replicaEnv is the environment of the cluster's children: one engine,
// table and data dir, behind the proxy. Every replica signs sessions with
// the same keys: a visit signed in on one is signed in on all.
func (cl *cluster) replicaEnv(endpoint string) ([]string, error) {
	kc := cl.cfg
	kc.dataDir = cl.dir
	keys, err := sessionKeys(kc)
	if err != nil {
		return nil, err
	}
	hexKeys := make([]string, len(keys))
	for i, k := range keys {
		hexKeys[i] = hex.EncodeToString(k)
	}
	return append(os.Environ(), "DYNAMODB_ENDPOINT="+endpoint, "SHOP_DATA_DIR="+cl.dir, "SHOP_TABLE="+cl.cfg.table,
		"SHOP_SESSION_KEYS="+strings.Join(hexKeys, ","), "SHOP_PROXY_HEADER=X-Forwarded-For", "SHOP_TRUSTED_PROXIES=127.0.0.1",
		"SHOP_DEMO=false", "SHOP_BASE_URL="+cl.cfg.mailBaseURL()), nil
}

// setUpTable makes the table (and loads the demo shop) once, before any
// replica: replicas starting together would each load the demo.
func (cl *cluster) setUpTable(ctx context.Context, env []string) error {
	setup := "migrate"
	if cl.cfg.demo {
		setup = "seed"
	}
	setupLog := filepath.Join(cl.logs, "setup.log")
	began := time.Now()
	s, err := startChild(setup, setupLog, env, cl.exe, append([]string{setup}, cl.passed...)...)
	if err != nil {
		return err
	}
	select {
	case <-s.done:
	case <-ctx.Done():
		s.stop(syscall.SIGTERM, 10*time.Second, cl.log)
		return ctx.Err()
	}
	if s.err != nil {
		return fmt.Errorf("shop %s: %w (its log: %s)", setup, s.err, setupLog)
	}
	cl.log.Info("table ready", "command", setup, "took", time.Since(began).Round(time.Millisecond))
	return nil
}

// startReplicas starts the replicas, each noted in state and replicas as
// it starts (for the caller to stop those started when one fails), and
// waits until every one is ready.
func (cl *cluster) startReplicas(ctx context.Context, env []string, state *clusterState, replicas *[]*child) error {
	began := time.Now()
	_, first := clusterPorts(cl.cfg)
	for i := range cl.cfg.replicas {
		r := clusterReplica{Name: fmt.Sprintf("replica-%d", i+1), URL: fmt.Sprintf("http://127.0.0.1:%d", first+i)}
		r.Log = filepath.Join(cl.logs, r.Name+".log")
		c, err := startChild(r.Name, r.Log, append(slices.Clone(env), "SHOP_ADDR="+strings.TrimPrefix(r.URL, "http://"), "SHOP_REPLICA="+r.Name),
			cl.exe, append([]string{"serve"}, cl.passed...)...)
		if err != nil {
			return err
		}
		r.PID = c.cmd.Process.Pid
		*replicas = append(*replicas, c)
		state.Replicas = append(state.Replicas, r)
	}
	for i, r := range state.Replicas {
		if err := waitAnswer(ctx, r.URL+"/readyz", 2*time.Minute, (*replicas)[i]); err != nil {
			return fmt.Errorf("%s: %w (its log: %s)", r.Name, err, r.Log)
		}
	}
	cl.log.Info("replicas ready", "replicas", len(*replicas), "took", time.Since(began).Round(time.Millisecond))
	return nil
}

// stopReplicas stops the replicas all at once: each finishes its own
// requests.
func (cl *cluster) stopReplicas(replicas []*child) {
	for _, r := range replicas {
		r.signal(syscall.SIGTERM, cl.log)
	}
	for _, r := range replicas {
		r.waitOrKill(30*time.Second, cl.log)
	}
	cl.log.Info("replicas stopped")
}

// startProxy configures HAProxy in front of the replicas, has it check its
// configuration, and starts it.
func (cl *cluster) startProxy(ctx context.Context, state clusterState) (*child, error) {
	proxyPort, _ := clusterPorts(cl.cfg)
	cfgPath := cl.proxyConfig()
	if err := os.WriteFile(cfgPath, []byte(haproxyConfig(fmt.Sprintf("127.0.0.1:%d", proxyPort), state.Admin, state.Replicas)), 0o600); err != nil {
		return nil, err
	}
	if b, err := exec.CommandContext(ctx, cl.haproxy, "-c", "-q", "-f", cfgPath).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("haproxy refuses %s: %v\n%s", cfgPath, err, b)
	}
	return startChild("haproxy", cl.proxyLog(), os.Environ(), cl.haproxy, "-db", "-f", cfgPath)
}

func (cl *cluster) proxyConfig() string { return filepath.Join(cl.dir, "haproxy.cfg") }

// writeState writes the state file, for a check (or a person) to find the
// replicas, their processes and the engine.
func (cl *cluster) writeState(state clusterState) error {
	b, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(cl.stateFile(), b, 0o600)
}

// announce tells whoever started the cluster where it is open.
func (cl *cluster) announce(out io.Writer, state clusterState) {
	fmt.Fprintf(out, "\n  The shop is open at %s: HAProxy, round robin over %d replicas\n", state.Proxy, len(state.Replicas))
	for _, r := range state.Replicas {
		fmt.Fprintf(out, "    %-10s %s  (log %s)\n", r.Name, r.URL, r.Log)
	}
	fmt.Fprintf(out, "  DynamoDB Local: %s   HAProxy: %s\n", state.Engine, cl.proxyConfig())
	if cl.cfg.demo {
		fmt.Fprintf(out, "  Staff:    %s / %s\n  Customer: %s / %s\n", demo.StaffEmail, demo.StaffPassword, demo.CustomerEmail, demo.CustomerPassword)
	}
	fmt.Fprintf(out, "  Ctrl-C stops them all.\n\n")
}

// watch runs the cluster until ctx ends. A replica that dies is left dead
// (the proxy's health check takes it out within two seconds), as a crashed
// container would be until its orchestrator starts another; the proxy's
// end ends the cluster, and so does an engine that could not be restarted.
func (cl *cluster) watch(ctx context.Context, replicas []*child, proxy *child, engineLost <-chan error) error {
	exits := make(chan *child, len(replicas))
	for _, r := range replicas {
		go func() {
			<-r.done
			exits <- r
		}()
	}
	for alive := len(replicas); ; {
		select {
		case <-ctx.Done():
			cl.log.Info("stopping the cluster")
			return nil
		case <-proxy.done:
			return fmt.Errorf("haproxy exited: %v (its log: %s)", proxy.err, cl.proxyLog())
		case err := <-engineLost:
			// Every replica would answer 503 for good: stop.
			return fmt.Errorf("DynamoDB Local could not be restarted: %w", err)
		case r := <-exits:
			cl.log.Warn("replica exited; the proxy sends its requests to the others", "replica", r.name, "err", r.err)
			if alive--; alive == 0 {
				return errors.New("every replica exited")
			}
		}
	}
}

// validReplicaName: a replica's name goes into a header and log lines.
func validReplicaName(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// waitAnswer polls url until it answers 200, the process exits, or within
// passes.
func waitAnswer(ctx context.Context, url string, within time.Duration, c *child) error {
	end := time.Now().Add(within)
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("answered %s", resp.Status)
		}
		if c.exited() {
			return fmt.Errorf("exited before %s answered: %v", url, c.err)
		}
		if time.Now().After(end) {
			return fmt.Errorf("%s did not answer within %s: %v", url, within, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
