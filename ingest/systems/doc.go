// Package systems is ingestion's systems extractor (seed 004): it reads
// a sourcebook's mechanics out of extracted page text — monster stat
// blocks, weapon and armor tables, magic items — into structured values
// a content pack can hold, and sorts passages into the seed's content
// types (lore, rules, stat block, item, spell, table, adventure,
// character option).
//
// It is rule-based and offline, written for the 5e stat block layout
// (name, size/type/alignment, Armor Class, Hit Points, Speed, the six
// ability scores with modifiers, the optional lines, Challenge, traits,
// Actions). What it is unsure of it says so (Monster.Problems), so the
// ingest pipeline can hand that block to a model. It reads no files and
// talks to no model: the pipeline does both.
package systems
