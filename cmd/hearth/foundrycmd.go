package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth/foundry"
)

func newFoundry(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "foundry",
		Short: g.t("cli.short.foundry", nil),
		Long: `Hearth Seneschal is the Foundry VTT module of Hearth (Foundry 12 to 13): the
Seneschal panel, the /sen-ai chat command and the tools that read and change
the world with each user's own permissions. 'hearth serve' serves it at
/foundry/module.json; this command writes its zip for publishing elsewhere.`,
	}
	cmd.AddCommand(newFoundryPackage(g))
	return cmd
}

func newFoundryPackage(g *globals) *cobra.Command {
	var out, base string
	cmd := &cobra.Command{
		Use:   "package",
		Short: g.t("cli.short.foundry.package", nil),
		Long: `Write the module's zip, and its module.json beside it, with the manifest and
download URLs on --base-url (where the two files will be served from:
BASE/foundry/module.json and BASE/foundry/module.zip).`,
		Example: `  hearth foundry package --out hearth-seneschal.zip --base-url https://hearth.example.org`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var zip bytes.Buffer
			if err := foundry.Zip(&zip, base); err != nil {
				return err
			}
			manifest, err := foundry.Manifest(base)
			if err != nil {
				return err
			}
			if err := os.WriteFile(out, zip.Bytes(), 0o644); err != nil {
				return err
			}
			mpath := filepath.Join(filepath.Dir(out), "module.json")
			if err := os.WriteFile(mpath, manifest, 0o644); err != nil {
				return err
			}
			fmt.Fprintln(g.stdout, out)
			fmt.Fprintln(g.stdout, mpath)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "hearth-seneschal.zip", "write the zip to this file; module.json goes beside it")
	cmd.Flags().StringVar(&base, "base-url", "http://127.0.0.1:8080", "the server the manifest's URLs point at")
	return cmd
}
