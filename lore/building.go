package lore

import (
	"context"
	"fmt"
	"sync"
)

// Building follows an index build that runs while play goes on. Until it
// is done a Keeper answers with no passages and says why, rather than
// answering from half an index: lore that changes as files land would
// make two turns of the same scene disagree.
type Building struct {
	mu          sync.Mutex
	done, total int
	err         error
	finished    chan struct{}
}

// NewBuilding starts following a build of total files.
func NewBuilding(total int) *Building {
	return &Building{total: total, finished: make(chan struct{})}
}

// Progress records that done of the build's files are indexed.
func (b *Building) Progress(done int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = min(done, b.total)
}

// Finish ends the build; err is why it stopped short, nil when the index
// is complete. Only the first call counts.
func (b *Building) Finish(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-b.finished:
		return
	default:
	}
	b.err = err
	if err == nil {
		b.done = b.total
	}
	close(b.finished)
}

// Wait blocks until the build has finished and returns its error.
func (b *Building) Wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-b.finished:
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.err
	}
}

// Pending says why the index cannot be searched yet, or "" once it can.
// A nil Building is an index that is ready.
func (b *Building) Pending() string {
	if b == nil {
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-b.finished:
		if b.err == nil {
			return ""
		}
		return fmt.Sprintf("lore index not built (%d of %d files): %v", b.done, b.total, b.err)
	default:
		return fmt.Sprintf("lore index still building (%d of %d files)", b.done, b.total)
	}
}
