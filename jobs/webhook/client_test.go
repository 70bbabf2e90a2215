package webhook

import (
	"net/netip"
	"testing"
	"time"
)

func TestPublic(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr   string
		public bool
	}{
		{"93.184.216.34", true},
		{"8.8.8.8", true},
		{"2606:4700::1111", true},
		{"127.0.0.1", false},
		{"127.1.2.3", false},
		{"::1", false},
		{"10.0.0.1", false},
		{"172.16.5.4", false},
		{"172.31.255.255", false},
		{"172.32.0.1", true},
		{"192.168.1.1", false},
		{"100.64.0.1", false},
		{"100.127.255.254", false},
		{"169.254.169.254", false}, // the metadata service
		{"fe80::1", false},
		{"fd00:ec2::254", false}, // AWS's metadata service over IPv6
		{"fc00::1", false},
		{"0.0.0.0", false},
		{"0.1.2.3", false},
		{"::", false},
		{"255.255.255.255", false},
		{"224.0.0.1", false},
		{"ff02::1", false},
		{"::ffff:127.0.0.1", false},       // IPv4-mapped loopback
		{"::ffff:169.254.169.254", false}, // IPv4-mapped metadata
		{"::ffff:10.1.1.1", false},
		{"::ffff:8.8.8.8", true},
		{"::127.0.0.1", false},        // IPv4-compatible
		{"64:ff9b::a9fe:a9fe", false}, // NAT64 of 169.254.169.254
		{"64:ff9b::808:808", true},    // NAT64 of 8.8.8.8
		{"2002:7f00:1::", false},      // 6to4 of 127.0.0.1
		{"198.18.0.1", false},         // benchmarking
	} {
		if got := Public(netip.MustParseAddr(tc.addr)); got != tc.public {
			t.Errorf("Public(%s) = %v, want %v", tc.addr, got, tc.public)
		}
	}
}

func TestCheckDialSeesTheDialledAddress(t *testing.T) {
	t.Parallel()
	allowed := []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:8443")}
	for _, tc := range []struct {
		addr    string
		private bool
		ok      bool
	}{
		{"127.0.0.1:8443", false, true}, // the allowed test server
		{"127.0.0.1:443", false, false}, // same address, another port
		{"[::ffff:127.0.0.1]:8443", false, true},
		{"[::1]:8443", false, false},
		{"169.254.169.254:80", false, false},
		{"169.254.169.254:80", true, true}, // SHOP_WEBHOOK_ALLOW_PRIVATE
		{"93.184.216.34:443", false, true},
		{"not-an-address", false, false},
	} {
		err := checkDial(tc.addr, tc.private, allowed)
		if (err == nil) != tc.ok {
			t.Errorf("checkDial(%s, private %v) = %v, want ok %v", tc.addr, tc.private, err, tc.ok)
		}
	}
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url     string
		private bool
		ok      bool
	}{
		{"https://partner.example.com/hooks", false, true},
		{"https://partner.example.com:8443/hooks?x=1", false, true},
		{"http://partner.example.com/hooks", false, false},
		{"http://partner.example.com/hooks", true, true},
		{"http://localhost:8080/hooks", true, true},
		{"https://localhost/hooks", false, false},
		{"https://api.localhost/hooks", false, false},
		{"https://127.0.0.1/hooks", false, false},
		{"https://[::1]/hooks", false, false},
		{"https://169.254.169.254/latest/meta-data", false, false},
		{"https://[::ffff:10.0.0.1]/", false, false},
		{"https://user:pw@partner.example.com/", false, false},
		{"https://partner.example.com/#frag", false, false},
		{"ftp://partner.example.com/", false, false},
		{"partner.example.com/hooks", false, false},
		{"https:///hooks", false, false},
		{"", false, false},
	} {
		err := CheckURL(tc.url, tc.private)
		if (err == nil) != tc.ok {
			t.Errorf("CheckURL(%q, private %v) = %v, want ok %v", tc.url, tc.private, err, tc.ok)
		}
	}
}

func TestSignAndVerify(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_780_000_000, 0)
	body := []byte(`{"id":"evt_1","type":"ticket.claimed"}`)
	h := Sign("whsec_x", now, body)
	if h[:13] != "t=1780000000," {
		t.Fatalf("header %q", h)
	}
	if err := Verify("whsec_x", h, body, 5*time.Minute, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := Verify("whsec_y", h, body, 5*time.Minute, now); err != ErrBadSignature {
		t.Fatalf("another secret: %v", err)
	}
	if err := Verify("whsec_x", h, append(body, ' '), 5*time.Minute, now); err != ErrBadSignature {
		t.Fatalf("another body: %v", err)
	}
	if err := Verify("whsec_x", h, body, 5*time.Minute, now.Add(6*time.Minute)); err != ErrTooOld {
		t.Fatalf("too old: %v", err)
	}
}

func TestRetryDelay(t *testing.T) {
	t.Parallel()
	want := []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour, 4 * time.Hour, 4 * time.Hour}
	for i, w := range want {
		if got := RetryDelay(i+1, 0); got != w {
			t.Errorf("RetryDelay(%d) = %v, want %v", i+1, got, w)
		}
	}
	if got := RetryDelay(1, 0.999); got <= 4*time.Second || got > 5*time.Second {
		t.Errorf("jittered first retry %v", got)
	}
}
