package pgindex

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// TestBuiltSearchWaitsForCatchUp: a search that finds another catching
// up waits for it (milliseconds) and gets what it brought up to date,
// rather than nil, which would send it to the database's own search.
func TestBuiltSearchWaitsForCatchUp(t *testing.T) {
	ctx := context.Background()
	one, two := 1, 2
	entered, release, waiting := make(chan struct{}), make(chan struct{}), make(chan struct{}, 1)
	b := &built[int]{what: "test", serves: "nothing",
		read: func(context.Context) (*int, string, error) { return &one, "1", nil },
		update: func(_ context.Context, old *int, gen string) (*int, string, bool, error) {
			close(entered)
			<-release
			return &two, "2", true, nil
		},
		size:   func(*int) int { return 1 },
		attrs:  func(*int) []any { return nil },
		onWait: func() { waiting <- struct{}{} },
	}
	b.start()
	defer b.close()
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free() // before close, which waits for the catch-up
	log := slog.New(slog.DiscardHandler)
	count := func(context.Context) int { return 1 }
	if got := b.get(ctx, "1", count, log); got == nil || *got != 1 {
		t.Fatalf("first build: %v", got)
	}
	first, second := make(chan *int, 1), make(chan *int, 1)
	go func() { first <- b.get(ctx, "2", count, log) }()
	<-entered
	go func() { second <- b.get(ctx, "2", count, log) }()
	select {
	case <-waiting:
	case got := <-second:
		t.Fatalf("a search during the catch-up returned %v without waiting", got)
	case <-time.After(time.Minute):
		t.Fatal("a search during the catch-up neither waited nor returned")
	}
	free()
	for _, c := range []chan *int{first, second} {
		if got := <-c; got == nil || *got != 2 {
			t.Fatalf("after the catch-up: %v, want 2", got)
		}
	}
	if b.reads != 1 {
		t.Errorf("%d full reads, want 1", b.reads)
	}
}
