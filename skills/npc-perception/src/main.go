// Command npc-perception is the NPC perception skill's program: "get"
// reads what an NPC thinks of the player through the host API, "adjust"
// proposes a change as a state patch for the engine to apply.
package main

import (
	"os"

	"github.com/hearth-rpg/hearth/skill/host"
	"github.com/hearth-rpg/hearth/skill/host/opinion"
)

func main() {
	os.Exit(opinion.Run(os.Stdin, os.Stdout, os.Stderr, opinion.Kind{
		Key: "npc", Patch: "npcs", Field: "perception",
		Read: func(c *host.Client, id string) (int, error) { return c.Perception(id) },
	}))
}
