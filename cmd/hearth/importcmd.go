package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth"
	"github.com/hearth-rpg/hearth/charcard"
)

func newImport(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: g.t("cli.short.import", nil),
	}
	cmd.AddCommand(newImportCard(g))
	return cmd
}

func newImportCard(g *globals) *cobra.Command {
	var o charcard.Options
	cmd := &cobra.Command{
		Use:   "card FILE",
		Short: g.t("cli.short.import.card", nil),
		Long: `Import a SillyTavern character card into a campaign directory. FILE is the
card's JSON (Character Card V1, V2 "chara_card_v2" or V3 "chara_card_v3") or a
PNG with the card embedded (tEXt chunk "ccv3", else "chara").

As an NPC (the default) it becomes npc_ID.md, placed at --location; as a PC
(--as pc) it becomes player_ID.md with a level-1 sheet to finish, and joins
campaign.yml's party. The card's lorebook becomes lorebooks/ID.json, keyword
lore the game activates when its keys come up in play. {{char}} and {{user}}
are replaced. Fields with no place in a game (system_prompt, alternate
greetings, assets) are listed, not imported.`,
		Example: `  hearth import card wren.png --campaign mycampaign --location quay
  hearth import card wren.json --as pc --campaign mycampaign`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := readCard(args[0])
			if err != nil {
				return err
			}
			card, err := charcard.Parse(data)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			rep, err := charcard.Import(cmd.Context(), card, o)
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "imported %s as %s %q into %s\n", card, o.As, rep.ID, o.Dir)
			for _, f := range rep.Files {
				fmt.Fprintf(g.stdout, "  wrote %s\n", f)
			}
			for _, s := range rep.Skipped {
				fmt.Fprintf(g.stdout, "  not imported: %s\n", s)
			}
			for _, w := range rep.Warnings {
				fmt.Fprintf(g.stderr, "warning: lorebook %s\n", w)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.As, "as", charcard.AsNPC, "import as npc or pc")
	f.StringVar(&o.Dir, "campaign", ".", "the campaign directory to import into")
	f.StringVar(&o.Location, "location", "", "where an NPC is found (a location id of the campaign)")
	f.StringVar(&o.ID, "id", "", "the character's id (default: the card's name as a slug)")
	f.StringVar(&o.User, "user", "", "what {{user}} becomes (default \"traveller\")")
	f.BoolVar(&o.Force, "force", false, "overwrite files of an earlier import")
	return cmd
}

// readCard reads a card file, refusing one larger than any card may be
// before reading it.
func readCard(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, hearth.Errorf(hearth.NotFound, "card %s: %v", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, charcard.MaxPNGBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > charcard.MaxPNGBytes {
		return nil, hearth.Errorf(hearth.Invalid, "card %s: more than the %d bytes a card may have", path, charcard.MaxPNGBytes)
	}
	return b, nil
}
