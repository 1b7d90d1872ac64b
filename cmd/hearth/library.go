package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/ingest/library"
	rsqlite "github.com/hearth-rpg/hearth/retrieve/sqlite"
	"github.com/hearth-rpg/hearth/store/sqlite"
)

// withLibrary opens the document library (and the index it writes to).
func (g *globals) withLibrary(ctx context.Context, fn func(*library.Library) error) error {
	dir, err := g.dataDir()
	if err != nil {
		return fmt.Errorf("find the data directory: %w (set --data or HEARTH_DATA)", err)
	}
	return g.withIndex(ctx, "", func(ix *rsqlite.Index) error {
		lib, err := library.Open(ctx, filepath.Join(dir, sqlite.FileName), ix)
		if err != nil {
			return err
		}
		defer lib.Close()
		return fn(lib)
	})
}

func newLibrary(g *globals) *cobra.Command {
	var role string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "library",
		Short: "List, read and delete the books ingested with 'hearth ingest'",
		Long: `The library holds the books ingested with 'hearth ingest': their pages, images
and access level. What a role may not read is not listed and cannot be read.`,
	}
	cmd.PersistentFlags().StringVar(&role, "role", "gm_only", "read as this role: player, trusted, assistant or gm_only")
	cmd.PersistentFlags().BoolVar(&asJSON, "json", false, "print JSON")
	parseRole := func() (access.Level, error) {
		lv, err := access.Parse(role)
		if err != nil {
			return 0, usageError{err}
		}
		return lv, nil
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the documents",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			lv, err := parseRole()
			if err != nil {
				return err
			}
			return g.withLibrary(cmd.Context(), func(lib *library.Library) error {
				docs, err := lib.List(cmd.Context(), lv)
				if err != nil {
					return err
				}
				if asJSON {
					return json.NewEncoder(g.stdout).Encode(docs)
				}
				if len(docs) == 0 {
					fmt.Fprintln(g.stdout, "The library is empty: add books with 'hearth ingest FILE'.")
				}
				for _, d := range docs {
					fmt.Fprintf(g.stdout, "%s  %s (%s, %d pages, %s) %s\n", d.ID, d.Title, d.Format, d.Pages, d.Access, strings.Join(d.Tags, ","))
				}
				return nil
			})
		},
	}
	get := &cobra.Command{
		Use:   "get DOCUMENT PAGE",
		Short: "Print one page of a document (document_get)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			lv, err := parseRole()
			if err != nil {
				return err
			}
			page, err := strconv.Atoi(args[1])
			if err != nil || page < 1 {
				return usageError{fmt.Errorf("page %q: give a page number from 1", args[1])}
			}
			return g.withLibrary(cmd.Context(), func(lib *library.Library) error {
				p, err := lib.Get(cmd.Context(), args[0], page, lv)
				if err != nil {
					return fmt.Errorf("%w (see 'hearth library list')", err)
				}
				if asJSON {
					return json.NewEncoder(g.stdout).Encode(map[string]any{"document_id": args[0], "page": p.Number, "label": p.Label, "text": p.Text})
				}
				fmt.Fprintln(g.stdout, p.Text)
				return nil
			})
		},
	}
	images := &cobra.Command{
		Use:   "images DOCUMENT [PAGE]",
		Short: "List a document's images (all pages, or one); --save DIR writes them as WebP",
		Args:  cobra.RangeArgs(1, 2),
	}
	var save string
	images.Flags().StringVar(&save, "save", "", "write the images into this directory")
	images.RunE = func(cmd *cobra.Command, args []string) error {
		lv, err := parseRole()
		if err != nil {
			return err
		}
		page := 0
		if len(args) == 2 {
			if page, err = strconv.Atoi(args[1]); err != nil || page < 1 {
				return usageError{fmt.Errorf("page %q: give a page number from 1", args[1])}
			}
		}
		return g.withLibrary(cmd.Context(), func(lib *library.Library) error {
			ims, err := lib.Images(cmd.Context(), args[0], page, lv, save != "")
			if err != nil {
				return err
			}
			for _, im := range ims {
				name := fmt.Sprintf("%s-p%d-%d.webp", args[0], im.Page, im.Index)
				if save != "" {
					if err := os.MkdirAll(save, 0o755); err != nil {
						return err
					}
					if err := os.WriteFile(filepath.Join(save, name), im.WebP, 0o644); err != nil {
						return err
					}
				}
				fmt.Fprintf(g.stdout, "page %d #%d  %dx%d  %s\n", im.Page, im.Index, im.Width, im.Height, cmpOr(im.Caption, excerpt(im.Context, 80)))
			}
			return nil
		})
	}
	del := &cobra.Command{
		Use:   "delete DOCUMENT",
		Short: "Remove a document, its pages, images and search chunks",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withLibrary(cmd.Context(), func(lib *library.Library) error {
				if err := lib.Delete(cmd.Context(), args[0]); err != nil {
					return err
				}
				fmt.Fprintf(g.stdout, "Deleted %s.\n", args[0])
				return nil
			})
		},
	}
	cmd.AddCommand(list, get, images, del)
	return cmd
}
