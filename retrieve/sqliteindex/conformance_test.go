package sqliteindex

import (
	"testing"

	"github.com/hearth-rpg/hearth/retrieve"
	"github.com/hearth-rpg/hearth/retrieve/indextest"
)

// TestConformance runs the backend-neutral suite over a SQLite file per
// index.
func TestConformance(t *testing.T) {
	indextest.Run(t, func(t *testing.T, o indextest.Options) retrieve.Index {
		var opts []Option
		if o.Embedder != nil {
			opts = append(opts, WithEmbedder(o.Embedder))
		}
		return openTest(t, opts...)
	})
}
