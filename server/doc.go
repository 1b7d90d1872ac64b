// Package server is Hearth's HTTP door: the GM-assistant API of seed 000
// (/api/chat streamed as server-sent events with its tool round trip and
// pause/continue, documents, search, images, models), health and Prometheus
// metrics, and the mount points for the live game API (server/gameapi) and
// the MCP server. It adapts; it decides nothing: chats belong to
// assistant, documents to ingest/library, games to game.
//
// Every route but /health and /metrics is behind the authentication
// middleware the caller supplies; handlers take the user (and so the role)
// from the request's context, never from its body. Messages come from the
// i18n catalogs in the language of Accept-Language. Errors have one JSON
// shape (internal/api); internal details go to the log, which carries a
// request id per request.
package server
