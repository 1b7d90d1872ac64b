// Package server is Hearth's HTTP door: the GM-assistant API of seed 000
// (/api/chat streamed as server-sent events with its tool round trip and
// pause/continue, documents, search, images, models), health and Prometheus
// metrics, and the mount points for the live game API (server/gameapi) and
// the MCP server. It adapts; it decides nothing: chats belong to
// assistant, documents to ingest/library, games to game.
//
// Uploads are ingested one at a time in the background as jobs kept in
// the library, their bytes under WorkDir/uploads until done and their
// checkpoints under WorkDir/ingest/<job>; Resume, called at start-up,
// takes up the jobs a stopped or killed server left, fails those that
// cannot go on with the reason, and removes work files no job owns. With
// Options.Claims (several servers on one database and one WorkDir) a job
// runs where its claim is held; Resume takes up only unclaimed jobs and
// then, every ClaimPoll, those whose server stopped renewing. The
// same bytes under another title make a second document; under the same
// title they answer the document already there.
//
// A chat runs where POST /api/chat arrived. With Options.Chats, a tool
// result, continue or cancel for a chat that another server sharing the
// database runs is forwarded there (ChatRelay), and its answer streams on
// the client's open stream.
//
// Every route but /health and /metrics is behind the authentication
// middleware the caller supplies; handlers take the user (and so the role)
// from the request's context, never from its body. Messages come from the
// i18n catalogs in the language of Accept-Language. Errors have one JSON
// shape (internal/api); internal details go to the log, which carries a
// request id per request.
package server
