// Package hearth holds what the Hearth binary carries with it: the bundled
// campaigns, so that "hearth play" works from any directory and after
// "go install". The engine itself lives in the packages below (game, rules,
// world, store, content, llm); see the README for the map.
package hearth

import "embed"

// Campaigns is the campaigns directory of the repository: one campaign per
// subdirectory, loadable with content.LoadFS(ctx, Campaigns, "campaigns/NAME").
//
//go:embed campaigns
var Campaigns embed.FS

// DefaultCampaign is the campaign "hearth play" starts without --campaign.
const DefaultCampaign = "campaigns/saltmere"
