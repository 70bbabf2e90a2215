// Command testengine runs a command (the test suite) beside one DynamoDB
// Local that every test binary it starts shares, instead of one engine per
// package: a JVM's start and its JIT warm-up cost a package about as much
// CPU as its tests' own requests (measured: the store package's tests cost
// the engine 170 CPU-seconds on a fresh JVM, 85 on a warm one).
//
// Usage:
//
//	go run ./store/storetest/testengine [-port N] -- go test -race ./...
//
// It sets SHOP_TEST_DYNAMODB_ENDPOINT, which only storetest reads: the shop
// binaries some tests start keep starting their own engine, as they would
// for a user. The command's exit code is testengine's. It imports nothing
// of the shop's but dynamolocal, so building it compiles little.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"shop/store/dynamolocal"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

// run returns the exit code: the command's, or 2 for bad usage and 1 when
// the engine or the command cannot start.
func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("testengine", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("port", 0, "port for DynamoDB Local on 127.0.0.1 (0: a free one)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: testengine [-port N] -- command [args...]")
		fmt.Fprintln(stderr, "Runs command with "+dynamolocal.SharedEndpointVariable+" naming one in-memory DynamoDB Local, stopped after it.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	command := fs.Args()
	if len(command) == 0 {
		fmt.Fprintln(stderr, "testengine: no command to run (testengine -- go test ./...)")
		return 2
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	began := time.Now()
	engine, err := dynamolocal.Start(ctx, dynamolocal.Options{Port: *port})
	cancel()
	if err != nil {
		fmt.Fprintln(stderr, "testengine:", err)
		return 1
	}
	defer engine.Stop()
	fmt.Fprintf(stderr, "testengine: DynamoDB Local at %s (started in %s)\n", engine.Endpoint, time.Since(began).Round(100*time.Millisecond))

	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), dynamolocal.SharedEndpointVariable+"="+engine.Endpoint)
	// Ctrl-C reaches the command through the terminal's process group; a
	// SIGTERM sent to testengine alone is passed on, so the tests end and
	// the engine is stopped rather than left behind.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, "testengine:", err)
		return 1
	}
	go func() {
		for sig := range signals {
			_ = cmd.Process.Signal(sig)
		}
	}()
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return exit.ExitCode()
	default:
		fmt.Fprintln(stderr, "testengine:", err)
		return 1
	}
}
