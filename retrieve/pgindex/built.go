package pgindex

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// built holds one structure the index builds in memory from the database
// (the full text's BM25 index, the vectors), for one index generation
// (lore_meta's counter, bumped in every writing transaction: any
// server's write makes every server's copy stale at once). A search that
// finds none for the current generation starts a build: at once for a
// small index (memSyncRows chunks or fewer, a fraction of a second), so
// its searches do not change with a build's timing; in the background
// for a larger one, while the database's own search serves.
type built[S any] struct {
	what   string // for the log and errors: "full text", "vectors"
	serves string // what answers meanwhile, for the log
	read   func(ctx context.Context) (_ *S, gen string, _ error)
	// update, when set, brings a stale structure of generation gen up to
	// date from what changed since (the change log), for far less than a
	// read; ok is false when it cannot, and a read follows.
	update func(ctx context.Context, old *S, gen string) (_ *S, newGen string, ok bool, _ error)
	size   func(*S) int   // chunks, to choose how the next build runs
	attrs  func(*S) []any // what the log says of a build

	mu       sync.Mutex
	reads    int           // full reads begun, for tests
	updating chan struct{} // closed when the catch-up under way ends
	onWait   func()        // called as a search waits for it: for tests
	snap     *S
	gen      string // snap's generation
	building bool
	failed   error
	failedAt string // the generation a build failed at: not tried again there
	off      bool   // the database searches (an option, or a test)

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func (b *built[S]) start() { b.ctx, b.cancel = context.WithCancel(context.Background()) }

func (b *built[S]) close() {
	if b.cancel != nil {
		b.cancel()
	}
	b.wg.Wait()
}

// get returns the structure of generation gen, or nil, starting a build
// when there is none; count says how many chunks the index has.
func (b *built[S]) get(ctx context.Context, gen string, count func(context.Context) int, log *slog.Logger) *S {
	b.mu.Lock()
	if !b.off && b.snap != nil && b.gen == gen {
		snap := b.snap
		b.mu.Unlock()
		return snap
	}
	if ch := b.updating; ch != nil {
		// Another search is catching up, for milliseconds: wait for it
		// rather than search the database meanwhile, which at 100,000
		// vectors takes hundreds of them.
		wait := b.onWait
		b.mu.Unlock()
		if wait != nil {
			wait()
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil
		}
		b.mu.Lock()
		if !b.off && b.snap != nil && b.gen == gen {
			snap := b.snap
			b.mu.Unlock()
			return snap
		}
	}
	if b.off || b.failed != nil && b.failedAt == gen || b.building || b.ctx == nil || b.ctx.Err() != nil {
		b.mu.Unlock()
		return nil
	}
	b.building = true
	b.wg.Add(1)
	if b.snap != nil && b.update != nil {
		// Stale, but a few changes may bring it up to date: in the
		// search that asks, since that takes milliseconds.
		old, oldGen := b.snap, b.gen
		done := make(chan struct{})
		b.updating = done
		b.mu.Unlock()
		snap, newGen, ok, err := b.update(b.ctx, old, oldGen)
		b.mu.Lock()
		b.updating = nil
		close(done)
		if err != nil {
			log.Warn("lore index: in-memory "+b.what+" not brought up to date; reading them whole", "err", err)
		}
		if err == nil && ok {
			b.building = false
			b.wg.Done()
			b.snap, b.gen = snap, newGen
			if newGen == gen {
				b.mu.Unlock()
				return snap
			}
			b.mu.Unlock()
			return nil
		}
	}
	b.reads++
	size := -1
	if b.snap != nil {
		size = b.size(b.snap)
		// Stale: no search uses it again, so let it go before the new
		// one is read rather than hold both.
		b.snap = nil
	}
	b.mu.Unlock()
	if size < 0 {
		size = count(ctx)
	}
	if size > memSyncRows {
		go b.build(log)
		return nil
	}
	b.build(log)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.snap != nil && b.gen == gen {
		return b.snap
	}
	return nil
}

func (b *built[S]) build(log *slog.Logger) {
	defer b.wg.Done()
	start := time.Now()
	snap, gen, err := b.read(b.ctx)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.building = false
	if err != nil {
		b.failed, b.failedAt = err, gen
		log.Warn("lore index: in-memory "+b.what+" not built; "+b.serves+" serves", "err", err)
		return
	}
	b.failed = nil
	b.snap, b.gen = snap, gen
	log.Info("lore index: in-memory "+b.what+" built", append(b.attrs(snap), "took", time.Since(start).Round(time.Millisecond))...)
}

// state reports whether the structure is turned off, and the last
// build's error.
func (b *built[S]) state() (off bool, failed error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.off, b.failed
}

// waitBuilt waits until b serves the index as it now stands, building
// it if need be: for tools, tests and benchmarks.
func (ix *Index) waitBuilt(ctx context.Context, ready func(ctx context.Context, gen string) bool, state func() (bool, error), off error) error {
	for {
		gen, err := ix.generation(ctx)
		if err != nil {
			return err
		}
		if ready(ctx, gen) {
			return nil
		}
		isOff, failed := state()
		if isOff {
			return off
		}
		if failed != nil {
			return failed
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
