// Package pipeline runs an ingest: extract → structure → segment →
// classify → enrich → assemble → validate (seed 004 "Ingest Pipeline").
//
// Each stage's output is checkpointed as JSON in a work directory named by
// the file's sha256 (<work>/<sha256>/NN-stage.json, written to a temporary
// file and renamed), so an interrupted ingest resumes at the first stage
// without a checkpoint and a finished stage is never run again. Stages
// after classify also depend on the options (title, tags, access, pack
// directory); their checkpoints record a key of those and are redone when
// it changes.
//
// It owns segmenting (~600 words at heading and paragraph boundaries),
// rule-based lore/systems classification, tags from headings, and writing
// content packs. It does not read formats itself (extractors do, through
// an ingest.Registry) nor store documents (a Store does).
package pipeline
