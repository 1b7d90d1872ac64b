package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// localeEnv is the test's environment with the locale variables replaced
// by set, so the result does not depend on the machine's own locale.
func localeEnv(t *testing.T, set ...string) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "HEARTH_DATA":
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, "HEARTH_DATA="+t.TempDir()), set...)
}

// TestMessagesFollowLocale runs the binary in English and German locales
// and checks the messages printed and the errors explained.
func TestMessagesFollowLocale(t *testing.T) {
	tests := []struct {
		name   string
		env    []string
		args   []string
		exit   int
		stdout string
		stderr string
	}{
		{"no locale", nil, []string{"sessions"}, 0, "No saved games. Start one with: hearth play\n", ""},
		{"C locale", []string{"LANG=C.UTF-8"}, []string{"sessions"}, 0, "No saved games. Start one with: hearth play\n", ""},
		{"German", []string{"LANG=de_DE.UTF-8"}, []string{"sessions"}, 0, "Keine gespeicherten Spiele. Beginnen Sie eines mit: hearth play\n", ""},
		{"LC_ALL over LANG", []string{"LANG=de_DE.UTF-8", "LC_ALL=C"}, []string{"sessions"}, 0, "No saved games. Start one with: hearth play\n", ""},
		{"usage error", nil, []string{"play", "--bogus"}, 2, "",
			"hearth: unknown flag: --bogus\nRun 'hearth play --help' for usage.\n"},
		{"usage error, German", []string{"LC_MESSAGES=de_AT.UTF-8"}, []string{"play", "--bogus"}, 2, "",
			"hearth: unknown flag: --bogus\n'hearth play --help' zeigt, wie der Befehl verwendet wird.\n"},
		{"usage error explained, German", []string{"LANG=de_DE.UTF-8"}, []string{"library", "get", "doc", "zero"}, 2, "",
			"hearth: Seite \"zero\": Geben Sie eine Seitenzahl ab 1 an\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(hearthBin, tt.args...)
			cmd.Env = localeEnv(t, tt.env...)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			exit := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				exit = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if exit != tt.exit || out.String() != tt.stdout || errb.String() != tt.stderr {
				t.Errorf("hearth %s: exit %d, want %d\nstdout %q\nwant   %q\nstderr %q\nwant   %q",
					strings.Join(tt.args, " "), exit, tt.exit, out.String(), tt.stdout, errb.String(), tt.stderr)
			}
		})
	}
}

// TestShortDescriptionsTranslated catches a command whose short
// description names a message id the catalogs lack: it would show the id.
func TestShortDescriptionsTranslated(t *testing.T) {
	for _, lang := range []string{"C", "de_DE.UTF-8"} {
		root := newRoot(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, []string{"LANG=" + lang})
		var walk func(c *cobra.Command)
		walk = func(c *cobra.Command) {
			if c.Short == "" || strings.HasPrefix(c.Short, "cli.") {
				t.Errorf("LANG=%s: %q has short description %q", lang, c.CommandPath(), c.Short)
			}
			for _, s := range c.Commands() {
				walk(s)
			}
		}
		walk(root)
	}
	en := newRoot(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, nil)
	de := newRoot(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, []string{"LANG=de_DE.UTF-8"})
	if en.Short == de.Short {
		t.Errorf("the German short description is the English one: %q", de.Short)
	}
}
