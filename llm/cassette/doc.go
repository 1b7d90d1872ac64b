// Package cassette records a provider's answers and plays them back, so a
// game can be replayed, debugged and tested without the model. A Recorder
// wraps a real provider and appends every call to a JSON Lines file; a
// Player answers from the recording — by matching the request exactly, or
// in order when the requests have changed (other prompt versions) — and
// streams recorded chunks as the provider did. Script builds a player
// from hand-written answers for tests.
package cassette
