// Package gameapi is the live game API: REST endpoints over stored games and
// a WebSocket per game that streams play to every client watching it and
// takes their commands, with seed 002's message protocol. It owns live
// sessions (one game.Session per game, shared by all its connections, open
// while a client, a request, a queued turn or the autopilot needs it and
// for Options.Linger after, and given to Options.Prepare each time it is
// opened), the
// autopilot that lets a game play itself, and what each role is shown. It
// must not hold game rules or state of its own: turns, restores, forks and
// transcripts are game.Session's, storage is store.Store's, and what a role
// may see of the world is world.State.View's. It must not authenticate: the
// caller wraps it in middleware that puts an auth.User on each request.
//
// # Roles
//
// The GM and assistants see the GM's view: the whole state, every effect,
// turn records with intents and pipeline passes, the dice seed. Trusted
// players and players see the world as View(level, the player character)
// cuts it, effects that view admits (world.VisibleEffects), turn records
// without intents or passes, transcripts built from those records, and no
// seed. Creating, deleting, restoring, forking, switching and changing the
// configuration take an assistant or the GM; so do the autopilot commands
// (start_autopilot, stop_autopilot, set_speed) and reveal_secret. Any user
// may play: human_action, next_turn, drop_in, release_control, nudge,
// whisper.
//
// # Several humans
//
// Each user holds at most one character at a time, and a character has one
// holder: drop_in on a held character is refused (error, recoverable), but
// the GM may take it over, and the previous holder gets control_released.
// In a party game dropping in and letting go are DM turns with a
// controller_changed effect (to the human, and back to the character's
// agent), so replay, restore and fork keep who played what. human_action
// acts as the character its sender holds (turn agent = that character,
// controller = the user); a GM who holds none acts as the character acting
// now; any other player of a party game must drop in first. In a game of
// one (no party), the one character is everyone's at the table, as before:
// anyone may act while nobody holds it. A player is shown the game through
// the character they hold: its sheet whole, the others as strangers and in
// session_state's party summary (name, class, HP band, conditions, who
// plays it), and only the whispers to or from it. Disconnecting releases.
// The autopilot pauses while any human holds a character.
//
// # Nudges
//
// A nudge is a suggestion, never a command: it waits (session_state shows
// how many) and goes with the next committed turn as a note_recorded effect,
// shown in transcripts as "(suggested by ann: …)" and given to the game
// master's model as context. The autopilot's offline agents follow a nudge
// that names a character present, an exit or an item lying here; its words
// are never played.
//
// # Whispers (FR71–FR75)
//
// The GM whispers to a party member ({to: character}); a player whispers
// from the character they hold to the game master ({to: "dm"}); the game
// master's model whispers to a character through the rules' whisper. Each
// is a DM turn with a whisper_sent effect (from, to, text, turn, revealed,
// revealed_turn), so restore and fork keep it exactly, and reaches only the
// connections of the users holding its sender or reader and the GM's, as
// a whisper message; the turn's turn_update carries it only in their views.
// In contexts it is headed "[SECRET - DO NOT REVEAL DIRECTLY]". reveal_secret
// makes it everyone's: secret_revealed to all.
//
// # Failures
//
// A turn whose model failed and was played offline (the pipeline's
// fallback) is sent as usual, followed by error{recoverable: true} naming
// the fallback to every client, and keeps a note_recorded "fallback" note
// the transcripts show. For the autopilot such a turn, like a failed one,
// counts as a failure: its pause doubles with each (capped at two minutes)
// and it stops with autopilot_stopped{reason: "error"} after three.
//
// # Several servers
//
// With Options.Cluster, servers on one database share their games. A game
// is owned by one process at a time, the holder of its lease: it plays
// the turns, runs the autopilot and keeps the holds and nudges. Another
// process with clients of the game is its follower: it mirrors the
// owner's table (the GM's view of the world, holds, autopilot) from the
// owner's events and sends its own clients what each may see, cutting
// views, turns and whispers itself as the owner does; its clients'
// commands, and every REST request for the game, are forwarded to the
// owner and answered from there. A follower whose owner stopped renewing
// the lease takes the game over (read again from the store) and resumes
// its autopilot; a lease whose owner died with its autopilot running is
// taken up by any server. Before each turn the owner checks that it
// still holds the lease, and a turn that conflicts in the store makes it
// a follower. Without a Cluster (Solo) the one server owns every game.
//
// # REST
//
//	GET    /api/campaigns                        {campaigns: [CampaignInfo]} (assistant or GM)
//	GET    /api/sessions                         {sessions: [SessionInfo]}
//	POST   /api/sessions                         CreateRequest → 201 SessionInfo
//	GET    /api/sessions/{id}                    SessionInfo with detail
//	DELETE /api/sessions/{id}                    204
//	GET    /api/sessions/{id}/config             Config
//	PUT    /api/sessions/{id}/config             ConfigUpdate → Config
//	GET    /api/sessions/{id}/turns?from=&to=    TurnsPage (at most 500 turns)
//	POST   /api/sessions/{id}/turns/{n}/flag     {reason} → 201 game.Flag (any user who may play)
//	POST   /api/sessions/{id}/restore            {turn} → SessionInfo
//	GET    /api/sessions/{id}/forks              {forks: [game.BranchInfo]}
//	POST   /api/sessions/{id}/forks              {name, description?} → 201 game.BranchInfo
//	PUT    /api/sessions/{id}/forks/{name}       {description?, is_canonical?} → game.BranchInfo
//	POST   /api/sessions/{id}/forks/{name}/switch → SessionInfo
//	GET    /api/sessions/{id}/compare?a=&b=      Comparison
//	GET    /api/sessions/{id}/transcript?format=json|md  attachment
//	PUT    /api/sessions/{id}/party/{character}/controller  ControllerRequest → MemberController (assistant or GM)
//
// A new game's party may come from the character library
// (CreateRequest.Party, Options.Characters): each PartyPick names a
// character of the creator's library (a GM's: anyone's) and who plays it,
// checked against Options.Users and Options.Models; the party replaces
// the campaign's own player characters at its start (game.Options.Party),
// so it is the game's from turn 0. The controller route changes a member's
// controller during play as a DM turn (controller_changed), so replay and
// restore keep it; it answers 409 while a human holds the member by
// drop-in. The detail's images says whether the viewer may have a scene
// drawn.
//
// A flag is a player's complaint about a turn, for 'hearth eval' and
// prompt tuning: it names the user who sent it, is kept beside the turn
// (the GM's JSON transcript lists the flags) and changes nothing in the
// game, its clients or its branches.
//
// Adventure modules (seed 002 FR56–FR59), an assistant or the GM only:
//
//	GET    /api/sessions/{id}/modules            ModuleList {modules: [world.Module], source, notice?}
//	POST   /api/sessions/{id}/module             ModuleChoice {number | name} → ModuleSelected {module, turn}
//
// The list is the DM's model's (game.Session.ModuleFinder; source "model")
// or, with no model or when it fails (notice says why), the server's
// campaigns (source "campaigns": title, description, genre and start,
// the player characters' levels, quests as hooks, NPCs, tone and rules as
// guidelines); it is never a made-up list. A choice picks from the list
// last offered (asked for again when none was) and is a DM turn with a
// module_selected effect and no narrative, so restore and fork keep it;
// the module's context (seed 002's MODULE_CONTEXT_TEMPLATE) goes into the
// game master's system prompt only. Players see none of it: View drops
// it, its effect is not in theirs, and their copy of the turn is an empty
// DM turn. The GM's GET /api/sessions/{id} and session_state world show
// it as module.
//
// Scene images (seed 002 v2.1), when Options.ImageStore is set; the
// generate routes also need Options.Images and take an assistant or the
// GM, the others any user who may read the game:
//
//	POST   /api/sessions/{id}/images/generate-current     → 201 SceneImage
//	POST   /api/sessions/{id}/images/generate-best        → 201 SceneImage
//	POST   /api/sessions/{id}/images/generate-turn/{turn} → 201 SceneImage
//	GET    /api/sessions/{id}/images                      {images: [SceneImage]}
//	GET    /api/sessions/{id}/images/{image_id}/download  image/png
//	GET    /api/sessions/{id}/images/download-all         application/zip
//	GET    /api/sessions/images/summary                   {sessions: [ImageSummary]}
//
// A generate route answers once the image is stored, after image_ready has
// gone to the game's clients; one generation per game at a time (409).
// The prompt is imagegen.ScenePrompt of what a player sees: the drawn
// turn's narration and the two before it, and for the current turn the
// player view's place, mood and who is there. "best" is, without a model,
// the turn with the longest narration among the branch's last 500. With
// no provider the generate routes answer 503 "image generation is off".
//
// Errors are internal/api's {"error":{"code","message"}}. A restore, fork
// or switch is sent to the game's WebSocket clients as session_state.
//
// # WebSocket /ws/game/{session_id}
//
// Every message is a JSON object with a "type". A client first receives
// session_state with the full state, and again after any change made over
// REST; reconnecting is connecting again.
//
// Client → server (seed 002):
//
//	{type: "start_autopilot", speed: "normal"}   speed optional
//	{type: "stop_autopilot"}
//	{type: "next_turn"}                          one autopilot turn now
//	{type: "drop_in", character: "kestrel"}      a human takes control; the autopilot pauses
//	{type: "release_control", character?}        the autopilot resumes if it was on;
//	                                             character: a GM's release of another's hold
//	{type: "human_action", content: "I check the door for traps."}
//	{type: "nudge", content: "talk to the innkeeper"}  a suggestion for the next turn
//	{type: "set_speed", speed: "fast"}
//	{type: "whisper", to: "bram" | "dm", content}  GM → character, player → DM
//	{type: "reveal_secret", id: "whisper-1"}     GM: a whisper becomes everyone's
//
// Server → client (seed 002, then Hearth's additions):
//
//	{type: "turn_update", turn, agent: "dm", content, state, input, by, committed,
//	 effects, rolls, outcomes (GM only), awaiting, rejected, notice}
//	{type: "awaiting_input", character, user}
//	{type: "autopilot_started", speed}
//	{type: "autopilot_stopped", reason}  user_request, session_deleted, shutdown,
//	                                     error (3 failed turns), character_defeated
//	{type: "error", message, recoverable}
//	{type: "session_state", state}       SessionState: session, title, campaign,
//	                                     turn, branch, view, character, autopilot,
//	                                     control, awaiting, world
//	{type: "turn_delta", turn, agent: "dm", text}   narration as it is written
//	{type: "control_released", character}
//	{type: "whisper", id, from, to, content, turn}   to its readers' connections only
//	{type: "secret_revealed", id, from, to, content, turn, revealed_turn}  to all
//	{type: "image_ready", image_id, turn_number, generation_mode, image_url}
//
// turn_update's state is a SessionState too (with controls, every hold, and
// party, the party summary). A turn that takes no turn (a question such as
// "inventory") comes as turn_update with committed false. The autopilot
// plays, after its speed's pause of quiet: in a party game, the turn of the
// member the supervisor routes to (game.Supervisor: initiative order in
// combat, else the members the DM's last narration addressed by name, else
// round-robin), among those an agent plays — what a waiting nudge points
// to, else what the member's own model decides from the member's own view
// (game.Session.AgentOf; the offline agent when it names no model or its
// model fails), and the turn records the agent's "provider/model"; in a
// game of one, what a waiting nudge points to, else the first choice the
// last turn offered that it has not made lately, else "look around" and
// "wait" in turn. A human who drops in and disconnects
// releases control. set_speed and nudge are answered with session_state; the speed is
// kept with the game, which resumes at it after a restart. A client
// message that cannot be read or done is answered with error{recoverable:
// true}; one over MaxMessage bytes closes the connection. A client whose send
// queue fills is disconnected; it never slows the others, and no client's
// leaving cancels a turn, its own included.
package gameapi
