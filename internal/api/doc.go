// Package api holds the few conventions every HTTP handler in Hearth shares:
// JSON responses, the error body {"error":{"code","message"}} with the
// domain's error codes (hearth.Code) mapped onto HTTP statuses in one place
// (Status, Fail), localized messages, internal errors answered with the
// request id and logged, never shown, and size-limited JSON request
// decoding with errors that name what was wrong.
package api
