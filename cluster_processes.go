package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// The processes a shop cluster starts and stops: HAProxy (found and
// configured here) and each child in a process group of its own.

// findHAProxy is the haproxy binary: on PATH, or where Debian puts it
// (/usr/sbin is not on every user's PATH).
func findHAProxy() (string, error) {
	if p, err := exec.LookPath("haproxy"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/sbin/haproxy"); err == nil {
		return "/usr/sbin/haproxy", nil
	}
	return "", errors.New("cluster: HAProxy is not installed: apt-get install haproxy (Debian's package), then run shop cluster again")
}

// child is a process the cluster started and waits for.
type child struct {
	name string
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{}
	err  error
}

// startChild starts a process in a process group of its own, so that
// Ctrl-C reaches the cluster alone and it stops them in order; if the
// cluster dies, each child gets SIGTERM.
func startChild(name, logPath string, env []string, bin string, args ...string) (*child, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, log: f, done: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		f.Close()
		close(c.done)
	}()
	return c, nil
}

func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// stop sends sig and waits up to within, then kills.
func (c *child) stop(sig syscall.Signal, within time.Duration, log *slog.Logger) {
	c.signal(sig, log)
	c.waitOrKill(within, log)
}

func (c *child) signal(sig syscall.Signal, log *slog.Logger) {
	if c.exited() {
		return
	}
	if err := c.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		log.Warn("signal", "process", c.name, "err", err)
	}
}

// waitOrKill waits up to within for the process to exit, then kills it.
func (c *child) waitOrKill(within time.Duration, log *slog.Logger) {
	select {
	case <-c.done:
	case <-time.After(within):
		log.Warn("did not stop in time: killed", "process", c.name, "after", within)
		if err := c.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			log.Warn("kill", "process", c.name, "err", err)
		}
		<-c.done
	}
}

// haproxyConfig is the proxy's configuration: round robin over the
// replicas, each checked on /healthz every second, the client's address
// added to X-Forwarded-For, and a request whose replica died before
// answering (connection refused or closed empty) sent to another.
func haproxyConfig(listen, socket string, replicas []clusterReplica) string {
	var b strings.Builder
	fmt.Fprintf(&b, `# Written by shop cluster at each start: changes here are lost.
global
    maxconn 2000
    stats socket %s mode 600 level admin

defaults
    mode http
    option forwardfor
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    timeout http-request 10s
    timeout queue 10s
    retries 2
    option redispatch 1
    retry-on conn-failure empty-response

frontend shop
    bind %s
    default_backend %s

backend %s
    balance roundrobin
    option httpchk
    http-check send meth GET uri /healthz
    http-check expect status 200
    default-server inter 1s fastinter 500ms downinter 1s fall 2 rise 2
`, socket, listen, clusterBackend, clusterBackend)
	for _, r := range replicas {
		fmt.Fprintf(&b, "    server %s %s check\n", r.Name, strings.TrimPrefix(r.URL, "http://"))
	}
	return b.String()
}
