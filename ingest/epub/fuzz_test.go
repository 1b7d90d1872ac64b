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
	e := New(Limits{MaxEntries: 64, MaxEntryBytes: 1 << 20, MaxTotalBytes: 4 << 20})
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := e.Extract(context.Background(), data, nil)
		if err == nil && len(doc.Pages) == 0 {
			t.Fatal("a document without pages and without an error")
		}
	})
}
