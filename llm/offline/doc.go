// Package offline is the provider Hearth uses when no language model is
// configured. It implements llm.Provider deterministically so code written
// for real models (chat, streaming, tool calls, embeddings) runs with none:
// Chat joins tool results into prose and streams it sentence by sentence;
// with WithToolCalls, a user message offered tools becomes the tool calls
// the injected function finds (Hearth wires offlinegm.ToolCalls, the
// pattern interpreter); its embeddings are hashed bags of words, useful for
// plumbing, not for meaning.
//
// It knows no game: the pattern interpreter and template narrator that play
// without a model are package offlinegm.
package offline
