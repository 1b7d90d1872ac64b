package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// envelope is a checkpoint file: the stage's output and the options key it
// was made with.
type envelope struct {
	Stage string          `json:"stage"`
	Key   string          `json:"key,omitempty"`
	Data  json.RawMessage `json:"data"`
}

func checkpointPath(dir string, i int, stage string) string {
	return filepath.Join(dir, fmt.Sprintf("%02d-%s.json", i+1, stage))
}

// load reads a checkpoint into v. It reports false for a missing one, a
// stale one (another key) or an unreadable one: each means "run the stage".
func load(path, key string, v any) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var e envelope
	if json.Unmarshal(b, &e) != nil || e.Key != key {
		return false
	}
	return json.Unmarshal(e.Data, v) == nil
}

// save writes a checkpoint atomically: a reader (or a resumed run after a
// kill) sees the whole file or none.
func save(path, stage, key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", stage, err)
	}
	b, err := json.Marshal(envelope{Stage: stage, Key: key, Data: data})
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", stage, err)
	}
	return writeAtomic(path, b)
}

// writeAtomic writes b to path through a temporary file in the same
// directory, synced, then renamed over path.
func writeAtomic(path string, b []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	_, werr := f.Write(b)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
