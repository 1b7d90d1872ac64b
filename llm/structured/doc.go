// Package structured gets JSON a program can trust out of a language
// model. A Spec generates the JSON Schema from a Go type (the one source of
// truth), asks the model for output in that shape, extracts the JSON from
// whatever came back (code fences, prose around it), validates it against
// the schema and the caller's own checks, and gives the model exactly one
// chance to repair it, with the validation error, before reporting failure
// so the caller can use its fallback.
package structured
