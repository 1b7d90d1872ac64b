// Package mcp is Hearth's Model Context Protocol server: one more door onto
// the same engine. It exposes the Seneschal tool set (the []agent.Tool the
// GM assistant gives its own model, so each tool has one implementation)
// and, given a Game, the tools game_list_sessions, game_state and game_act,
// to any MCP client over streamable HTTP (Handler), the older HTTP+SSE
// transport (SSEHandler) or stdio (Run, for `hearth mcp`).
//
// MCP has no notion of a table's users, so, as seed 000 §4.7 says, an MCP
// client acts with game-master access: a tool call whose context carries no
// auth.User (stdio) runs as the GM. Over HTTP the handlers do no
// authentication themselves; mount them behind server.Require, which
// should admit GM keys only, and the user it puts on the session's first
// request is the one the tools see. A session belongs to that user: a
// request naming it (Mcp-Session-Id, sessionid) from anyone else gets 403,
// and session ids, which open sessions, are never logged. Tool failures reach the client as
// results with IsError set, so its model can correct itself; every call
// runs on the request's context and stops when the client cancels.
//
// It must not implement tools itself beyond adapting Game, hold game state,
// or write to stdout (stdout is the stdio transport).
package mcp
