package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth/config"
)

func newConfig(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show the configuration, or write a file to start from",
		Long: `Hearth has one configuration for every command: built-in defaults, then the
file (--config FILE, else $HEARTH_CONFIG, else config.toml in the user's
configuration directory, ~/.config/hearth on Linux; YAML is accepted too),
then HEARTH__SECTION__KEY environment variables, then command-line flags.`,
	}
	show := &cobra.Command{
		Use:   "show",
		Short: "Print the effective configuration and where each value came from",
		Long: `Print the effective configuration as TOML. Beside each value is where it
came from: "default", the file and line, the environment variable or the
flag. Secrets are masked.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, src, err := g.loadConfig()
			if err != nil {
				return err
			}
			return cfg.Show(g.stdout, *src)
		},
	}
	var from string
	var force bool
	initCmd := &cobra.Command{
		Use:   "init [FILE]",
		Short: "Write a commented configuration file",
		Long: `Write a commented configuration file with every key and its default, to FILE
or else the default place (~/.config/hearth/config.toml on Linux). With
--from, the values of an older file (the server's hearth.toml, or the model
file with roles: at its top) are carried over. Secrets are never written.`,
		Example: `  hearth config init
  hearth config init --from ~/.config/hearth/config.yaml
  hearth config init ./hearth-config.toml --force`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := config.DefaultPath(g.environ)
			if len(args) == 1 {
				path = args[0]
			}
			if path == "" {
				return usageError{errors.New("no configuration directory: give the file to write")}
			}
			cfg := config.Default()
			if from != "" {
				c, _, err := config.Load(from, nil)
				if err != nil {
					return usageError{g.fail("cli.serve.bad_config", nil, err)}
				}
				cfg = c
				cfg.Storage.DataDir = "" // resolved, not written: keep the default
			}
			if _, err := os.Stat(path); err == nil && !force {
				return usageError{fmt.Errorf("%s exists; use --force to replace it, or 'hearth config show' to see it", path)}
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(path, []byte(cfg.Template()), 0o600); err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "wrote %s\n", path)
			return nil
		},
	}
	initCmd.Flags().StringVar(&from, "from", "", "carry over the values of this older configuration file")
	initCmd.Flags().BoolVar(&force, "force", false, "replace the file if it exists")
	cmd.AddCommand(show, initCmd)
	return cmd
}
