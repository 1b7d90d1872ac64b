package hearth_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayers keeps the layering true: it lists every package's imports
// with "go list" and fails when one crosses a line it must not.
func TestLayers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/hearth-rpg/hearth"
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		imports[strings.TrimPrefix(strings.TrimPrefix(f[0], mod), "/")] = f[1:]
	}
	if len(imports) < 40 {
		t.Fatalf("go list found only %d packages", len(imports))
	}
	in := func(pkg string, roots ...string) bool {
		for _, r := range roots {
			if pkg == r || strings.HasPrefix(pkg, r+"/") {
				return true
			}
		}
		return false
	}
	local := func(imp string) (string, bool) {
		if imp == mod {
			return "", true
		}
		return strings.TrimPrefix(imp, mod+"/"), strings.HasPrefix(imp, mod+"/")
	}
	// Packages of the game's domain: model providers must know none of them.
	gamePkgs := []string{"game", "modelgm", "offlinegm", "rules", "world", "lore", "lorebook", "charcard", "narrative", "contextpack", "campaign", "pack", "store", "skill", "app", "assistant", "server", "mcp"}
	providers := []string{"llm", "prompt", "embedding", "tokens"}
	// Concrete model providers: the game is given its models, never builds one.
	concrete := []string{"llm/offline", "llm/ollama", "llm/openai", "llm/anthropic", "llm/gemini", "llm/cassette"}
	// Domain packages hold no SQL and no HTTP; storage and doors do.
	domain := []string{"access", "dice", "world", "rules", "game", "modelgm", "lore", "lorebook", "charcard", "contextpack", "narrative", "campaign", "pack", "chunk", "skill/plan", "skill/replan", "skill/pattern", "skill/protocol", "ingest/pipeline", "agent",
		"auth", "assistant", "ingest/library", "retrieve", "store", "chargen"}
	// storage is a domain package's storage subpackage, one per dependency
	// (store/sqlitestore, auth/sqlitekeys; store/pgstore, auth/pgkeys for
	// PostgreSQL): the one place its SQL may live.
	storage := func(pkg string) bool {
		last := pkg[strings.LastIndex(pkg, "/")+1:]
		return strings.HasPrefix(last, "sqlite") || strings.HasPrefix(last, "pg")
	}
	rules := []struct {
		name string
		bad  func(pkg, imp string) bool
	}{
		{"nothing imports cmd", func(pkg, imp string) bool {
			l, ok := local(imp)
			return ok && in(l, "cmd")
		}},
		// llm and every llm/* provider: the model roles live with their
		// consumer (game.Interpreter, game.Narrator), so no provider needs
		// rules or world.
		{"model providers import no game package", func(pkg, imp string) bool {
			l, ok := local(imp)
			return in(pkg, providers...) && ok && in(l, gamePkgs...)
		}},
		// The offline game master is offlinegm; the offline provider is
		// wired by app, like the others.
		{"game imports no concrete model provider", func(pkg, imp string) bool {
			l, ok := local(imp)
			return in(pkg, "game", "offlinegm", "rules", "world") && ok && in(l, concrete...)
		}},
		{"domain packages hold no SQL and no HTTP", func(pkg, imp string) bool {
			return in(pkg, domain...) && !storage(pkg) &&
				(imp == "database/sql" || imp == "net/http" || imp == mod+"/internal/sqlitedb" || imp == mod+"/internal/pgdb" ||
					strings.HasPrefix(imp, "modernc.org/sqlite") || strings.HasPrefix(imp, "github.com/jackc/pgx"))
		}},
		{"adapters are not imported by the core", func(pkg, imp string) bool {
			l, ok := local(imp)
			return !in(pkg, "server", "mcp", "cmd") && ok && in(l, "server", "mcp")
		}},
	}
	for _, r := range rules {
		for pkg, imps := range imports {
			for _, imp := range imps {
				if r.bad(pkg, imp) {
					t.Errorf("%s: %s imports %s", r.name, pkg, imp)
				}
			}
		}
	}
}
