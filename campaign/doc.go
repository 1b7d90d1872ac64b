// Package campaign loads campaigns and content packs: the authored
// material Hearth plays from. "The more a campaign provides, the less
// the AI invents."
//
// One format serves both. A content pack (seed 004: a sourcebook, a
// bestiary, a rules system) and a campaign (seed 001 §6.2: a playable
// adventure) are the same kind of directory, told apart by their
// manifest. Load and LoadFS read a campaign and return the Campaign the
// game plays; LoadPack reads either, from a directory or an archive, and
// returns a Pack; Validate reports on either without failing. The format
// underneath (manifests, versions and requirements, archives, frontmatter,
// limits, problems) is package pack; this package is what the files mean.
//
// # Layout
//
//	pack.yml                  a pack's manifest (or manifest.json,
//	                          manifest.yml): id (a slug, required), name,
//	                          version (semver, required), description,
//	                          author, license, attribution, layer (base,
//	                          supplement or homebrew), requires ("srd51
//	                          >=5.1", {id, version}), access (the default
//	                          level of its text), tags, system
//	campaign.yml              a campaign's manifest (or scenario.yml):
//	                          title and version (required), id (else the
//	                          title's slug), author, license, system (d20,
//	                          2d6 or traveller), packs (those it plays
//	                          with, as requires), start (location, time
//	                          "21:00", day, scene, mood), player (the
//	                          pre-made character's id), intro, and
//	                          optional clocks, threads, relationships,
//	                          scheduled_events
//	*.md, *.txt               one entity each: YAML frontmatter between ---
//	                          lines states the facts, the prose body is the
//	                          description; in a pack, a file without
//	                          frontmatter may be plain prose (a rules
//	                          chapter) typed by its folder
//	*.yml, *.json             an entity written as YAML, when it says its
//	                          entity_type
//	stats/*.json|yml,         campaign stats: id, range {min, max}, default
//	stat_*.yml                (starting_value), display, label
//	                          (display_name), category, hidden (visible:
//	                          false), behavioral_prompt (tooltip);
//	                          stats/hidden/ are hidden; npc.<id>.<stat> is
//	                          scoped to one NPC
//	items/*.json|yml,         items: id, label (or name, display_name),
//	item_*.yml                type, damage, damage_type, ability, effect
//	                          ("heal 2d4+2", "health +25", "remove
//	                          poisoned"), uses, weight, value, ac_bonus,
//	                          fixed, description (or behavioral_prompt),
//	                          flavor_text
//	plot_beat_*.yml|md,       plot beats (see Beat): conditions (a scene
//	beats.yml, plot/*.json    window, prerequisite beats, stats, location,
//	                          flags, items, faction reputation, state),
//	                          consequences, priority
//	player_character_constraints.yml   starting_location, starting_items
//	art/, music/, ui/         images (png, jpg, webp, gif, svg), sound
//	                          (mp3, ogg, wav, flac) and video (webm, mp4),
//	                          with X.keywords.txt (one keyword a line) and
//	                          X.meta.json|yml (generated, provenance,
//	                          alt_text, state_binding) beside them;
//	                          ui/state/ and ui/items/ icons bind to state
//	                          paths (see AssetIndex)
//
// README, LICENSE, ATTRIBUTION, CHANGELOG and NOTICE files are about the
// pack, not in it, and are skipped; so are hidden files.
//
// A file's entity_type comes from its frontmatter, else its name prefix
// (npc_, character_, creature_, location_ or loc_, quest_, faction_, lore_,
// world_, consequence_, item_, plot_beat_, stat_, player_), else its
// directory (npcs/, locations/, …); its entity_id from the frontmatter,
// else the rest of the file name; its content_type from the frontmatter,
// else an aspect at the end of its name (_backstory, _personality, …),
// else its folder (Spells/ → spell). Entity fields use the world
// package's JSON names: a location has name, aliases, exits [{to,
// direction, description, locked, key, hidden}], items {id: qty},
// discoverables [{id, text, skill, dc, item, exit}], encounter
// {creatures, text}, atmosphere; a character has name, location,
// disposition, personality, faction, greeting, topics {topic: line},
// knowledge, secret, hostile, perception, the 5e sheet (race, class,
// level, abilities, hit_points, armor_class, skills, saving_throws,
// attacks [{name, bonus, damage, damage_type}], gold …), inventory,
// equipped, stats, tags (innkeeper, trader, shopkeeper, merchant, barkeep
// or vendor: the player can buy from them; tiny … gargantuan: their size);
// a quest has name, giver, status, objectives [{id,
// text, optional}], reward_gold, reward_items, reward_xp; a faction name
// and reputation; lore becomes a fact with visibility (player …
// gm_only) and priority 1–5; a consequence has trigger, on
// (enter_location, take_item, defeat, quest_completed, talk, use_item),
// target, at, description, severity, importance and then (intents, as the
// rules package names them); without on, its trigger in words is checked
// each turn (by the model, else by the places, people and items it names).
// A clock in campaign.yml has id, name, max, on_full, every (it ticks each
// time this much game time passes: "1h"), tick_on (effect kinds that tick
// it), thread (it ticks only while that thread is open) and then.
//
// # Minimal campaigns
//
// A campaign needs only campaign.yml (title and version) and a few prose
// files. What it leaves out is assumed, each with a warning, never an
// error: no locations and no start.location make one location named for
// start.scene or the title (the campaign plays as a single scene); no
// player character and no player or party make DefaultPlayer, a plain
// first-level traveller; an NPC with no location starts in the opening
// scene. A campaign that plays with packs gets none of this: its packs may
// hold what it lacks.
//
// # Archives
//
// A pack may be a .tar.gz, .tgz or .campaign.gz (gzip tar) or a .zip,
// with the pack at its root or in one folder. Archives are read into
// memory, never extracted. Links, devices, absolute paths and .. are
// refused, and sizes are counted as the bytes come, so a zip bomb stops
// at the limit: MaxFiles entries, MaxFileSize for a text file,
// MaxAssetSize for an asset, MaxPackSize in all.
//
// # Namespaces, layers and scenarios
//
// A pack's entities are known to other packs by namespaced id,
// pack:entity (srd51:goblin). A pack may refer to the entities of the
// packs it requires; Layer joins packs base first, then supplements, then
// homebrew, and checks those references. A later pack replaces an earlier
// one's entity only when it says overrides: pack:entity; defining the
// same namespaced id again without it is an error naming both files. A
// campaign plays with packs (packs: in campaign.yml): NewScenario binds
// it to them, resolving a plain id to the campaign's own entity first,
// then to the packs, most specific layer first; Scenario.NewState copies
// the pack entities the campaign reaches into the game, under their
// namespaced ids. Campaign.BindPacks keeps such a scenario with the
// campaign, so that its NewState and NewStateWithParty start every game
// through it; ValidateWithPacks reports what stops the binding.
//
// # Chunks
//
// Pack.Chunks cuts a pack into retrieval chunks (package chunk): each
// file's frontmatter as a chunk of its own, prose by heading and
// paragraph, structured files by field group, GM-only text (secret:
// keys, hidden stats, files whose access or visibility is gm_only) apart
// and marked. Tiers follow seed 001 §5.3.1: 1 for frontmatter and
// structured fields (assertions), 2 for the player character's prose, 3
// for prose about the entity its file defines, 4 for prose of files that
// define none. Ids in chunks are namespaced; a campaign's world ids are
// namespaced with Pack.NamespacedID.
//
// # Problems
//
// Loading reports every problem at once, each naming the file and line
// and what would be valid; provenance problems use seed 001 §6.2.14's
// words. Files cannot reach outside the pack. This package parses,
// checks and exposes content; it does not play it (world, rules, game),
// run plot beats (the narrative engine), or index chunks (retrieve).
package campaign
