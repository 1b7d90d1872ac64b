// Package modelgm is the AI game master: the turn pipelines that let a language
// model run a game while the rules engine stays in charge of what happens.
//
// Two pipelines, chosen per campaign:
//
//   - agentic: one game-master agent with the rules engine's intents as
//     tools loops until it narrates. A router — a small JSON call to the
//     interpreter model, keywords when it fails, combat during a fight —
//     picks a focused subagent (combat, npc, exploration, rules or
//     worldbuilder), each with its own prompt, context slice and a short
//     tool list that always holds roll_dice and ability_check.
//
// In both, an attack on someone who is not hostile is not resolved but
// asked of the player (game.Turn.Confirm); a yes carries it out.
//   - multipass (Freeform): interpreter → validator → planner (optional)
//     → resolver → narrator, each pass with its own prompt, the JSON
//     passes validated against schemas generated from Go types.
//
// Every model call's context packet, prompt version, output, usage and
// fallback is recorded with the turn. When a model fails or talks
// nonsense, the pass falls back to the offline interpreter or narrator
// (offlinegm, its sibling without a model, through game.Turn), so a turn
// always ends with narration. A role configured offline gets the offline
// provider (llm/offline), whose tool calls app wires to
// offlinegm.ToolCalls.
package modelgm
