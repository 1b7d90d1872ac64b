package skill

import (
	"fmt"
	"log/slog"
	"sync"
)

// Live is a skills directory kept current while Hearth runs (seed 001
// §3.2: hot reloading). Every Current call compares the modification times
// and sizes of the skills' SKILL.md files, scripts and config schemas with
// what the last discovery read and discovers again when they differ, so
// an edited skill is used as edited from its next call. Polling on use
// costs a few stats per call and needs no watcher goroutine.
type Live struct {
	log *slog.Logger
	mu  sync.Mutex
	set *Set
}

// NewLive discovers dir; warnings are logged to log (nil: discarded) now
// and after each reload.
func NewLive(dir string, log *slog.Logger) (*Live, []*Warning, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	set, warns, err := Discover(dir)
	if err != nil {
		return nil, nil, err
	}
	return &Live{log: log, set: set}, warns, nil
}

// LiveOf wraps a set discovered already.
func LiveOf(set *Set, log *slog.Logger) *Live {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Live{log: log, set: set}
}

// Current returns the skills as they are on disk now. When the directory
// cannot be read any more the last good set is kept and the error logged.
func (l *Live) Current() *Set {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.set.Changed() {
		return l.set
	}
	set, warns, err := Discover(l.set.Dir())
	if err != nil {
		l.log.Warn("skills changed but cannot be read again; keeping the skills as they were", "dir", l.set.Dir(), "err", err)
		return l.set
	}
	for _, w := range warns {
		l.log.Warn("skill reloaded with a problem", "warning", fmt.Sprint(w))
	}
	l.log.Info("skills reloaded", "dir", set.Dir(), "skills", len(set.All()))
	l.set = set
	return set
}

// Summaries returns the current skills' summaries, with their state in h.
func (l *Live) Summaries(h *Health) []Summary { return l.Current().Summaries(h) }

// RetryPolicy is Set.RetryPolicy of the current skills.
func (l *Live) RetryPolicy(name string) (RetryPolicy, bool) { return l.Current().RetryPolicy(name) }
