// Package builtin holds the programs of the skills that ship with Hearth,
// so that the hearth binary can run them itself: an installed hearth needs
// neither the repository nor a Go toolchain for its own skills.
//
// A bundled Go skill's script (skills/NAME/scripts/SCRIPT) is a small sh
// wrapper that execs "$HEARTH_EXE skill builtin NAME" when Hearth set
// HEARTH_EXE for it, and otherwise (a test binary, a checkout driven by
// another host) the program built from skills/NAME/src. Either way the
// program is one of these, a separate process speaking the same NDJSON
// protocol as any third-party skill, with the same timeouts and limits.
package builtin

import (
	"io"
	"slices"

	"github.com/hearth-rpg/hearth/skill/builtin/diceroller"
	"github.com/hearth-rpg/hearth/skill/builtin/memory"
	"github.com/hearth-rpg/hearth/skill/builtin/playerchoices"
	"github.com/hearth-rpg/hearth/skill/builtin/portrait"
	"github.com/hearth-rpg/hearth/skill/builtin/storyteller"
	"github.com/hearth-rpg/hearth/skill/host"
	"github.com/hearth-rpg/hearth/skill/host/opinion"
)

// Program is a skill's whole program: one tool input on stdin (the script
// is its "tool"), NDJSON events on stdout, diagnostics on stderr; it
// returns the exit status.
type Program func(stdin io.Reader, stdout, stderr io.Writer) int

// Lookup returns the program of the bundled skill called name.
func Lookup(name string) (Program, bool) {
	switch name {
	case "dice-roller":
		return diceroller.Run, true
	case "memory":
		return memory.Run, true
	case "player-choices":
		return playerchoices.Run, true
	case "portrait":
		return portrait.Run, true
	case "storyteller":
		return storyteller.Run, true
	case "npc-perception":
		return opinionProgram(opinion.Kind{
			Key: "npc", Patch: "npcs", Field: "perception",
			Read: func(c *host.Client, id string) (int, error) { return c.Perception(id) },
		}), true
	case "reputation":
		return opinionProgram(opinion.Kind{
			Key: "faction", Patch: "factions", Field: "reputation",
			Read: func(c *host.Client, id string) (int, error) { return c.Reputation(id) },
		}), true
	}
	return nil, false
}

// Names are the bundled skills with a built-in program, sorted.
func Names() []string {
	names := []string{"dice-roller", "memory", "npc-perception", "player-choices", "portrait", "reputation", "storyteller"}
	slices.Sort(names)
	return names
}

func opinionProgram(k opinion.Kind) Program {
	return func(stdin io.Reader, stdout, stderr io.Writer) int { return opinion.Run(stdin, stdout, stderr, k) }
}
