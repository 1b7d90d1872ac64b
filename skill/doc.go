// Package skill runs the capabilities anyone can add to Hearth's game
// master by dropping a directory into skills/ (seed 001 §2–§3): discovery
// of skills/*/SKILL.md, their configuration and private data, running one
// of their scripts as a process that speaks the NDJSON protocol, and the
// health of each skill over a session.
//
// Run is the whole life of one script invocation: the tool input on stdin,
// events streamed from stdout as they arrive, stderr kept (bounded) for
// diagnostics, and a per-invocation timeout. The script runs in its own
// process group; when it ends, times out, breaks the protocol or floods
// its output, the whole group is killed and reaped, so a skill cannot leave
// processes behind or keep Hearth waiting. Every way an invocation can end
// maps to one of the error categories of seed 001 §2.2.4.
//
// Discover reads a skills directory into a Set. A broken skill is skipped
// with a Warning naming its file; it never stops the others. Prepare turns
// a skill's script and a tool input into an Invocation: working directory,
// environment (sensitive configuration arrives as environment variables,
// the rest in the stdin document), the private data directory and the
// roots asset paths must stay within.
//
// This package does not plan or order invocations (skill/plan does), and it
// must not interpret what events mean for the game: state patches, assets
// and UI events are handed on as they are.
package skill
