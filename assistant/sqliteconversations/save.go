package sqliteconversations

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hearth-rpg/hearth/assistant"
)

// Saves that arrive while one is being committed are committed together,
// in one transaction: a burst of chats ending at once paid a transaction
// (WAL lock, frames written, commit) for every conversation. Each save is
// one statement, so a batch changes no outcome: the rows are written in
// the order the saves arrived, each save learns its own result, and a
// save returns only once the transaction holding it has committed. When
// any statement of a batch fails, the batch is rolled back and each of
// its saves is run alone, so one bad save fails no other.

// maxBatch bounds the saves in one transaction, and so how long a batch
// holds the writer from the other stores.
const maxBatch = 64

type pendingSave struct {
	ctx  context.Context
	id   string
	args []any
	done chan saveResult // one result: the save's own, or the lead
}

type saveResult struct {
	err  error
	lead bool // commit the next batch, this save's included
}

// saveQueue holds the saves waiting for a transaction. One caller at a
// time leads: it commits batches from the front of the queue, then hands
// the lead to the first save still waiting, so no caller commits others'
// saves for long after its own.
type saveQueue struct {
	mu      sync.Mutex
	waiting []*pendingSave
	leading bool
}

func (c *Store) save(ctx context.Context, p *pendingSave) error {
	q := &c.saves
	q.mu.Lock()
	q.waiting = append(q.waiting, p)
	lead := !q.leading
	q.leading = true
	q.mu.Unlock()
	if !lead {
		var r saveResult
		select {
		case r = <-p.done:
		case <-ctx.Done():
			var left bool
			if r, left = q.leave(p); left {
				return fmt.Errorf("save conversation %s: %w", p.id, ctx.Err())
			}
		}
		if !r.lead {
			return r.err
		}
	}
	// The leader's save is first in the queue: no one leads while saves
	// wait, and the lead passes to the first of them.
	q.mu.Lock()
	batch := q.waiting[:min(len(q.waiting), maxBatch)]
	q.waiting = q.waiting[len(batch):]
	q.mu.Unlock()
	c.commit(batch)
	q.mu.Lock()
	if len(q.waiting) > 0 {
		q.waiting[0].done <- saveResult{lead: true}
	} else {
		q.leading = false
		q.waiting = nil // the array is not kept for the next burst
	}
	q.mu.Unlock()
	return (<-p.done).err
}

// leave takes p out of the queue when its caller gives up waiting, and
// reports whether it did. A save already in a batch, or handed the lead
// (which must not be lost), is not taken out: its result, or the lead,
// comes from p.done.
func (q *saveQueue) leave(p *pendingSave) (saveResult, bool) {
	q.mu.Lock()
	select {
	case r := <-p.done: // the lead, sent under q.mu, or a result
		q.mu.Unlock()
		return r, false
	default:
	}
	if i := slices.Index(q.waiting, p); i >= 0 {
		// Still waiting, so nothing will be sent to it: the lead goes
		// to a waiting save under q.mu, results to saves in a batch.
		q.waiting = slices.Delete(q.waiting, i, i+1)
		q.mu.Unlock()
		return saveResult{}, true
	}
	q.mu.Unlock()
	return <-p.done, false // in a batch being committed
}

// commit writes batch, in one transaction when it holds more than one
// save, and sends each its result.
func (c *Store) commit(batch []*pendingSave) {
	live := batch[:0:0]
	for _, p := range batch {
		if err := p.ctx.Err(); err != nil {
			p.done <- saveResult{err: fmt.Errorf("save conversation %s: %w", p.id, err)}
			continue
		}
		live = append(live, p)
	}
	if len(live) == 0 {
		return
	}
	if len(live) == 1 {
		live[0].done <- saveResult{err: c.saveOne(live[0].ctx, live[0])}
		return
	}
	ctx, cancel := batchContext(live)
	defer cancel()
	errs, err := c.saveAll(ctx, live)
	for i, p := range live {
		if err != nil {
			// Nothing of the batch is committed: each save alone.
			p.done <- saveResult{err: c.saveOne(p.ctx, p)}
			continue
		}
		p.done <- saveResult{err: errs[i]}
	}
}

// batchContext ends when the last of the saves' deadlines passes (never,
// if one has none): one caller's cancelled context must not fail the
// others' saves.
func batchContext(batch []*pendingSave) (context.Context, context.CancelFunc) {
	var last time.Time
	for _, p := range batch {
		d, ok := p.ctx.Deadline()
		if !ok {
			return context.WithCancel(context.Background())
		}
		if d.After(last) {
			last = d
		}
	}
	return context.WithDeadline(context.Background(), last)
}

// saveAll runs the batch's statements in one transaction and commits it.
// errs holds each save's result when err is nil; a non-nil err means
// nothing was committed.
func (c *Store) saveAll(ctx context.Context, batch []*pendingSave) (errs []error, err error) {
	// Prepared before the transaction takes the writer's one connection.
	st, err := c.stmt(ctx, c.w, saveSQL)
	if err != nil {
		return nil, err
	}
	tx, err := c.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	ts := tx.StmtContext(ctx, st)
	errs = make([]error, len(batch))
	// The transaction ends if ctx does (database/sql rolls it back); its
	// statements need not watch ctx too, which cost the driver a
	// goroutine each.
	sctx := context.WithoutCancel(ctx)
	for i, p := range batch {
		res, err := ts.ExecContext(sctx, p.args...)
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			errs[i] = assistant.ErrNotFound // another user's id
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return errs, nil
}

// saveOne runs one save as its own transaction.
func (c *Store) saveOne(ctx context.Context, p *pendingSave) error {
	st, err := c.stmt(ctx, c.w, saveSQL)
	if err != nil {
		return fmt.Errorf("save conversation %s: %w", p.id, err)
	}
	res, err := st.ExecContext(ctx, p.args...)
	if err != nil {
		return fmt.Errorf("save conversation %s: %w", p.id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return assistant.ErrNotFound
	}
	return nil
}
