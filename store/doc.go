// Package store defines how Hearth persists play: sessions (one playthrough
// each), branches of a session's story, turns (one event each, committed
// atomically) and snapshots of the full state every so often.
//
// A branch points at its parent and the last turn it shares with it, so a
// fork copies no history: a branch's line is its ancestors' turns up to each
// fork point, then its own. Game payloads (intents, effects, rolls, state)
// are opaque JSON here; this package must not import any other Hearth
// package. store/sqlitestore is the embedded implementation; store/storetest is
// the conformance suite every implementation must pass.
package store
