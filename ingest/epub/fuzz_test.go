package epub

import (
	"context"
	"testing"
)

// FuzzEPUB feeds arbitrary bytes to the reader: it must return a document
// or an error, never panic or run away.
func FuzzEPUB(f *testing.F) {
	f.Add(tinyEPUB3(f))
	f.Add([]byte("PK\x03\x04"))
	f.Add([]byte{})
	// Small limits: the fuzzer's inputs are small, and inflating megabytes
	// or converting big images would only slow every iteration down.
	e := New(Limits{MaxEntries: 64, MaxEntryBytes: 64 << 10, MaxTotalBytes: 256 << 10, MaxImages: 8})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		doc, err := e.Extract(context.Background(), data, nil)
		if err == nil && len(doc.Pages) == 0 {
			t.Fatal("a document without pages and without an error")
		}
	})
}
