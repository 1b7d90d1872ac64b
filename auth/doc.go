// Package auth knows who is asking: users with a role, their API keys
// (stored only as argon2id hashes), and per-key rate limits. Its HTTP
// middleware turns an Authorization: Bearer key into a User on the request's
// context; handlers read it with UserFrom and never take a role from a
// request body.
//
// It must not know about games, documents or models.
package auth
