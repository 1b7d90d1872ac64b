package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/auth"
	"github.com/hearth-rpg/hearth/database"
	"github.com/hearth-rpg/hearth/i18n"
)

func newUser(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "user",
		Short: g.t("cli.short.user", nil),
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
		Short: g.t("cli.short.user.add", nil),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			loc := g.loc
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
		Short: g.t("cli.short.user.list", nil),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withKeyring(cmd.Context(), g, func(kr *auth.Keyring) error {
				return listUsers(cmd.Context(), g.stdout, g.loc, kr)
			})
		},
	}
	key := &cobra.Command{
		Use:   "key NAME",
		Short: g.t("cli.short.user.key", nil),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			loc := g.loc
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
		Short: g.t("cli.short.user.revoke", nil),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			loc := g.loc
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
		Short: g.t("cli.short.user.remove", nil),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			loc := g.loc
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
	return g.withDatabase(ctx, func(db *database.DB) error { return fn(db.Keys) })
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
