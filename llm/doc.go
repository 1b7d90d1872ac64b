// Package llm is how Hearth talks to language models. Provider is one
// model server (Ollama, any OpenAI-compatible server, Anthropic, Gemini, or
// the built-in offline provider): chat with streaming, tool calls and
// images for vision models, model listing, embeddings; middleware adds
// timeouts and retries.
//
// llm and its providers know no game package (no rules, world or game):
// the roles a turn needs from a model are defined by their consumer
// (game.Interpreter, game.Narrator), and modelgm plays them through this
// package. Providers never change game state; what they return is a
// proposal the rules engine checks.
package llm
