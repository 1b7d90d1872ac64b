// Package pipeline runs an ingest: extract → structure → segment →
// classify → enrich → assemble → validate (seed 004 "Ingest Pipeline").
//
// Each stage's output is checkpointed as JSON in a work directory named by
// the file's sha256 (<work>/<sha256>/NN-stage.json, written to a temporary
// file and renamed), so an interrupted ingest resumes at the first stage
// without a checkpoint and a finished stage is never run again. Classify
// depends on the Checker, and the stages after it on all the options
// (title, tags, access, pack directory, Checker, Captioner); their
// checkpoints record a key of those and are redone when it changes.
// Answers from a model — a Checker's classes, a Captioner's image
// descriptions — are journaled one by one as they come, so a resumed
// ingest asks the model only what it has not answered. The work directory
// is removed once an ingest succeeds and kept when it fails.
//
// It owns segmenting (~600 words at heading and paragraph boundaries),
// rule-based lore/systems classification, tags from headings, asking a
// model with bounded concurrency (a failed call is logged and skipped, a
// model failing again and again is given up), and writing content packs.
// It does not read formats itself (extractors do, through an
// ingest.Registry), talk to model servers (a Checker or Captioner does)
// nor store documents (a Store does).
package pipeline
