package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/database"
	"github.com/hearth-rpg/hearth/ingest/library"
)

// withLibrary opens the document library (and the index it writes to).
func (g *globals) withLibrary(ctx context.Context, fn func(*library.Library) error) error {
	return g.withDatabase(ctx, func(db *database.DB) error { return fn(db.Library) })
}

func newLibrary(g *globals) *cobra.Command {
	var role string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "library",
		Short: g.t("cli.short.library", nil),
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
		Short: g.t("cli.short.library.list", nil),
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
					fmt.Fprintln(g.stdout, g.t("cli.library.empty", nil))
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
		Short: g.t("cli.short.library.get", nil),
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			lv, err := parseRole()
			if err != nil {
				return err
			}
			page, err := strconv.Atoi(args[1])
			if err != nil || page < 1 {
				return usageError{errors.New(g.t("cli.library.bad_page", map[string]any{"Page": strconv.Quote(args[1])}))}
			}
			return g.withLibrary(cmd.Context(), func(lib *library.Library) error {
				p, err := lib.Get(cmd.Context(), args[0], page, lv)
				if err != nil {
					return g.fail("cli.library.see_list", nil, err)
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
		Use:   "images [DOCUMENT [PAGE]]",
		Short: g.t("cli.short.library.images", nil),
		Long: `List the images of a document (all pages, or one) with their descriptions
(from a vision model, when one was configured for 'hearth ingest') or, without
one, the text near them. --search finds images by the words of their
descriptions and nearby text, in every document the role may read, or in the
one named.`,
		Example: `  hearth library images 1a2b3c4d5e6f7a8b 20
  hearth library images --search "map of the valley" --role player`,
		Args: cobra.RangeArgs(0, 2),
	}
	var save, searchText string
	var limit int
	images.Flags().StringVar(&save, "save", "", "write the images into this directory")
	images.Flags().StringVar(&searchText, "search", "", "find images whose description or nearby text has these words")
	images.Flags().IntVar(&limit, "limit", 0, "list at most this many images (default: 20 found by --search, else all up to 500)")
	images.RunE = func(cmd *cobra.Command, args []string) error {
		lv, err := parseRole()
		if err != nil {
			return err
		}
		if limit <= 0 {
			limit = 500
			if searchText != "" {
				limit = 20
			}
		}
		q := library.ImageQuery{Text: searchText, Role: lv, Limit: limit, WithData: save != ""}
		if len(args) == 0 && searchText == "" {
			return usageError{errors.New(g.t("cli.library.images_usage", nil))}
		}
		if len(args) > 0 {
			q.Document = args[0]
		}
		if len(args) == 2 {
			if q.Page, err = strconv.Atoi(args[1]); err != nil || q.Page < 1 {
				return usageError{errors.New(g.t("cli.library.bad_page", map[string]any{"Page": strconv.Quote(args[1])}))}
			}
		}
		return g.withLibrary(cmd.Context(), func(lib *library.Library) error {
			ims, err := lib.SearchImages(cmd.Context(), q)
			if err != nil {
				return err
			}
			if asJSON {
				for i := range ims {
					ims[i].Data = nil
				}
				return json.NewEncoder(g.stdout).Encode(nonNilImages(ims))
			}
			if len(ims) == 0 {
				fmt.Fprintln(g.stdout, g.t("cli.library.no_images", nil))
			}
			for _, im := range ims {
				ext := ".webp"
				if library.MediaTypeOf(im) == "image/jpeg" {
					ext = ".jpg"
				}
				name := fmt.Sprintf("%s-p%d-%d%s", im.Document, im.Page, im.Index, ext)
				if save != "" {
					if err := os.MkdirAll(save, 0o755); err != nil {
						return err
					}
					if err := os.WriteFile(filepath.Join(save, name), im.Data, 0o644); err != nil {
						return err
					}
				}
				where := fmt.Sprintf("page %d #%d", im.Page, im.Index)
				if q.Document == "" {
					where = im.Document + " " + where
				}
				text := im.Description
				if text == "" {
					text = "(near: " + excerpt(im.Context, 80) + ")"
				}
				fmt.Fprintf(g.stdout, "%s  %dx%d  %s\n", where, im.Width, im.Height, text)
			}
			return nil
		})
	}
	del := &cobra.Command{
		Use:   "delete DOCUMENT",
		Short: g.t("cli.short.library.delete", nil),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withLibrary(cmd.Context(), func(lib *library.Library) error {
				if err := lib.Delete(cmd.Context(), args[0]); err != nil {
					return err
				}
				fmt.Fprintln(g.stdout, g.t("cli.library.deleted", map[string]any{"Document": args[0]}))
				return nil
			})
		},
	}
	cmd.AddCommand(list, get, images, del)
	return cmd
}

func nonNilImages(ims []library.Image) []library.Image {
	if ims == nil {
		return []library.Image{}
	}
	return ims
}
