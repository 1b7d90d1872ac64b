package sqliteconversations

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/llm"
)

// waiting is how many saves wait for the next batch, and whether a
// caller leads.
func (c *Store) waiting() (n int, leading bool) {
	c.saves.mu.Lock()
	defer c.saves.mu.Unlock()
	return len(c.saves.waiting), c.saves.leading
}

func conversation(id, user, text string) assistant.Conversation {
	now := time.Now()
	return assistant.Conversation{ID: id, UserID: user, Created: now, Updated: now, Messages: []llm.Message{{Role: llm.User, Content: text}}}
}

type queued struct {
	conv assistant.Conversation
	want error // nil, assistant.ErrNotFound, or errRefused
}

var errRefused = errors.New("refused")

// batch runs saves with the writer held until all wait, so that the
// first commits alone and the others in one batch, in order; it checks
// each save's result.
func batch(t *testing.T, c *Store, saves []queued) {
	t.Helper()
	ctx := context.Background()
	hold, err := c.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, len(saves))
	var wg sync.WaitGroup
	wg.Go(func() { errs[0] = c.Save(ctx, saves[0].conv) })
	for n, leading := c.waiting(); !leading || n > 0; n, leading = c.waiting() { // the first has taken its batch
		time.Sleep(time.Millisecond)
	}
	for i, s := range saves[1:] {
		wg.Go(func() { errs[i+1] = c.Save(ctx, s.conv) })
		for n, _ := c.waiting(); n < i+1; n, _ = c.waiting() { // in order
			time.Sleep(time.Millisecond)
		}
	}
	if err := hold.Rollback(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, s := range saves {
		switch {
		case s.want == errRefused:
			if errs[i] == nil || errors.Is(errs[i], assistant.ErrNotFound) {
				t.Errorf("save %s: %v, want the database's refusal", s.conv.ID, errs[i])
			}
		case !errors.Is(errs[i], s.want) || (s.want == nil) != (errs[i] == nil):
			t.Errorf("save %s: %v, want %v", s.conv.ID, errs[i], s.want)
		}
	}
}

// Saves queued while the writer is busy are committed as one batch, and
// each learns its own result: a save of another user's conversation gets
// ErrNotFound, a save the database refuses gets its error (and fails no
// other), and the rest are committed, the later of two saves of one
// conversation winning.
func TestBatchedSavesKeepTheirOwnResults(t *testing.T) {
	ctx := context.Background()
	c, err := Open(ctx, filepath.Join(t.TempDir(), "hearth.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Save(ctx, conversation("taken", "alice", "mine")); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	round := func(prefix string, extra ...queued) []queued {
		saves := []queued{{conversation(prefix+"first", "bob", "leads"), nil}}
		want[prefix+"first"] = "leads"
		for i := range 10 {
			id := fmt.Sprintf("%s%d", prefix, i)
			saves = append(saves, queued{conversation(id, "bob", "hello"), nil})
			want[id] = "hello"
		}
		saves = append(saves, queued{conversation("taken", "mallory", "theirs"), assistant.ErrNotFound})
		saves = append(saves, extra...)
		saves = append(saves, queued{conversation(prefix+"3", "bob", "later"), nil})
		want[prefix+"3"] = "later"
		return saves
	}
	t.Run("all good", func(t *testing.T) { batch(t, c, round("a")) })

	// The database refuses one row, as a full disk or a constraint would.
	if _, err := c.w.ExecContext(ctx, `CREATE TRIGGER refuse BEFORE INSERT ON assistant_conversations
		WHEN NEW.id = 'refused' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`); err != nil {
		t.Fatal(err)
	}
	t.Run("one refused", func(t *testing.T) { batch(t, c, round("b", queued{conversation("refused", "bob", "no"), errRefused})) })

	for id, text := range want {
		got, err := c.Get(ctx, "bob", id)
		if err != nil || len(got.Messages) != 1 || got.Messages[0].Content != text {
			t.Errorf("conversation %s: %+v, %v; want %q", id, got.Messages, err, text)
		}
	}
	if got, err := c.Get(ctx, "alice", "taken"); err != nil || got.Messages[0].Content != "mine" {
		t.Errorf("alice's conversation: %+v, %v; want hers unchanged", got.Messages, err)
	}
	if _, err := c.Get(ctx, "bob", "refused"); !errors.Is(err, assistant.ErrNotFound) {
		t.Errorf("the refused conversation: %v, want not found", err)
	}
}

// Many concurrent saves all commit, and the queue is left empty with no
// leader, so the next save leads at once.
func TestConcurrentSaves(t *testing.T) {
	ctx := context.Background()
	c, err := Open(ctx, filepath.Join(t.TempDir(), "hearth.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const n = 300
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = c.Save(ctx, conversation(fmt.Sprintf("c%d", i), "bob", fmt.Sprint(i))) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("save %d: %v", i, err)
		}
	}
	list, err := c.List(ctx, "bob")
	if err != nil || len(list) != n {
		t.Fatalf("listed %d conversations (%v), want %d", len(list), err, n)
	}
	if waiting, leading := c.waiting(); leading || waiting != 0 {
		t.Errorf("after the saves: leading %v, %d waiting; want no leader and none waiting", leading, waiting)
	}
}

// A save whose caller gives up while it waits for the writer leaves the
// queue with its context's error and is not written; the saves behind it
// are, and the store goes on saving.
func TestSaveGivesUpWhileQueued(t *testing.T) {
	ctx := context.Background()
	c, err := Open(ctx, filepath.Join(t.TempDir(), "hearth.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	hold, err := c.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var first, gaveUp, after error
	wg.Go(func() { first = c.Save(ctx, conversation("first", "bob", "leads")) })
	for n, leading := c.waiting(); !leading || n > 0; n, leading = c.waiting() {
		time.Sleep(time.Millisecond)
	}
	short, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { gaveUp = c.Save(short, conversation("gave-up", "bob", "never")); close(done) }()
	for n, _ := c.waiting(); n < 1; n, _ = c.waiting() {
		time.Sleep(time.Millisecond)
	}
	wg.Go(func() { after = c.Save(ctx, conversation("after", "bob", "later")) })
	for n, _ := c.waiting(); n < 2; n, _ = c.waiting() {
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done // while the writer is still held
	if !errors.Is(gaveUp, context.Canceled) {
		t.Errorf("the save given up: %v, want context.Canceled", gaveUp)
	}
	if n, _ := c.waiting(); n != 1 {
		t.Errorf("%d saves wait, want 1", n)
	}
	if err := hold.Rollback(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if first != nil || after != nil {
		t.Fatalf("the other saves: %v, %v", first, after)
	}
	for _, id := range []string{"first", "after"} {
		if _, err := c.Get(ctx, "bob", id); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
	if _, err := c.Get(ctx, "bob", "gave-up"); !errors.Is(err, assistant.ErrNotFound) {
		t.Errorf("the save given up was written: %v", err)
	}
	if err := c.Save(ctx, conversation("next", "bob", "again")); err != nil {
		t.Errorf("a save after: %v", err)
	}
}
