package cputime

import (
	"testing"
	"time"
)

func TestProcessCounts(t *testing.T) {
	if !Supported {
		t.Skip("no CPU time on this system")
	}
	before := Process()
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	if d := Process() - before; d <= 0 || d > time.Minute {
		t.Errorf("a busy loop used %v of CPU (x=%d)", d, x)
	}
}
