package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Captioner describes images for search, with a vision model.
type Captioner interface {
	// Caption describes one image, given as its bytes of mediaType
	// (image/webp or image/jpeg); context is the text near it on its
	// page (often its caption).
	Caption(ctx context.Context, data []byte, mediaType, context string) (string, error)
}

// Keyed is implemented by a Checker or Captioner whose answers depend on
// a model or a prompt. Its key goes into the checkpoint keys, so that
// another model redoes the work instead of reusing answers it never gave.
type Keyed interface{ Key() string }

// keyOf names a Checker or Captioner in checkpoint keys; "" for none.
func keyOf(v any) string {
	if v == nil {
		return ""
	}
	if k, ok := v.(Keyed); ok {
		return k.Key()
	}
	return fmt.Sprintf("%T", v)
}

// maxFailures is how many model calls in a row may fail, with no answer
// between them, before the model is taken to be unusable for this ingest
// (a wrong model name, a server that went away) and is asked no more.
const maxFailures = 3

// journal is a stage's answers from a model, one JSON line each, kept
// beside its checkpoint while the stage runs: a resumed ingest asks only
// what is still unanswered. A line cut short by a crash is ignored.
type journal struct {
	mu  sync.Mutex
	f   *os.File
	key string
}

type journalLine struct {
	Key    string `json:"k"`
	Item   int    `json:"i"`
	Answer string `json:"a"`
}

// openJournal reads the answers at path given under key and opens the
// file to add more.
func openJournal(path, key string) (*journal, map[int]string, error) {
	done := map[int]string{}
	if b, err := os.ReadFile(path); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var l journalLine
			if json.Unmarshal(sc.Bytes(), &l) == nil && l.Key == key {
				done[l.Item] = l.Answer
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("journal %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("journal %s: %w", path, err)
	}
	return &journal{f: f, key: key}, done, nil
}

// add appends one answer. A line goes out in one write, so a process
// killed between writes leaves whole lines (the page cache keeps them).
func (j *journal) add(item int, answer string) error {
	b, err := json.Marshal(journalLine{Key: j.key, Item: item, Answer: answer})
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	_, err = j.f.Write(append(b, '\n'))
	return err
}

func (j *journal) close() error { return j.f.Close() }

// ask gets an answer from a model for each of items, at most
// r.ModelWorkers calls at once, journaled under key beside stage i's
// checkpoint. A failed call is logged and its item left unanswered; after
// maxFailures failures in a row the rest are not asked. Only the end of
// ctx (or a journal that cannot be written) is an error.
func (r *run) ask(ctx context.Context, i int, what, key string, items []int, call func(ctx context.Context, item int) (string, error)) (map[int]string, error) {
	if len(items) == 0 {
		return map[int]string{}, nil
	}
	path := strings.TrimSuffix(checkpointPath(r.dir, i, Stages[i]), ".json") + "." + what + ".jsonl"
	j, answers, err := openJournal(path, key)
	if err != nil {
		return nil, err
	}
	defer j.close()
	var todo []int
	for _, it := range items {
		if _, ok := answers[it]; !ok {
			todo = append(todo, it)
		}
	}
	total := len(items)
	r.emit(Event{Stage: Stages[i], Index: i, Done: total - len(todo), Total: total})
	if len(todo) == 0 {
		return answers, nil
	}

	done := total - len(todo)
	var (
		mu       sync.Mutex
		fails    int
		stopped  bool
		called   int
		lastErr  error
		writeErr error
		wg       sync.WaitGroup
	)
	next := make(chan int)
	for range max(1, r.ModelWorkers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range next {
				mu.Lock()
				skip := stopped
				if !skip {
					called++
				}
				mu.Unlock()
				if skip {
					continue
				}
				a, err := call(ctx, it)
				if ctx.Err() != nil {
					continue // the ingest stops; this is no answer and no failure
				}
				mu.Lock()
				if err != nil {
					fails++
					lastErr = err
					r.Log.Warn("ingest: a model call failed; going on without its answer", "file", r.Name, "stage", Stages[i], "item", it, "err", err)
				} else {
					fails = 0
					answers[it] = a
					if werr := j.add(it, a); werr != nil && writeErr == nil {
						writeErr = werr
					}
					done++
					r.emit(Event{Stage: Stages[i], Index: i, Done: done, Total: total})
				}
				if fails >= maxFailures && !stopped {
					stopped = true
				}
				mu.Unlock()
			}
		}()
	}
dispatch:
	for _, it := range todo {
		mu.Lock()
		stop := stopped || writeErr != nil
		mu.Unlock()
		if stop {
			break
		}
		select {
		case next <- it:
		case <-ctx.Done():
			break dispatch
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if writeErr != nil {
		return nil, fmt.Errorf("journal %s: %w", path, writeErr)
	}
	if stopped {
		r.warn(fmt.Sprintf("%s: the model failed %d times in a row (last: %v); %d of %d were not asked",
			what, maxFailures, lastErr, len(todo)-called, total))
	}
	return answers, nil
}
