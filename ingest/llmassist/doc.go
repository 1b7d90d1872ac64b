// Package llmassist gives the ingest pipeline its model-backed helpers: a
// Checker that asks a language model, with structured output, whether a
// section is lore, systems or both, and a Captioner that asks a vision
// model to describe an image with seed 000's caption prompt and the text
// near the image on its page. Images larger than the models look at are
// scaled down first (DefaultMaxSide), so a full-page scan does not cost
// several times the tokens.
//
// It owns the prompts and their versions (part of the checkpoint keys, so
// a new prompt redoes the work). It does not decide what happens when a
// model fails — the pipeline logs and skips — and it never changes what
// is stored itself.
package llmassist
