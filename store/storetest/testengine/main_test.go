package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestUsageMistakesRunNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{nil, 2, "no command to run"},
		{[]string{"--"}, 2, "no command to run"},
		{[]string{"-x", "--", "true"}, 2, "flag provided but not defined: -x"},
		{[]string{"-port", "many", "--", "true"}, 2, "invalid value"},
		{[]string{"-h"}, 0, "usage: testengine"},
	} {
		var stderr bytes.Buffer
		if code := run(tc.args, &stderr); code != tc.code || !strings.Contains(stderr.String(), tc.says) {
			t.Errorf("testengine %q: exit %d, said %q; want %d and %q", tc.args, code, stderr.String(), tc.code, tc.says)
		}
	}
}

// The command sees the engine and its exit code is testengine's: a failing
// test suite fails the task that ran it.
func TestTheCommandGetsTheEngineAndItsExitCodeIsKept(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	script := `case "$SHOP_TEST_DYNAMODB_ENDPOINT" in http://127.0.0.1:*) exit 3;; *) exit 4;; esac`
	if code := run([]string{"--", "sh", "-c", script}, &stderr); code != 3 {
		t.Fatalf("exit %d, want 3 (the command's, having seen the endpoint); said %q", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "DynamoDB Local at http://127.0.0.1:") {
		t.Errorf("it does not say where the engine is: %q", stderr.String())
	}
}
