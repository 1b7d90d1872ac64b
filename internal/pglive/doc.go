// Package pglive lets several hearth serve processes share one
// PostgreSQL database: leases say which process runs a game or an ingest
// job, LISTEN/NOTIFY carries the events of a game to the other processes
// and commands to the process that owns it.
//
// A lease (live_leases) has an owner and an expiry; its holder renews
// every lease it holds every TTL/3, and any process may take one whose
// expiry has passed, so a killed process's games and jobs move within
// TTL plus the taker's poll interval. Events of up to 7000 bytes travel
// in the NOTIFY payload; larger ones are rows of live_events that the
// payload names by id. A call is a row of live_calls announced by NOTIFY;
// the owner takes it by deleting the row and answers in live_replies, so
// exactly one process answers it. Calls whose name has a prefix given
// to Answer (a chat's replies, "chat:" + id) go to that answerer, on the
// process whose owns says it holds the name, not to the games' Serve.
// NOTIFY channels are the database's,
// so the channel is named after the schema: servers in different schemas
// never hear each other.
//
// It must not know games or jobs: what a lease names, and what events
// and calls hold, are its callers'.
package pglive
