package storetest

import (
	"io"
	"net"
	"sync"
	"testing"
)

// SilentEngine takes connections and reads requests but never answers: an
// engine that hangs, without starting one (a JVM) to freeze. Its address
// is returned; its connections close when the test ends.
func SilentEngine(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() { _, _ = io.Copy(io.Discard, c) }() // until a side closes
		}
	}()
	return "http://" + l.Addr().String()
}
