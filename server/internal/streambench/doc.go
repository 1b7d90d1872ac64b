// Package streambench is the harness of the streaming benchmarks: a fake
// model server speaking OpenAI's chat-completions wire format and the
// test clients, run in a child process so that the benchmark's process
// holds only the server under test, as users run it (the model server
// and the browsers are other programs). The parent starts the child
// (Start), hands it plans over a pipe and gets back what the clients
// measured as JSON; the child's CPU is reported apart from the parent's.
//
// Proxy is the peer measured beside hearth: a bare net/http SSE proxy
// that forwards each token of the model's stream, the floor of a machine
// for this shape of work.
package streambench
