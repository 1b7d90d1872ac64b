//go:build unix

package deadport

import (
	"fmt"
	"syscall"
	"testing"
)

// Addr is "127.0.0.1:port" for a port bound, not listening, until the
// test ends: connecting to it is refused.
func Addr(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatalf("deadport: socket: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	// No SO_REUSEADDR: with it unset here, no other socket may bind the
	// port, whatever it sets.
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatalf("deadport: bind: %v", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatalf("deadport: getsockname: %v", err)
	}
	in, ok := sa.(*syscall.SockaddrInet4)
	if !ok {
		t.Fatalf("deadport: bound to %T, want an IPv4 address", sa)
	}
	return fmt.Sprintf("127.0.0.1:%d", in.Port)
}
