package syncbuf

import (
	"strings"
	"sync"
	"testing"
)

// Writers on many goroutines lose nothing, and readers may read
// meanwhile (go test -race shows a buffer that is not locked).
func TestConcurrentWrites(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("line\n"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if n := strings.Count(b.String(), "line\n"); n != 800 {
		t.Fatalf("%d lines, want 800", n)
	}
	if got := b.Bytes(); len(got) != 800*5 {
		t.Fatalf("Bytes: %d bytes, want %d", len(got), 800*5)
	}
}
