package server

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestClientAddr(t *testing.T) {
	trusted, err := parseProxies([]string{"10.0.0.0/8", "fd00::/8", "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, remote string
		xff          []string
		want         string
	}{
		{"untrusted peer, header ignored", "203.0.113.9:5000", []string{"198.51.100.7"}, "203.0.113.9"},
		{"trusted peer, no header", "10.1.2.3:5000", nil, "10.1.2.3"},
		{"trusted peer names the client", "10.1.2.3:5000", []string{"198.51.100.7"}, "198.51.100.7"},
		{"spoofed entries left of the client are ignored", "10.1.2.3:5000", []string{"1.1.1.1, 2.2.2.2, 198.51.100.7"}, "198.51.100.7"},
		{"a chain of trusted proxies", "10.1.2.3:5000", []string{"198.51.100.7, 10.9.9.9", "192.0.2.1"}, "198.51.100.7"},
		{"single trusted address", "192.0.2.1:80", []string{"198.51.100.7"}, "198.51.100.7"},
		{"next address is not trusted", "192.0.2.2:80", []string{"198.51.100.7"}, "192.0.2.2"},
		{"garbage stops the walk", "10.1.2.3:5000", []string{"evil, 10.9.9.9"}, "10.9.9.9"},
		{"hop with a port", "10.1.2.3:5000", []string{"198.51.100.7:4711"}, "198.51.100.7"},
		{"IPv6 proxy and client", "[fd00::1]:443", []string{"[2001:db8::5]:9"}, "2001:db8::5"},
		{"IPv4-mapped peer", "[::ffff:10.1.2.3]:5000", []string{"198.51.100.7"}, "198.51.100.7"},
		{"empty header", "10.1.2.3:5000", []string{""}, "10.1.2.3"},
		{"odd remote", "pipe", nil, "pipe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := clientAddr(tt.remote, tt.xff, trusted); got != tt.want {
				t.Errorf("clientAddr(%q, %q) = %q, want %q", tt.remote, tt.xff, got, tt.want)
			}
		})
	}
	if got := clientAddr("10.1.2.3:5000", []string{"198.51.100.7"}, nil); got != "10.1.2.3" {
		t.Errorf("no trusted proxies: %q", got)
	}
	if _, err := parseProxies([]string{"proxy.lan"}); err == nil {
		t.Error("parseProxies accepted a host name")
	}
	if p, _ := parseProxies([]string{"::ffff:10.0.0.1"}); len(p) != 1 || p[0] != netip.MustParsePrefix("10.0.0.1/32") {
		t.Errorf("mapped address: %v", p)
	}
}

// A request whose scheme needs no mark (no trusted proxy said otherwise
// than its own TLS) is passed on as it is, not copied with a new
// context.
func TestSchemeLeavesPlainRequests(t *testing.T) {
	var got *http.Request
	h := (&Server{}).scheme(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r }))
	req := httptest.NewRequest("GET", "/api/health", nil)
	if n := testing.AllocsPerRun(100, func() { h.ServeHTTP(nil, req) }); n != 0 || got != req {
		t.Errorf("%v allocations, the same request: %v", n, got == req)
	}
}
