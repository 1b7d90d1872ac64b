// Command reputation is the reputation skill's program: "get" reads the
// player's standing with a faction through the host API, "adjust"
// proposes a change as a state patch for the engine to apply.
package main

import (
	"os"

	"github.com/hearth-rpg/hearth/skill/host"
	"github.com/hearth-rpg/hearth/skill/host/opinion"
)

func main() {
	os.Exit(opinion.Run(os.Stdin, os.Stdout, os.Stderr, opinion.Kind{
		Key: "faction", Patch: "factions", Field: "reputation",
		Read: func(c *host.Client, id string) (int, error) { return c.Reputation(id) },
	}))
}
