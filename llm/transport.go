package llm

import (
	"net/http"
	"time"
)

// ServerIdleConnsPerHost is how many idle connections ServerTransport
// keeps to one model server. Go's default is 2: on a server with
// hundreds of chats streaming from one model server at once, every chat
// after those 2 opened a new TCP connection (and TLS session) to it.
const ServerIdleConnsPerHost = 1024

// ServerReadBufferSize is the read buffer of each of ServerTransport's
// HTTP/1 connections, a quarter of Go's default 4 KB. A streaming chat
// holds its connection to the model the whole answer, and with a
// thousand at once each kilobyte of it is a megabyte the collector
// makes room for as they start; a stream's events are a few hundred
// bytes each. Longer lines (headers, a large chunk) are read in pieces
// by net/http, and reads longer than the buffer bypass it.
const ServerReadBufferSize = 1024

// ServerTransport is an HTTP transport sized for a server talking to
// model servers: Go's default transport (proxy from the environment,
// HTTP/2 where offered, the same dial and TLS timeouts) keeping up to
// ServerIdleConnsPerHost idle connections per host, closed after 90 s
// idle. A response's headers are awaited at most 10 minutes (a model
// server loading a large model can take minutes); the body of a stream
// is not limited. An HTTP/1 connection reads through a buffer of
// ServerReadBufferSize.
func ServerTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 4 * ServerIdleConnsPerHost
	t.MaxIdleConnsPerHost = ServerIdleConnsPerHost
	t.IdleConnTimeout = 90 * time.Second
	t.ResponseHeaderTimeout = 10 * time.Minute
	t.ReadBufferSize = ServerReadBufferSize
	return t
}
