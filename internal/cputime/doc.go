// Package cputime reads the CPU time the process has used, for
// benchmarks that report CPU per operation: on a machine shared with
// other work, wall-clock latency measures the queue for the cores more
// than the code.
package cputime
