// Package assistant is the GM assistant (Seneschal, seed 000): chats with a
// game master or a player about their own books and their Foundry VTT world.
// It owns the Seneschal tool set — document_search, document_get and
// system_schema, the Traveller tools, and the external fvtt_read,
// fvtt_write, fvtt_query and dice_roll that run in the user's browser — the
// persisted conversations with their TTL and per-user cap, and the active
// requests: agent runs in memory that a client feeds with tool results and
// pause decisions until they finish, are cancelled, time out or lose their
// client. Conversations are kept in a Conversations store, a small
// interface: assistant/sqliteconversations is the SQLite one,
// assistant/conversationtest the suite every store passes.
//
// Every internal tool reads as the requesting user's role; nothing the role
// may not see enters the model's context. The package knows nothing of HTTP:
// the server adapts Start, ToolResult and Continue to endpoints and streams
// the agent's events as SSE.
package assistant
