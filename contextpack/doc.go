// Package contextpack assembles the context packet: what one model call may
// know, for one viewer, under a token budget.
//
// Assembly is deterministic — identical state gives byte-identical
// packets — and follows the precedence tiers of the Narratoria design:
// campaign canon first (tier 1), then live session state (tier 2), the
// characters' authored descriptions (tier 3), facts established in play
// (tier 5) and lossy narrative summaries last (tier 6). Canon facts are
// kept apart from summaries: a summary is labelled as such and never
// replaces a fact, and a fact the budget leaves out is listed as dropped.
//
// A packet is a projection for one viewer — the game master, one player,
// one AI character — and holds only what that viewer may know: GM-only
// facts, secrets, pending consequences and other people's whispers never
// reach a player's packet. Stable sections come first so providers can
// cache the prompt prefix.
package contextpack
