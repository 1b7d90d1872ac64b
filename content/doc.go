// Package content loads campaigns: the author's own material that Hearth
// plays from. "The more a campaign provides, the less the AI invents."
//
// A campaign is a directory (seed 001 §6.2):
//
//	campaign.yml              title and version (required), author, license,
//	                          system (d20, 2d6 or traveller), start (location,
//	                          time "21:00", day, scene, mood), player (the
//	                          pre-made character's id), intro, and optional
//	                          clocks, threads, relationships, scheduled_events
//	*.md, *.txt               one entity each: YAML frontmatter between ---
//	                          lines states the facts, the prose body is the
//	                          description
//	stats/*.json|yml          campaign stats: id, range {min, max}, default,
//	                          display, label, category, hidden,
//	                          behavioral_prompt; stats/hidden/ are hidden;
//	                          npc.<id>.<stat>.json is scoped to one NPC
//	items/*.json|yml          items: id, label (or name, display_name), type,
//	                          damage, damage_type, ability, effect ("heal
//	                          2d4+2", "health +25", "remove poisoned"), uses,
//	                          weight, value, ac_bonus, fixed, description
//	                          (or behavioral_prompt), flavor_text
//	player_character_constraints.yml   starting_location, starting_items
//
// A file's entity_type comes from its frontmatter, else its name prefix
// (npc_, character_, creature_, location_ or loc_, quest_, faction_, lore_,
// world_, consequence_, item_, player_), else its directory (npcs/,
// locations/, …); its entity_id from the frontmatter, else the rest of the
// file name. Entity fields use the world package's JSON names: a location
// has name, aliases, exits [{to, direction, description, locked, key,
// hidden}], items {id: qty}, discoverables [{id, text, skill, dc, item,
// exit}], encounter {creatures, text}, atmosphere; a character has name,
// location, disposition, personality, faction, greeting, topics {topic:
// line}, knowledge, secret, hostile, perception, the 5e sheet (race, class,
// level, abilities, hit_points, armor_class, skills, saving_throws,
// attacks [{name, bonus, damage, damage_type}], gold …), inventory,
// equipped, stats; a quest has name, giver, status, objectives [{id, text,
// optional}], reward_gold, reward_items, reward_xp; a faction name and
// reputation; lore becomes a fact with visibility (player … gm_only) and
// priority 1–5; a consequence has trigger, on (enter_location, take_item,
// defeat, quest_completed, talk, use_item), target, at, description,
// severity, importance and then (intents, as the rules package names them).
//
// Load reports every problem at once, each naming the file and line and
// what would be valid. Files cannot reach outside the campaign directory.
package content
