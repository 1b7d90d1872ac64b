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
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRoot(os.Stdin, os.Stdout, os.Stderr, os.Environ())
	if err := root.ExecuteContext(ctx); err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintln(os.Stderr, "hearth:", err)
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "hearth:", err)
		os.Exit(1)
	}
}

// usageError is a mistake in how hearth was called (exit status 2).
type usageError struct{ error }
