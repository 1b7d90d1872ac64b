// Package traveller holds the Traveller world and jump rules behind the
// traveller_uwp_parse and traveller_jump_calc tools: it reads Universal
// World Profiles, derives trade codes, reads world lists and measures,
// fuels and routes jumps.
//
// Parse decodes a UWP such as "A788899-C" (eHex digits, X or ? unknown)
// into a UWP whose fields carry their meaning: starport quality, fuel and
// facilities; diameter and gravity; atmosphere and the survival gear it
// needs; water cover; population range; government; law level with the
// weapons and armour it bans; tech level era and best jump drive. Its JSON
// (snake_case) and Describe (one line per field) are meant to be shown to a
// person or a model as they are. Bad input is a *ParseError naming the
// position, the field and the character.
//
// TradeCodes applies one of two rule sets: Mongoose2e, the game's rules
// and the zero value, or T5, the Second Survey rules that published data
// (Traveller Map) follows. They differ in Fl, Wa, Ri, Lt, As and Ba; the
// tests hold T5 to the remarks of 1,552 real worlds and account for every
// Mongoose difference.
//
// ReadWorlds reads Traveller Map's tab-separated world lists; Find looks a
// world up by name or "Sector hex". Distance counts parsecs between hexes,
// across sectors whose map positions it knows (Spinward Marches, Deneb,
// Trojan Reach, Solomani Rim) or within any one sector. JumpFuel is 10% of
// the hull per parsec; a jump takes 148+6D hours whatever its length.
// Route finds the fewest jumps (then the fewest parsecs) between two worlds
// through a list of stops, and Plan turns a route into legs with fuel and
// time.
//
// The package computes and reports; it must not roll dice, change game
// state, or know about storage, models, tools or any user interface. It
// does not ship world data: the tests read the real list from outside the
// repository and skip when it is absent.
package traveller
