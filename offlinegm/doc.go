// Package offlinegm is the game master without a model: a pattern
// interpreter and a template narrator, the sibling of modelgm. Its
// interpreter reads player input with patterns (verbs, directions, "talk
// to X about Y", "attack X with Y", chains joined by "then") into rules
// intents; its narrator tells the outcomes with templates filled from the
// campaign's own text — location and character descriptions, item
// flavour, what people say — and the rules engine's numbers. It is
// deterministic: the same world and input give the same words, with
// variety chosen by hashing the turn, the actor and the target.
//
// It is not a language model: it understands a fixed grammar (see Help)
// and invents nothing. It needs only rules and world; game uses it when
// no interpreter or narrator is given. ToolCalls adapts the interpreter to
// the offline provider (llm/offline), so code written for real models'
// tool calls runs offline too.
package offlinegm
