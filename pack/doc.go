// Package pack is the container format shared by content packs and
// campaigns: how one is stored and identified, before anything in it is
// read as game content.
//
// It owns the manifest (pack.yml, manifest.json or manifest.yml for a
// pack; campaign.yml or scenario.yml for a campaign: ParseManifest),
// semantic versions and the requirements packs state on one another
// (ParseVersion, ParseConstraint, ParseRequirement), YAML frontmatter with
// the line of every key (ParseFrontmatter, ParseYAML), archives read into
// memory and never extracted, with sizes checked as the bytes arrive
// (OpenArchive, ReadArchive), the limits a pack must stay within, and
// Problem: one thing wrong, with its file and line.
//
// What the files mean — locations, characters, beats, stats, layering
// packs under a campaign — is package campaign.
package pack
