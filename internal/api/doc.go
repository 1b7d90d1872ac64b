// Package api holds the few conventions every HTTP handler in Hearth shares:
// JSON responses, the error body {"error":{"code","message"}} with
// application codes mapped onto HTTP statuses in one place, localized
// messages, and size-limited JSON request decoding with errors that name what
// was wrong.
package api
