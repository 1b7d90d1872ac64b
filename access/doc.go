// Package access defines the four visibility levels that every piece of
// Hearth content carries (facts, secrets, whispers, documents, chunks) and
// that every reader presents.
//
// A reader at level L may see content whose level is at most L. The check is
// done where data is read, never asked of a model: text a role may not see
// must not enter a context built for that role.
package access
