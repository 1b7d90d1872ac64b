package main

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/assistant"
	"github.com/hearth-rpg/hearth/mcp"
	"github.com/hearth-rpg/hearth/server/gameapi"
)

func newMCP(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: g.t("cli.short.mcp", nil),
		Long: `Run Hearth as a Model Context Protocol server over stdio: the client starts
this command and speaks MCP on its stdin and stdout. The tools are the GM
assistant's (document_search, document_get, image_search, system_schema, the Traveller
tools) and the game tools (game_list_sessions, game_state, game_act). An
MCP client acts as the game master, so run it only for
yourself. Logs go to stderr; stdout belongs to the protocol.

Over the network, 'hearth serve' offers the same tools at /mcp (streamable
HTTP) and /mcp/sse, behind an API key.`,
		Example: `  hearth mcp --data ~/.local/share/hearth
  # Claude Desktop: {"mcpServers": {"hearth": {"command": "hearth", "args": ["mcp"]}}}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, _, err := g.loadConfig()
			if err != nil {
				return err
			}
			// stdout is the protocol: everything else goes to stderr.
			log := slog.New(cfg.Log.Handler(g.stderr))
			g.stdout = g.stderr
			d, err := openDoors(cmd.Context(), g, log)
			if err != nil {
				return err
			}
			defer d.close()
			defer d.games.Close(context.WithoutCancel(cmd.Context()))
			srv, err := mcp.New(mcp.Options{Tools: d.toolbox.Tools(assistant.Caller{Role: access.GM}), Game: gameDoor{d.games},
				Version: versionString(), Logger: log})
			if err != nil {
				return err
			}
			// Hearth's stdio transport, not the SDK's: a malformed line is
			// answered with a JSON-RPC error instead of ending the session.
			return srv.Run(cmd.Context(), &mcp.StdioTransport{Logger: log})
		},
	}
	return cmd
}

// gameDoor lets MCP clients play through the game API's live sessions, so
// their turns stream to WebSocket clients too.
type gameDoor struct{ s *gameapi.Server }

func (d gameDoor) Sessions(ctx context.Context) ([]mcp.SessionInfo, error) {
	ss, err := d.s.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]mcp.SessionInfo, len(ss))
	for i, s := range ss {
		out[i] = mcp.SessionInfo{ID: s.ID, Campaign: s.Campaign, Title: s.Title, Turn: s.Turn, Branch: s.Branch, Updated: s.Updated}
	}
	return out, nil
}

func (d gameDoor) State(ctx context.Context, id string) (json.RawMessage, error) {
	w, err := d.s.State(ctx, id)
	if err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

func (d gameDoor) Act(ctx context.Context, id, input string) (mcp.TurnResult, error) {
	r, err := d.s.Act(ctx, id, input)
	if err != nil {
		return mcp.TurnResult{}, err
	}
	return mcp.TurnResult{Turn: r.Turn, Committed: r.Committed, Narrative: r.Narrative, Awaiting: r.Awaiting.Kind,
		Prompt: r.Awaiting.Prompt, Choices: r.Awaiting.Options, Rejected: r.Rejected, Notice: r.Notice}, nil
}
