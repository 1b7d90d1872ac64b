// Package gemini is the llm.Provider for Google's Gemini Developer API,
// built on the official google.golang.org/genai SDK: streamed chat with
// function calling and JSON-schema output, model listing and embeddings.
//
// The SDK's own retries (HTTP retry options and the automatic resumption of
// dropped streams) are turned off, so that a call is one request and
// Hearth's retry wrapper alone decides, from the llm.Error kinds, whether to
// try again.
//
// Gemini 3 models refuse a replayed function call that lacks the thought
// signature the model attached to it. llm.ToolCall has no field for it, so
// the Provider remembers the signatures of the calls it returned and puts
// them back when those calls come back in a request's history; for calls it
// does not know (another provider's, or from before a restart) it sends the
// placeholder Google documents for skipping the check.
package gemini
