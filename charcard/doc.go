// Package charcard reads SillyTavern character cards and turns them into
// campaign content: an NPC or a player character file, and the card's
// lorebook as a keyword lorebook of the campaign.
//
// Formats read, detected from the content:
//
//   - Character Card V3 (spec "chara_card_v3", kwaroran/character-card-spec-v3
//     SPEC_V3.md): the V2 fields plus nickname, group_only_greetings,
//     assets, source, creation_date and modification_date.
//   - Character Card V2 (spec "chara_card_v2",
//     malfoyslastname/character-card-spec-v2): name, description,
//     personality, scenario, first_mes, mes_example, creator_notes,
//     system_prompt, post_history_instructions, alternate_greetings,
//     character_book, tags, creator, character_version, extensions.
//   - V1 (no spec: the same first six fields at the top level).
//   - Any of these embedded in a PNG as a tEXt chunk holding base64 JSON:
//     keyword "ccv3" for V3, "chara" for V2 or V1. When a PNG holds both,
//     ccv3 wins, as the V3 spec asks.
//
// Input is bounded before it is decoded (MaxPNGBytes, MaxJSONBytes); every
// error is a hearth.Invalid naming what is wrong. The lorebook itself is
// parsed by package lorebook, so what imports here activates in play.
//
// Chat-front-end fields that have no place in a game master's world
// (system_prompt, post_history_instructions, extensions, assets) are not
// imported; Import reports each one it left out.
package charcard
