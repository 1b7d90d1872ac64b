//go:build !unix

package deadport

import "testing"

// Addr is 127.0.0.1:1 where sockets cannot be held unlistened: a
// privileged port outside the ephemeral range, which tests asking for
// any free port are never given.
func Addr(t testing.TB) string {
	t.Helper()
	return "127.0.0.1:1"
}
