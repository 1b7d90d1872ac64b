package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/i18n"
	"github.com/hearth-rpg/hearth/store/sqlite"
)

func newUser(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "user",
		Short: "Manage the users of the HTTP API and their API keys",
		Long: `Users are the people and programs that call Hearth's HTTP API. Each has a
role that decides what they may see: player, trusted, assistant or gm. Each
has one or more API keys, which a client sends with every request as the
header

    Authorization: Bearer KEY

Hearth keeps only a hash of each key, so a key is shown once, when it is made.
A lost key cannot be recovered: revoke it and issue another.`,
		Example: `  hearth user add alice --role gm      # a user and their first key
  hearth user key alice                # another key for alice
  hearth user list                     # users, roles and key ids
  hearth user revoke KEY_ID            # stop one key from working
  hearth user remove alice             # alice and all her keys`,
	}
	var role string
	add := &cobra.Command{
		Use:   "add NAME",
		Short: "Create a user and print their first API key",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			loc := userLocalizer()
			level, err := access.Parse(role)
			if err != nil {
				return usageError{userMessage{loc.T("auth.cli.bad_role", map[string]any{"Role": role}), err}}
			}
			return withKeyring(cmd.Context(), g, func(kr *auth.Keyring) error {
				u, err := kr.AddUser(cmd.Context(), args[0], level)
				if err != nil {
					return userFailure(loc, err, args[0])
				}
				fmt.Fprintln(g.stdout, loc.T("auth.cli.user_added", map[string]any{"Name": u.Name, "Role": u.Role.String()}))
				key, info, err := kr.IssueKey(cmd.Context(), u.Name)
				if err != nil {
					return userFailure(loc, err, u.Name)
				}
				printNewKey(g.stdout, loc, key, info)
				return nil
			})
		},
	}
	add.Flags().StringVar(&role, "role", "player", "the user's role: gm, assistant, trusted or player")
	list := &cobra.Command{
		Use:   "list",
		Short: "List users, their roles and their keys (never the keys' secrets)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withKeyring(cmd.Context(), g, func(kr *auth.Keyring) error {
				return listUsers(cmd.Context(), g.stdout, userLocalizer(), kr)
			})
		},
	}
	key := &cobra.Command{
		Use:   "key NAME",
		Short: "Issue another API key for a user",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			loc := userLocalizer()
			return withKeyring(cmd.Context(), g, func(kr *auth.Keyring) error {
				key, info, err := kr.IssueKey(cmd.Context(), args[0])
				if err != nil {
					return userFailure(loc, err, args[0])
				}
				printNewKey(g.stdout, loc, key, info)
				return nil
			})
		},
	}
	revoke := &cobra.Command{
		Use:   "revoke KEY_ID",
		Short: "Stop an API key from working (see the ids with 'hearth user list')",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			loc := userLocalizer()
			return withKeyring(cmd.Context(), g, func(kr *auth.Keyring) error {
				if err := kr.Revoke(cmd.Context(), args[0]); err != nil {
					return userFailure(loc, err, args[0])
				}
				fmt.Fprintln(g.stdout, loc.T("auth.cli.key_revoked", map[string]any{"ID": args[0]}))
				return nil
			})
		},
	}
	remove := &cobra.Command{
		Use:   "remove NAME",
		Short: "Delete a user and all their API keys",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			loc := userLocalizer()
			return withKeyring(cmd.Context(), g, func(kr *auth.Keyring) error {
				if err := kr.RemoveUser(cmd.Context(), args[0]); err != nil {
					return userFailure(loc, err, args[0])
				}
				fmt.Fprintln(g.stdout, loc.T("auth.cli.user_removed", map[string]any{"Name": args[0]}))
				return nil
			})
		},
	}
	cmd.AddCommand(add, list, key, revoke, remove)
	return cmd
}

// withKeyring runs fn with the data directory's users and keys open.
func withKeyring(ctx context.Context, g *globals, fn func(*auth.Keyring) error) error {
	dir, err := g.dataDir()
	if err != nil {
		return fmt.Errorf("find the data directory: %w (set --data or HEARTH_DATA)", err)
	}
	kr, err := auth.Open(ctx, filepath.Join(dir, sqlite.FileName))
	if err != nil {
		return err
	}
	err = fn(kr)
	return errors.Join(err, kr.Close())
}

// printNewKey shows a key the one time it can be shown, alone on its line
// so scripts can pick it out.
func printNewKey(w io.Writer, loc i18n.Localizer, key string, info auth.KeyInfo) {
	fmt.Fprintln(w, loc.T("auth.cli.key_new", map[string]any{"ID": info.ID, "Name": info.User}))
	fmt.Fprintf(w, "\n%s\n\n", key)
	fmt.Fprintln(w, loc.T("auth.cli.key_once", nil))
	fmt.Fprintln(w, loc.T("auth.cli.key_usage", nil))
	fmt.Fprintf(w, "\n    Authorization: Bearer %s\n", key)
}

func listUsers(ctx context.Context, w io.Writer, loc i18n.Localizer, kr *auth.Keyring) error {
	us, err := kr.Users(ctx)
	if err != nil {
		return err
	}
	if len(us) == 0 {
		fmt.Fprintln(w, loc.T("auth.cli.no_users", nil))
		return nil
	}
	when := func(t time.Time) string {
		if t.IsZero() {
			return loc.T("auth.cli.never", nil)
		}
		return t.Local().Format("2006-01-02 15:04")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", loc.T("auth.cli.col_name", nil), loc.T("auth.cli.col_role", nil),
		loc.T("auth.cli.col_key", nil), loc.T("auth.cli.col_created", nil), loc.T("auth.cli.col_last_used", nil), loc.T("auth.cli.col_status", nil))
	for _, u := range us {
		ks, err := kr.Keys(ctx, u.Name)
		if err != nil {
			return err
		}
		if len(ks) == 0 {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t%s\n", u.Name, u.Role, loc.T("auth.cli.no_keys", map[string]any{"Name": u.Name}))
			continue
		}
		for _, k := range ks {
			status := loc.T("auth.cli.active", nil)
			if !k.Active() {
				status = loc.T("auth.cli.revoked", map[string]any{"When": when(k.Revoked)})
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", u.Name, u.Role, k.ID, when(k.Created), when(k.LastUsed), status)
		}
	}
	return tw.Flush()
}

// userMessage is an error whose text is already localized for the reader;
// it keeps the cause for errors.Is.
type userMessage struct {
	msg string
	err error
}

func (e userMessage) Error() string { return e.msg }
func (e userMessage) Unwrap() error { return e.err }

// userFailure explains the auth errors a person can act on in their
// language; others (a database that cannot be opened) pass through.
func userFailure(loc i18n.Localizer, err error, arg string) error {
	switch {
	case errors.Is(err, auth.ErrUserExists):
		return userMessage{loc.T("auth.cli.user_exists", map[string]any{"Name": arg}), err}
	case errors.Is(err, auth.ErrNoUser):
		return userMessage{loc.T("auth.cli.no_user", map[string]any{"Name": arg}), err}
	case errors.Is(err, auth.ErrNoKey):
		return userMessage{loc.T("auth.cli.no_key", map[string]any{"ID": arg}), err}
	case errors.Is(err, auth.ErrInvalidName):
		return usageError{userMessage{loc.T("auth.cli.bad_name", map[string]any{"Name": arg}), err}}
	}
	return err
}

// userLocalizer speaks the language of the terminal's locale.
func userLocalizer() i18n.Localizer {
	c, err := i18n.Load()
	if err != nil {
		slog.Warn("load the message catalogs", "err", err)
		return i18n.Localizer{}
	}
	return c.For(userLanguages(os.Getenv)...)
}

// userLanguages turns the POSIX locale (LC_ALL, then LC_MESSAGES, then
// LANG, e.g. de_DE.UTF-8) into a language tag; C and POSIX mean English.
func userLanguages(getenv func(string) string) []string {
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		s := getenv(v)
		if s == "" {
			continue
		}
		s, _, _ = strings.Cut(s, ".")
		s, _, _ = strings.Cut(s, "@")
		if s == "C" || s == "POSIX" {
			return nil
		}
		return []string{strings.ReplaceAll(s, "_", "-")}
	}
	return nil
}
