package sqliteindex

import (
	"context"

	"github.com/hearth-rpg/hearth/retrieve"
)

// Generation returns the index's generation stamp, which every write
// changes (migrations/0003, 0005): results kept for one generation are
// the results for as long as it lasts. It identifies the write, so a
// file restored from an older copy and written to again never shows a
// stamp seen before; compare stamps for equality only.
func (ix *Index) Generation(ctx context.Context) (string, error) { return ix.generation(ctx) }

// Kept reports whether Search keeps a result for every query in qs at
// generation gen: searching them again while the stamp is gen gives the
// same results. A result found without vectors because the embedder
// failed is not kept.
func (ix *Index) Kept(gen string, qs []retrieve.Query) bool {
	for _, q := range qs {
		key, ok := resultKey(q)
		if !ok || !ix.results.has(gen, key) {
			return false
		}
	}
	return true
}
