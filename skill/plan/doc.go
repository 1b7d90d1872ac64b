// Package plan is Plan JSON and its executor (seed 001 §2.2, §2.4): the
// document a plan generator writes to say which skill scripts to run, with
// which input, in what order; and the runtime that runs them.
//
// Parse checks a plan against its JSON Schema (Schema, generated from the
// Go types, is also what a model is asked to follow) and its own rules:
// unique tool ids, dependencies that exist, limits on sizes. Order sorts
// the tools with Kahn's algorithm and names the members of any cycle.
//
// An Executor runs a plan through a Runner (SkillRunner runs discovered
// skill scripts; tests and benchmarks use in-process runners): tools start
// only when their dependencies have finished; with "parallel": true, tools
// marked "async" run together, at most one per CPU; a failed tool is
// retried with backoffMs × 2^(attempt−1) between tries; a required tool
// that fails skips every tool depending on it, an optional one does not.
// The whole plan has a deadline. The Result is the execution trace of
// §2.2.4: per-tool state, timing, retries and error, the session state
// with every state_patch deep-merged in dependency order, and the assets.
//
// The package does not generate plans, loop over failed ones or decide
// what a state patch means for the game world; skill/replan and the game
// do.
package plan
