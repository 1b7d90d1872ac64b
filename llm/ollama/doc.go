// Package ollama is an llm.Provider for a local or remote Ollama server,
// speaking its native API (/api/chat, /api/tags, /api/show, /api/embed)
// through the official github.com/ollama/ollama/api client.
//
// Chat streams text and tool calls; HTTP failures become *llm.Error with
// the status's kind (and Retry-After when the server sends one), transport
// failures go through llm.Classify, and an unreadable or truncated stream
// is an llm.Malformed error.
package ollama
