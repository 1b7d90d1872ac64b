// Package streambench is the harness of the streaming benchmarks: a fake
// model server speaking OpenAI's chat-completions wire format and the
// test clients, run in a child process so that the benchmark's process
// holds only the server under test, as users run it (the model server
// and the browsers are other programs). The parent starts the child
// (Start), hands it plans over a pipe and gets back what the clients
// measured as JSON; the child's CPU is reported apart from the parent's.
//
// The child shares the machine's cores with the server under test, so
// it is kept cheap: one scheduler goroutine writes every stream's
// tokens (no timer per stream), chunks are appended into a reused
// buffer, and the clients read events without encoding/json, taking a
// token's arrival time from the read that brought it. Set
// HEARTH_STREAMBENCH_CPUPROFILE to a file name to get the child's CPU
// profile (the parent's -cpuprofile covers only the parent), and
// HEARTH_STREAMBENCH_PROCS to a number of cores to cap the child's
// GOMAXPROCS.
//
// Proxy is the peer measured beside hearth: a bare net/http SSE proxy
// that forwards each token of the model's stream, the floor of a machine
// for this shape of work.
package streambench
