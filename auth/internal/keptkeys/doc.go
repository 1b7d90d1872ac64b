// Package keptkeys keeps API key lookups beside the keys' generation
// each was read after, for the stores whose triggers give that
// generation a new value with every write to users and keys
// (auth/sqlitekeys, auth/pgkeys): while a request reads the same
// generation again, the lookup it kept still stands, and one integer
// read stands for the join of two rows.
package keptkeys
