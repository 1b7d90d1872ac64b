package security

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// notServed are source files whose routes `hearth serve` does not mount,
// with the reason. Anything else that registers a route is attacked.
var notServed = map[string]string{
	// A per-run API on its own random 127.0.0.1 port with a per-run token,
	// for a granted skill's script; never on the server's listener.
	"skill/host/host.go": "skill host",
	// Test servers speaking the image providers' wire formats, started by
	// tests only (this suite's among them, as the server's drawer).
	"imagegen/imagegentest/imagegentest.go": "fake image providers",
}

// computedRoutes are patterns held in variables, by the expression that
// registers them: the defaults of the MCP configuration.
var computedRoutes = map[string]string{
	"cfg.MCP.Path":    "/mcp",
	"cfg.MCP.SSEPath": "/mcp/sse",
}

// servedRoutes reads every mux.Handle and mux.HandleFunc pattern in the
// module's non-test Go source: the routes the server can mount. Reading
// the source, not a running mux, makes a route added anywhere show up
// here without any list to keep.
func servedRoutes(t *testing.T) []string {
	t.Helper()
	root := ".."
	fset := token.NewFileSet()
	var routes []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if _, skip := notServed[rel]; skip {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 2 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "Handle" && sel.Sel.Name != "HandleFunc") {
				return true
			}
			switch a := call.Args[0].(type) {
			case *ast.BasicLit:
				if a.Kind == token.STRING {
					if p, err := strconv.Unquote(a.Value); err == nil {
						routes = append(routes, p)
						return true
					}
				}
			default:
				if p, ok := computedRoutes[types.ExprString(a)]; ok {
					routes = append(routes, p)
					return true
				}
			}
			if !strings.Contains(strings.ToLower(types.ExprString(sel.X)), "mux") {
				return true // not a ServeMux: slog's Handle(ctx, record) and the like
			}
			t.Errorf("%s: a route whose pattern the suite cannot read: %s; add it to computedRoutes", fset.Position(call.Pos()), types.ExprString(call.Args[0]))
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(routes)
	routes = slices.Compact(routes)
	if len(routes) < 30 {
		t.Fatalf("found only %d routes in the source; the reader is broken: %v", len(routes), routes)
	}
	return routes
}

// The reader finds the routes it must: a broken reader would make every
// route look covered.
func TestServedRoutesAreRead(t *testing.T) {
	routes := servedRoutes(t)
	for _, want := range []string{"GET /api/documents/{id}", "POST /api/chat", "GET /ws/game/{session_id}", "/mcp", "/mcp/sse", "GET /health", "/"} {
		if !slices.Contains(routes, want) {
			t.Errorf("route %q not read; read %v", want, routes)
		}
	}
	if slices.Contains(routes, "POST /v1/memories") {
		t.Error("the skill host's routes are not the server's")
	}
}
