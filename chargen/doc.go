// Package chargen builds Dungeons & Dragons 5e player characters from a
// player's choices — race and subrace, class, background, ability scores by
// standard array, point buy or seeded 4d6-drop-lowest rolls, skills — and
// derives what the rules fix: hit points, armor class, proficiency bonus,
// saving throws, skill modifiers, spell slots, spell save DC and attack.
// Build refuses a build the rules do not allow with an Invalid error whose
// message names the rule ("point buy spends 29 points; the budget is 27").
// The error is a Refusal: it also carries a message id of the chargen
// catalog in package i18n and its data, so that a door can say the rule in
// the reader's language.
//
// Levels 1–20 are supported for hit points, proficiency bonus and spell
// slots; ability score improvements and subclass choices after level 1 are
// not modelled (a character is built as its level-1 choices carried up).
// Where the SRD offers one subclass chosen at level 1 (Life Domain,
// Draconic Bloodline, The Fiend) it is applied.
//
// A built character becomes the game's sheet through Character.Sheet
// (a world.Character), gets a backstory from Backstories (templates, seeded,
// offline; a model-written one plugs in through the Storyteller interface)
// and is kept in a user's library through Store (SQL in
// chargen/sqlitecharacters, conformance suite in chargen/charactertest).
//
// # Attribution
//
// The races, classes, the Acolyte background, armor, weapons, spell slot
// tables and the Acolyte's suggested characteristics are from the System
// Reference Document 5.1 by Wizards of the Coast LLC, available at
// https://dnd.wizards.com/resources/systems-reference-document and licensed
// under the Creative Commons Attribution 4.0 International License
// (https://creativecommons.org/licenses/by/4.0/). The other backgrounds'
// skill proficiencies follow the classic ones (not in the SRD); their
// characteristics and every backstory template are Hearth's own text.
package chargen
