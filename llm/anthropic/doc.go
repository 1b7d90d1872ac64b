// Package anthropic is the llm.Provider for Anthropic's Messages API,
// built on the official Go SDK.
//
// Chat always streams (POST /v1/messages with "stream": true): text is
// passed on as it arrives, and each tool call is passed on whole once its
// streamed JSON arguments are complete. System messages become the
// request's system blocks; tool results become tool_result blocks in user
// turns, merged so that user and assistant turns alternate. A message with
// Cache set gets cache_control {"type": "ephemeral"} on its last block, so
// everything up to it is cached by the server. A Schema asks for JSON with
// an instruction appended to the system prompt.
//
// The SDK's own retries are off (Hearth retries in its wrapper) and it is
// built without the SDK's environment defaults, so only the base URL and
// key given to New are used. Errors are *llm.Error: 429 is RateLimited with
// the server's retry-after, 529 and in-stream error events are Overloaded.
//
// Anthropic has no embeddings API: Embed always fails with BadRequest.
package anthropic
