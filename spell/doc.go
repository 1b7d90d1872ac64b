// Package spell reads a rules pack's spell entries (the SRD's Markdown:
// "#### Fireball", the level and school in italics, then **Casting
// Time:**, **Range:**, **Components:** and **Duration:**) into structured
// data the rules engine can resolve: level (0 for a cantrip), school,
// concentration, ritual, spell attack or saving throw, damage and healing
// dice, how they grow with a higher slot or the caster's level, area,
// conditions and the classes whose lists hold the spell.
//
// Parsing is forgiving: what a sentence does not say in a form the parser
// knows is left empty, and Spell.Complete reports whether the entry's
// header fields all parsed. A Book is parsed once per pack (Load) and
// read-only after; SRD is the book of the bundled srd51 pack, parsed on
// first use and kept for the life of the process.
package spell
