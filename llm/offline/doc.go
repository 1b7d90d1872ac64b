// Package offline is the provider Hearth uses when no language model is
// configured. Its interpreter reads player input with patterns (verbs,
// directions, "talk to X about Y", "attack X with Y", chains joined by
// "then") into rules intents; its narrator tells the outcomes with
// templates filled from the campaign's own text — location and character
// descriptions, item flavour, what people say — and the rules engine's
// numbers. It is deterministic: the same world and input give the same
// words, with variety chosen by hashing the turn, the actor and the target.
//
// It is not a language model: it understands a fixed grammar (see Help)
// and invents nothing. It also implements llm.Provider so code written for
// real models (tool calls, streaming) runs offline, and its embeddings are
// hashed bags of words, useful for plumbing, not for meaning.
package offline
