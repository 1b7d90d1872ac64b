// Package jsonstring encodes a value as JSON straight into a string: the
// conversation stores bind their JSON columns as strings, and
// json.Marshal's bytes and their string copy cost twice a conversation's
// size on every save.
package jsonstring
