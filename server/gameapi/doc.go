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
// (start_autopilot, stop_autopilot, set_speed, nudge). Any user may play:
// human_action, next_turn, drop_in, release_control.
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
//	POST   /api/sessions/{id}/restore            {turn} → SessionInfo
//	GET    /api/sessions/{id}/forks              {forks: [game.BranchInfo]}
//	POST   /api/sessions/{id}/forks              {name} → 201 game.BranchInfo
//	POST   /api/sessions/{id}/forks/{name}/switch → SessionInfo
//	GET    /api/sessions/{id}/compare?a=&b=      Comparison
//	GET    /api/sessions/{id}/transcript?format=json|md  attachment
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
//	{type: "release_control"}                    the autopilot resumes if it was on
//	{type: "human_action", content: "I check the door for traps."}
//	{type: "nudge", content: "talk to the innkeeper"}  the autopilot's next action
//	{type: "set_speed", speed: "fast"}
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
//
// turn_update's state is a SessionState too. A turn that takes no turn (a
// question such as "inventory") comes as turn_update with committed false.
// The autopilot plays, after its speed's pause of quiet, the next nudge, else
// the first choice the last turn offered that it has not made lately, else
// "look around" and "wait" in turn. A human who drops in and disconnects
// releases control. set_speed is answered with session_state; the speed is
// kept with the game, which resumes at it after a restart. A client
// message that cannot be read or done is answered with error{recoverable:
// true}; one over MaxMessage bytes closes the connection. A client whose send
// queue fills is disconnected; it never slows the others, and no client's
// leaving cancels a turn, its own included.
package gameapi
