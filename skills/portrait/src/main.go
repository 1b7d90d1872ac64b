// Command portrait is the portrait skill's program as a binary of its own, for
// hosts other than the hearth binary (which runs it itself: see package
// skill/builtin).
package main

import (
	"os"

	"github.com/hearth-rpg/hearth/skill/builtin"
)

func main() {
	run, _ := builtin.Lookup("portrait")
	os.Exit(run(os.Stdin, os.Stdout, os.Stderr))
}
