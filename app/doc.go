// Package app builds a running Hearth from one configuration: the data
// directory's database and every store in it, a model provider per role,
// lore, narrative memory, plot beats, choices, skills, the documents
// library, the GM assistant and the chosen turn pipeline (agentic,
// multipass or skills).
//
// Every door goes through it — the terminal (hearth play), the HTTP and
// WebSocket server, MCP, replays — and so can a Go program:
//
//	a, err := app.Open(ctx, app.Options{Config: cfg})
//	...
//	defer a.Close()
//	s, err := a.NewGame(ctx, campaign, seed)
//	resp, err := s.Act(ctx, "look")
//
// A game made here plays exactly as "hearth play" plays it. The package
// knows nothing of flags, terminals or HTTP: warnings and progress reach
// the caller through Hooks, as message ids of the i18n catalogs.
package app
