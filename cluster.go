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
	haproxy, err := findHAProxy()
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(filepath.Join(cfg.dataDir, "cluster"))
	if err != nil {
		return err
	}
	logs := filepath.Join(dir, "logs")
	if err := os.MkdirAll(logs, 0o700); err != nil {
		return err
	}
	stateFile := filepath.Join(dir, clusterFile)
	_ = os.Remove(stateFile) // a cluster that was killed left it

	endpoint := cfg.endpoint
	var engineLost <-chan error // nil with an engine elsewhere: never
	if endpoint == "" {
		started := time.Now()
		opts := dynamolocal.Options{DataDir: filepath.Join(dir, "dynamodb"), Port: cfg.enginePort, Log: engineLog(log)}
		local, err := dynamolocal.Start(ctx, opts)
		if err != nil && ctx.Err() == nil {
			// Java on a loaded machine can miss the engine's minute to
			// listen; a second start usually makes it.
			log.Warn("DynamoDB Local did not start; once more", "err", err)
			local, err = dynamolocal.Start(ctx, opts)
		}
		if err != nil {
			return err
		}
		// The engine is restarted on its port and data when it dies, as
		// serve restarts its own: the replicas answer 503 meanwhile, and
		// serve again once it is back. Only when it cannot come back does
		// the cluster end.
		watcher := dynamolocal.Watch(local, dynamolocal.WatchOptions{Log: log})
		watchCtx, stopWatching := context.WithCancel(context.WithoutCancel(ctx))
		lost := make(chan error, 1)
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			if err := watcher.Run(watchCtx); err != nil {
				lost <- err
			}
		}()
		engineLost = lost
		defer func() {
			stopWatching()
			<-watched
			if err := watcher.Stop(); err != nil {
				log.Warn("stop DynamoDB Local", "err", err)
			}
			log.Info("DynamoDB Local stopped")
		}()
		log.Info("DynamoDB Local started", "endpoint", local.Endpoint, "took", time.Since(started).Round(time.Millisecond))
		endpoint = local.Endpoint
	}

	// Every replica signs sessions with the same keys: a visit signed in on
	// one is signed in on all.
	kc := cfg
	kc.dataDir = dir
	keys, err := sessionKeys(kc)
	if err != nil {
		return err
	}
	hexKeys := make([]string, len(keys))
	for i, k := range keys {
		hexKeys[i] = hex.EncodeToString(k)
	}
	var passed []string
	for _, f := range cfg.setFlags {
		name, _, _ := strings.Cut(strings.TrimPrefix(f, "-"), "=")
		if !slices.Contains(clusterOwned, name) {
			passed = append(passed, f)
		}
	}
	env := append(os.Environ(), "DYNAMODB_ENDPOINT="+endpoint, "SHOP_DATA_DIR="+dir, "SHOP_TABLE="+cfg.table,
		"SHOP_SESSION_KEYS="+strings.Join(hexKeys, ","), "SHOP_PROXY_HEADER=X-Forwarded-For", "SHOP_TRUSTED_PROXIES=127.0.0.1",
		"SHOP_DEMO=false", "SHOP_BASE_URL="+cfg.mailBaseURL())

	// The table (and the demo shop) once, before any replica: replicas
	// starting together would each load the demo.
	setup := "migrate"
	if cfg.demo {
		setup = "seed"
	}
	setupLog := filepath.Join(logs, "setup.log")
	began := time.Now()
	s, err := startChild(setup, setupLog, env, exe, append([]string{setup}, passed...)...)
	if err != nil {
		return err
	}
	select {
	case <-s.done:
	case <-ctx.Done():
		s.stop(syscall.SIGTERM, 10*time.Second, log)
		return ctx.Err()
	}
	if s.err != nil {
		return fmt.Errorf("shop %s: %w (its log: %s)", setup, s.err, setupLog)
	}
	log.Info("table ready", "command", setup, "took", time.Since(began).Round(time.Millisecond))
	began = time.Now()

	proxyPort, first := clusterPorts(cfg)
	state := clusterState{Proxy: "http://" + cfg.addr, Engine: endpoint, Table: cfg.table,
		Admin: filepath.Join(dir, "haproxy.sock"), Backend: clusterBackend}
	var replicas []*child
	defer func() {
		for _, r := range replicas {
			r.signal(syscall.SIGTERM, log) // all at once: each finishes its own requests
		}
		for _, r := range replicas {
			r.waitOrKill(30*time.Second, log)
		}
		log.Info("replicas stopped")
	}()
	for i := range cfg.replicas {
		r := clusterReplica{Name: fmt.Sprintf("replica-%d", i+1), URL: fmt.Sprintf("http://127.0.0.1:%d", first+i)}
		r.Log = filepath.Join(logs, r.Name+".log")
		c, err := startChild(r.Name, r.Log, append(slices.Clone(env), "SHOP_ADDR="+strings.TrimPrefix(r.URL, "http://"), "SHOP_REPLICA="+r.Name),
			exe, append([]string{"serve"}, passed...)...)
		if err != nil {
			return err
		}
		r.PID = c.cmd.Process.Pid
		replicas = append(replicas, c)
		state.Replicas = append(state.Replicas, r)
	}
	for i, r := range state.Replicas {
		if err := waitAnswer(ctx, r.URL+"/readyz", 2*time.Minute, replicas[i]); err != nil {
			return fmt.Errorf("%s: %w (its log: %s)", r.Name, err, r.Log)
		}
	}
	log.Info("replicas ready", "replicas", len(replicas), "took", time.Since(began).Round(time.Millisecond))

	cfgPath := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(cfgPath, []byte(haproxyConfig(fmt.Sprintf("127.0.0.1:%d", proxyPort), state.Admin, state.Replicas)), 0o600); err != nil {
		return err
	}
	if b, err := exec.CommandContext(ctx, haproxy, "-c", "-q", "-f", cfgPath).CombinedOutput(); err != nil {
		return fmt.Errorf("haproxy refuses %s: %v\n%s", cfgPath, err, b)
	}
	proxyLog := filepath.Join(logs, "haproxy.log")
	proxy, err := startChild("haproxy", proxyLog, os.Environ(), haproxy, "-db", "-f", cfgPath)
	if err != nil {
		return err
	}
	// SIGUSR1 is HAProxy's soft stop: it stops listening, then finishes
	// the requests under way; it goes first, before the replicas.
	defer proxy.stop(syscall.SIGUSR1, 15*time.Second, log)
	if err := waitAnswer(ctx, state.Proxy+"/healthz", 30*time.Second, proxy); err != nil {
		return fmt.Errorf("haproxy: %w (its log: %s)", err, proxyLog)
	}
	b, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(stateFile, b, 0o600); err != nil {
		return err
	}
	defer os.Remove(stateFile)

	fmt.Fprintf(out, "\n  The shop is open at %s: HAProxy, round robin over %d replicas\n", state.Proxy, len(state.Replicas))
	for _, r := range state.Replicas {
		fmt.Fprintf(out, "    %-10s %s  (log %s)\n", r.Name, r.URL, r.Log)
	}
	fmt.Fprintf(out, "  DynamoDB Local: %s   HAProxy: %s\n", endpoint, cfgPath)
	if cfg.demo {
		fmt.Fprintf(out, "  Staff:    %s / %s\n  Customer: %s / %s\n", demo.StaffEmail, demo.StaffPassword, demo.CustomerEmail, demo.CustomerPassword)
	}
	fmt.Fprintf(out, "  Ctrl-C stops them all.\n\n")

	// A replica that dies is left dead (the proxy's health check takes it
	// out within two seconds), as a crashed container would be until its
	// orchestrator starts another; the proxy's end ends the cluster, and
	// so does an engine that could not be restarted.
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
			log.Info("stopping the cluster")
			return nil
		case <-proxy.done:
			return fmt.Errorf("haproxy exited: %v (its log: %s)", proxy.err, proxyLog)
		case err := <-engineLost:
			// Every replica would answer 503 for good: stop.
			return fmt.Errorf("DynamoDB Local could not be restarted: %w", err)
		case r := <-exits:
			log.Warn("replica exited; the proxy sends its requests to the others", "replica", r.name, "err", r.err)
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
