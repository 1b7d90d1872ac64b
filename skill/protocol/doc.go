// Package protocol is the wire format between Hearth and skill scripts
// (seed 001 §2.1): the JSON document a script reads on stdin, and the
// NDJSON events it writes on stdout, one JSON object per line, each with
// "version": "0" and a "type" of log, state_patch, asset, ui_event, error
// or done.
//
// A Decoder reads events from a stream line by line as they arrive. Every
// line is checked on its own: a line over the size limit, a line that is
// not a JSON object, a version other than "0", an unknown event type or a
// known event with a field of the wrong type is a *DecodeError naming the
// line, and the stream should not be read further. Unknown fields are
// ignored, so scripts written against newer runtimes keep working.
//
// A Writer is the other side, for scripts written in Go (see
// skills/dice-roller): it writes each event as one line with the envelope
// filled in.
//
// The package knows nothing about processes, timeouts or what events mean
// to a game; it must stay a pure codec so that it can be fuzzed and reused
// by scripts.
package protocol
