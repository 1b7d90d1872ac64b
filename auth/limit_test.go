package auth_test

import (
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/auth"
)

func TestLimiter(t *testing.T) {
	clk := newClock()
	// 100 a second: the wait is 10 ms, but Retry-After is whole seconds.
	fast := auth.NewLimiter(6000, 1)
	fast.SetClock(clk.Now)
	if ok, _ := fast.Allow("k"); !ok {
		t.Fatal("first request refused")
	}
	if ok, wait := fast.Allow("k"); ok || wait != time.Second {
		t.Errorf("second request: %v, wait %v; want refused, 1s", ok, wait)
	}

	var none *auth.Limiter
	if ok, _ := none.Allow("k"); !ok || auth.NewLimiter(0, 5) != nil {
		t.Error("a nil Limiter limits")
	}

	lim := auth.NewLimiter(auth.DefaultPerMinute, auth.DefaultBurst)
	lim.SetClock(clk.Now)
	lim.Allow("a")
	lim.Allow("b")
	clk.Add(9 * time.Minute)
	lim.Allow("c")
	if n := auth.Buckets(lim); n != 3 {
		t.Errorf("%d buckets, want 3", n)
	}
	clk.Add(2 * time.Minute) // a and b idle 11 min, c 2 min
	lim.Allow("d")
	if n := auth.Buckets(lim); n != 2 {
		t.Errorf("after idle keys went: %d buckets, want 2 (c, d)", n)
	}
}
