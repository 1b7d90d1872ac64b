// Package hearth holds what the Hearth binary carries with it: the bundled
// campaigns and content packs, so that "hearth play" and "hearth search"
// work from any directory and after "go install". It also holds what every
// package shares and so must import nothing of the module: the coded
// domain error (Error, ErrorCode, ErrorMessage) and the build's version
// (Version). The engine itself lives in the packages below (game, rules,
// world, store, content, llm); see the README for the map.
package hearth

import "embed"

// Campaigns is the campaigns directory of the repository: one campaign per
// subdirectory, loadable with campaign.LoadFS(ctx, Campaigns, "campaigns/NAME").
//
//go:embed campaigns
var Campaigns embed.FS

// DefaultCampaign is the campaign "hearth play" starts without --campaign.
const DefaultCampaign = "campaigns/saltmere"

// Packs is the packs directory of the repository: content packs that ship
// with Hearth, one per subdirectory ("packs/srd51" is the D&D 5e SRD 5.1,
// CC-BY-4.0; see its ATTRIBUTION.md).
//
//go:embed packs
var Packs embed.FS

// Skills are the skills that ship with Hearth (skills/NAME/SKILL.md,
// references/ and scripts/), installed into the data directory's skills/
// on first use; their Go programs are compiled into the binary (package
// skill/builtin). Only these three parts are embedded, never a checkout's
// bin/, data/ or config.json.
//
//go:embed skills/*/SKILL.md skills/*/references skills/*/scripts
var Skills embed.FS
