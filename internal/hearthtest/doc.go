// Package hearthtest runs the real hearth binary for tests: built once per
// test binary, started as "hearth serve" on a free port on 127.0.0.1, and
// stopped with SIGTERM when the test ends (a server that does not shut
// down cleanly fails the test). Tests in cmd/hearth, security and others
// that must see what a user's process does share it.
package hearthtest
