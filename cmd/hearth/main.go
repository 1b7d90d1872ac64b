// Command hearth is a self-hosted AI game master for tabletop role-playing
// games. Run "hearth play" to play the bundled example campaign in the
// terminal; "hearth --help" lists every command.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/skill"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The bundled skills' scripts run their programs through this binary
	// (skill/builtin); skill.BaseEnv passes the variable on to them.
	if exe, err := os.Executable(); err == nil {
		os.Setenv(skill.EnvExe, exe)
	}
	root := newRoot(os.Stdin, os.Stdout, os.Stderr, os.Environ())
	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hearth:", err)
	}
	stop()
	os.Exit(exitCode(err))
}

// usageError is a mistake in how hearth was called (exit status 2).
type usageError struct{ error }

// exitCode is the exit status for err, by its code: the one place the CLI
// maps codes, documented in exitStatuses.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if errors.As(err, new(usageError)) {
		return 2
	}
	if be := (builtinExit{}); errors.As(err, &be) {
		return be.code
	}
	switch hearth.ErrorCode(err) {
	case hearth.Invalid:
		return 2
	case hearth.NotFound:
		return 3
	case hearth.Unauthorized, hearth.Forbidden:
		return 4
	case hearth.Conflict:
		return 5
	case hearth.Unavailable:
		return 6
	default:
		return 1
	}
}

// exitStatuses documents exitCode in "hearth --help".
const exitStatuses = `Exit status:
  0  success
  1  internal error (a bug, or a failure Hearth cannot explain)
  2  usage error or invalid input
  3  not found
  4  unauthorized or forbidden
  5  conflict with the current state (exists already, busy)
  6  unavailable (a model or service is not answering; try again)`
