// Package security holds Hearth's security regression suite and no other
// code. Its tests build the hearth binary once, run `hearth serve` on
// 127.0.0.1 over a data directory holding three secrets (a GM-only book, a
// campaign NPC's secret and a whisper to a character who is not the
// player's) and a party game (party_test.go) where two players hold two
// members and whispers go to and from bob's, and attack every route as a
// player, with a bad key and with no key: search with role filters and FTS5 syntax, documents, pages and
// images by id and by path tricks, chat with role overrides, MCP over
// streamable HTTP and HTTP+SSE (including another user's session id), the
// GM's settings (users, keys, model roles and the connection test), the
// game's REST routes (scene images included: the server draws with a
// local fake of the OpenAI Images API) and WebSocket, conversations, models, tool results,
// health and metrics. A leak is a secret phrase, or the GM-only book's
// title or id, anywhere in a response's headers, body or WebSocket frames;
// the suite counts attempts and leaks and fails naming each leaking
// attempt. Positive controls check that the GM's key reads every secret
// through the same routes, so a broken setup cannot pass silently.
//
// In the party game ann, holding her own member, aims every WebSocket
// command at bob's (drop_in, human_action, release_control, whisper,
// reveal_secret), reads the REST routes and calls MCP's game tools; bob's
// and the GM's whispers reaching her are leaks, and must reach bob and the
// GM (positive controls). Nobody but bob may play his member.
//
// # Adding a route
//
// TestNoLeaks reads the routes the server mounts from the module's source
// (every mux.Handle and mux.HandleFunc pattern) and fails when one has no
// attack. To add a route: write its attacks in attacks_test.go with
// s.attempt (or s.do) naming the route's exact pattern, as in
// "GET /api/documents/{id}", try it with the player's key and with no key,
// and add a GM positive control when the route can return a secret. A
// route served on another listener goes in notServed with the reason.
//
// Run it with `go test ./security/`; it logs "security: N attempts, M
// leaks".
package security
