// Package evaluate measures how well the game master played a session,
// from its recorded turns alone (seed 004's evaluation tracker): the
// turns' inputs, narration, effects and pass records, and the flags
// players raised. It reads a live session or an exported transcript the
// same way and changes nothing.
//
// Every metric is defined from the record, so two runs over the same
// turns give the same figures:
//
//   - Contradictions: a later narration that negates an established fact.
//     Offline this is lexical: a sentence that uses at least two thirds
//     of a fact's content words (two at least) with the opposite polarity
//     (one has a negation — not, no, never, n't … — and the other has
//     none); and a character who died (condition "dead") or was removed
//     from the world later named as the subject of speech or action
//     ("Mira says", "Tomas nods") in a sentence with no word of death or
//     memory. It finds plain reversals and misses paraphrase, irony and
//     facts stated in other words; it can flag a sentence that negates
//     something else with the same words. Treat it as a pointer to turns
//     to read, not a verdict.
//   - Invalid-action acceptance: of the committed turns whose intents the
//     rules rejected, the share whose narration shows no sign of the
//     refusal (no negation or failure word), that is, narrated as if the
//     action succeeded. Input refused before any turn (recorded as
//     refusal notes) is answered by the rules' own words and is counted
//     apart.
//   - Clarification rate: of the player's inputs (committed turns and
//     input answered without a turn), the share the game answered with a
//     question instead of playing: a confirmation asked, input not
//     understood, a pipeline interpreter that replied without intents or
//     asked to confirm, and a turn recorded as awaiting "clarification"
//     or "confirmation".
//   - Response length: words of narration per committed turn.
//   - Lore: passages offered per turn (those kept within the lore budget
//     when a model read lore, else the scene cache's), their relevance
//     (the share of offered passages one of whose key terms appears in
//     the turn's input or narration) and the scene-cache hit rate (turns
//     that read the prepared scene cache rather than retrieving anew).
//   - Callback rate: game.CallbackRate.
//   - Tokens and latency per pass: each model call's usage and duration,
//     by pass name (interpreter, validator, planner, narrator, agent:…,
//     summariser).
//   - Flags: the turns players flagged, with their reasons.
package evaluate
