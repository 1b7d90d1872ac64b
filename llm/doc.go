// Package llm is how Hearth talks to language models. Provider is one
// model server (Ollama, any OpenAI-compatible server, Anthropic, Gemini, or
// the built-in offline provider): chat with streaming, tool calls and
// images for vision models, model listing, embeddings. Interpreter and
// Narrator are the two roles a turn needs from a model — read the player's
// words as intents, and tell what the rules engine decided — so the game
// can be played by a real model or, with none configured, by the
// deterministic offline provider.
//
// Providers never change game state; what they return is a proposal the
// rules engine checks.
package llm
