// Package narrativetest is the conformance suite of narrative.Store: every
// backend of narrative memory (narrative/sqlitenarrative and
// narrative/pgnarrative) runs Run from its tests, so the game remembers,
// recalls and judges the same over any of them.
//
// To pass, a backend must:
//   - store memory events all or none per call, give each an ID unique in
//     the store, and read them back field for field (wall time to the
//     millisecond, embedding exactly);
//   - recall exactly what narrative.Recall, the reference, answers over
//     the events committed so far — same events, same order, same method,
//     scores within 1e-4 — for vector, lexical and filter-only queries and
//     every filter, never across playthroughs, and never an event it was
//     told to forget;
//   - embed with the embedder it was opened with, once per batch, and
//     fall back to lexical recall when embedding fails;
//   - keep reputation and perception with the default ReputationConfig
//     and PerceptionConfig: decay, clamping, first impressions and their
//     history, roll modifiers;
//   - keep plot-beat state so a beat triggers once, across restarts;
//   - keep stat values, clamped, all or none;
//   - answer hearth.NotFound for an event that does not exist and
//     hearth.Invalid for input the caller must change;
//   - be safe for concurrent use: concurrent changes to one standing all
//     count, and a first meeting happens once.
//
// A backend's test calls Run with a function that opens a fresh, empty
// store with the given Options, or reopens one over the same data:
//
//	func TestConformance(t *testing.T) {
//		narrativetest.Run(t, func(t *testing.T, o narrativetest.Options) narrative.Store {
//			...
//		})
//	}
//
// and runs with go test (-race is worth it: one test writes while others
// recall).
package narrativetest
