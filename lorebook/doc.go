// Package lorebook imports keyword-activated lore written for SillyTavern
// and activates it the way SillyTavern does, deterministically.
//
// It owns two things. Parse reads a SillyTavern World Info file, or the
// lorebook embedded in a Character Card V2 or V3 (data.character_book, JSON
// cards only: package charcard reads PNG cards and hands their lorebook on;
// CHARX is out of scope), or a standalone V3 lorebook, into a Book. Book.Activate scans
// recent messages for the entries' keys and returns what to insert, within a
// token budget, with the reason for every entry it included or left out.
// Activation.Passages turns the result into retrieval-shaped passages with
// ids "lorebook:<book>:<uid>" so keyword lore and retrieved lore can share
// one budget.
//
// It must not build prompts, store anything or decide visibility: where an
// entry's content goes (Position, Depth, Role are passed through) and who
// may read it belong to the context builder. It holds no global state; a
// Book is immutable after Parse, and timed effects live in a caller-owned,
// JSON-serialisable State.
//
// # Sources followed
//
// Field names, defaults and the activation algorithm follow SillyTavern's
// own code, public/scripts/world-info.js in SillyTavern/SillyTavern
// (checkWorldInfo, WorldInfoBuffer.get/matchKeys/getScore,
// WorldInfoTimedEffects, filterByInclusionGroups, convertCharacterBook,
// parseRegexFromString, parseDecorators, newWorldInfoEntryDefinition), and
// its documentation, "World Info" at docs.sillytavern.app
// (SillyTavern/SillyTavern-Docs Usage/worldinfo.md):
//
//   - "Entries with higher order numbers will be inserted closer to the end
//     of the context as they will have more impact on the output."
//   - "Constant entries will be inserted first. Then entries with higher
//     order numbers." (the budget order)
//   - "If multiple entries having the same group label were activated, only
//     one will be inserted into the prompt." … "the one with the highest
//     'Order' value will be selected" with Prioritize Inclusion.
//   - "Sticky - the entry stays active for N messages after being activated.
//     … Cooldown - the entry can't be activated for N messages after being
//     activated. … Delay - the entry can't be activated unless there are at
//     least N messages in the chat at the moment of evaluation."
//   - "Active timed effects are removed if the chat doesn't advance."
//
// The card formats follow the Character Card V3 specification,
// kwaroran/character-card-spec-v3 SPEC_V3.md ("Lorebook Fields", "entries
// Fields", "Decorators"), which extends the V2 one: keys, secondary_keys,
// content, enabled, insertion_order, case_sensitive, use_regex, constant,
// selective, priority, position, and SillyTavern's own settings under each
// entry's extensions (probability, group, sticky, …), read the way
// convertCharacterBook reads them.
//
// # Deliberate differences
//
// These are where Hearth does not copy SillyTavern, and why.
//
//   - Randomness is seeded: probability rolls and group draws derive from
//     Input.Seed, Input.Turn and what is decided, never from a global
//     random source, so a turn replays identically.
//   - Regex keys (/pattern/flags, recognised exactly as SillyTavern does)
//     run on Go's RE2, which matches in linear time, so no key can stall a
//     turn. RE2 has no lookarounds and no backreferences: such keys are
//     reported as Book.Warnings at import and never match. Flags i, m, s map
//     onto RE2; y anchors at the start; g and u are ignored. A V3 entry with
//     use_regex treats its keys as bare patterns.
//   - The budget admits an entry while the running total stays within it
//     (SillyTavern stops one token earlier, at total ≥ budget) and counts
//     each entry on its own with cl100k rather than the joined text.
//     Constants are admitted before other entries, as the documentation
//     says; SillyTavern's code orders only sticky entries first.
//   - Recursion is on by default, up to DefaultMaxRecursion passes after
//     the first (SillyTavern's is off by default and unbounded when on). A
//     card's recursive_scanning: false turns it off, as the V3 spec
//     requires, and then delayUntilRecursion entries never activate.
//   - Time is Input.Turn: pass the number of messages for SillyTavern's
//     exact durations, or the number of turns if a turn should count once.
//     Effects follow its code's start/end arithmetic (see Input.Turn).
//   - Not modelled: macros such as {{char}} in keys and content (substitute
//     them before Parse, and in the messages), character filters,
//     generation triggers, min activations, vector matching, additional
//     matching sources (persona, description) and outlet names. A missing
//     "enabled" on a card entry means enabled (SillyTavern reads it as
//     disabled).
//   - Inclusion groups: an entry that lost one of its groups cannot win
//     another, and an entry included in an earlier pass holds every group
//     it belongs to (SillyTavern compares the whole group field).
//   - Decorators: @@activate and @@dont_activate as SillyTavern, plus the
//     spec's @@scan_depth, @@activate_only_after and @@activate_only_every
//     (counted in turns). Others are warned about and ignored, letting
//     their @@@ fallbacks apply.
//
// Input is bounded: MaxBytes of JSON and MaxEntries entries, else
// ErrTooLarge; an entry's scan depth is capped at MaxScanDepth.
package lorebook
