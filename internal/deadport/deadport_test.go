package deadport

import (
	"errors"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"
)

func TestAddrRefusesAndCannotBeTaken(t *testing.T) {
	addr := Addr(t)
	_, err := net.DialTimeout("tcp", addr, time.Minute)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial %s: %v, want connection refused", addr, err)
	}
	if ln, err := net.Listen("tcp", addr); err == nil {
		ln.Close()
		t.Errorf("another listener took %s", addr)
	}
	hang := &http.Client{Timeout: time.Minute} // a guard, should it be served
	resp, err := hang.Get("http://" + addr + "/")
	if err == nil {
		resp.Body.Close()
	}
	var op *net.OpError
	if !errors.As(err, &op) || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("GET %s: %v, want a refused dial", addr, err)
	}
}
