package dynamolocal_test

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"shop/store/dynamolocal"
)

// Running finds the engine a serving shop noted only while one answers
// there: a file left behind by a shop that did not stop cleanly, or one
// that names no host, does not send a command to a dead address.
func TestRunningAnswersOnlyForAnEngineThatListens(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	listening := "http://" + l.Addr().String()
	gone, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	left := "http://" + gone.Addr().String()
	gone.Close()
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		content *string // nil: no file
		want    string
	}{
		{"no file", nil, ""},
		{"an engine listening", ptr(listening + "\n"), listening},
		{"left behind", ptr(left + "\n"), ""},
		{"no host", ptr("not a url\n"), ""},
		{"empty", ptr(""), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, tc.name)
			if tc.content != nil {
				if err := os.WriteFile(file, []byte(*tc.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if got := dynamolocal.Running(file); got != tc.want {
				t.Fatalf("Running = %q, want %q", got, tc.want)
			}
		})
	}
}

func ptr(s string) *string { return &s }
