// Package storetest is the conformance suite every store.Store must pass:
// sessions, branches, turns, snapshots, the line of history across forks,
// conflicts, missing records, deletion and concurrent appends. A backend's
// tests call Run with a function that opens a fresh, empty store.
package storetest
