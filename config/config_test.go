package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadPrecedence(t *testing.T) {
	tests := []struct {
		name  string
		file  string // TOML; empty: no file
		env   []string
		get   func(*Config) any
		want  any
		check string // wanted Source.String()
	}{
		{"default", "", nil, func(c *Config) any { return c.Server.Port }, 8080, "defaults"},
		{"file over default", "[server]\nport = 9000\n", nil,
			func(c *Config) any { return c.Server.Port }, 9000, "defaults, file FILE"},
		{"env over file", "[server]\nport = 9000\n", []string{"HEARTH__SERVER__PORT=9100"},
			func(c *Config) any { return c.Server.Port }, 9100, "defaults, file FILE, environment HEARTH__SERVER__PORT"},
		{"env over default", "", []string{"HEARTH__SERVER__PORT=9100"},
			func(c *Config) any { return c.Server.Port }, 9100, "defaults, environment HEARTH__SERVER__PORT"},
		{"file leaves other keys at default", "[server]\nport = 9000\n", nil,
			func(c *Config) any { return c.Server.Host }, "127.0.0.1", "defaults, file FILE"},
		{"env list replaces file list", "[server]\ncors_origins = [\"http://a.example\", \"http://b.example\"]\n",
			[]string{"HEARTH__SERVER__CORS_ORIGINS=http://c.example"},
			func(c *Config) any { return c.Server.CORSOrigins }, []string{"http://c.example"},
			"defaults, file FILE, environment HEARTH__SERVER__CORS_ORIGINS"},
		{"nested role from env", "[models.narrator]\nprovider = \"openai\"\nmodel = \"gpt-4o-mini\"\n",
			[]string{"HEARTH__MODELS__NARRATOR__PROVIDER=ollama"},
			func(c *Config) any { return c.Models.Narrator }, Role{Provider: "ollama", Model: "gpt-4o-mini"},
			"defaults, file FILE, environment HEARTH__MODELS__NARRATOR__PROVIDER"},
		{"unrelated variables ignored", "", []string{"HOME=/nonexistent", "HEARTH=1", "PATH=/bin"},
			func(c *Config) any { x := *c; x.Storage.DataDir = ""; return x }, *Default(), "defaults"},
		{"first of duplicate variables wins", "", []string{"HEARTH__SERVER__PORT=1", "HEARTH__SERVER__PORT=2"},
			func(c *Config) any { return c.Server.Port }, 1, "defaults, environment HEARTH__SERVER__PORT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := ""
			if tt.file != "" {
				path = writeFile(t, "hearth.toml", tt.file)
			} else {
				t.Chdir(t.TempDir()) // no hearth.toml to discover
			}
			c, src, err := Load(path, tt.env)
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.get(c); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
			if want := strings.ReplaceAll(tt.check, "FILE", path); src.String() != want {
				t.Errorf("source %q, want %q", src, want)
			}
		})
	}
}

func TestLoadFindsFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	env := []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, "xdg")}
	c, src, err := Load("", env)
	if err != nil || src.File != "" || c.Server.Port != 8080 {
		t.Fatalf("without a file: port %v, source %+v, err %v", c, src, err)
	}
	userFile := filepath.Join(dir, "xdg", "hearth", FileName)
	if got := DefaultPath(env); got != userFile {
		t.Errorf("DefaultPath = %s, want %s", got, userFile)
	}
	// The old server file in the working directory is still read, with a
	// notice saying where it belongs now.
	if err := os.WriteFile("hearth.toml", []byte("[log]\nformat = \"text\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, src, err = Load("", env)
	if err != nil || src.File != "hearth.toml" || c.Log.Format != "text" || len(src.Notices) != 1 || !strings.Contains(src.Notices[0], userFile) {
		t.Fatalf("with hearth.toml: format %q, source %+v, err %v", c.Log.Format, src, err)
	}
	// The user's file wins over it.
	if err := os.MkdirAll(filepath.Dir(userFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(userFile, []byte("[log]\nlevel = \"debug\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, src, err = Load("", env)
	if err != nil || src.File != userFile || c.Log.Level != "debug" || c.Log.Format != "json" || len(src.Notices) != 0 {
		t.Fatalf("with the user's file: %+v, source %+v, err %v", c.Log, src, err)
	}
	if got := src.Origin("log.level"); got != userFile+":2" {
		t.Errorf("origin of log.level = %q, want %s:2", got, userFile)
	}
	// HEARTH_CONFIG names the file like --config does.
	other := writeFile(t, "other.toml", "[server]\nport = 9\n")
	if c, _, err = Load("", append(env, "HEARTH_CONFIG="+other)); err != nil || c.Server.Port != 9 {
		t.Fatalf("HEARTH_CONFIG: port %d, err %v", c.Server.Port, err)
	}

	if _, _, err := Load(filepath.Join(dir, "missing.toml"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("explicit missing file: err %v, want not exist", err)
	}
	if _, _, err := Load(dir, nil); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: err %v", err)
	}
	big := writeFile(t, "big.toml", "# "+strings.Repeat("x", maxFileBytes)+"\n")
	if _, _, err := Load(big, nil); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized file: err %v", err)
	}
}

func TestOrigins(t *testing.T) {
	file := writeFile(t, "h.toml", "# comment\n[server]\nport = 9000\n\n[models.narrator]\nprovider = \"ollama\"\napi_key = \"sekret\"\n")
	env := []string{"HEARTH__LOG__LEVEL=debug", "HEARTH_DATA=/srv/hearth"}
	c, src, err := Load(file, env)
	if err != nil {
		t.Fatal(err)
	}
	src.Set("server.host", "flag --host")
	for key, want := range map[string]string{
		"server.port":              file + ":3",
		"models.narrator.provider": file + ":6",
		"log.level":                "HEARTH__LOG__LEVEL",
		"storage.data_dir":         "HEARTH_DATA",
		"server.host":              "flag --host",
		"log.format":               "default",
	} {
		if got := src.Origin(key); got != want {
			t.Errorf("origin of %s = %q, want %q", key, got, want)
		}
	}
	if c.Storage.DataDir != "/srv/hearth" {
		t.Errorf("data_dir = %q, want HEARTH_DATA's", c.Storage.DataDir)
	}
	var out strings.Builder
	if err := c.Show(&out, src); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"port = 9000  # " + file + ":3", `data_dir = "/srv/hearth"  # HEARTH_DATA`,
		`api_key = "****"  # ` + file + ":7", "[models.narrator]", `level = "debug"  # HEARTH__LOG__LEVEL`,
		`session_idle = "12h0m0s"  # default`, `session_max = "168h0m0s"  # default`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("show lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "sekret") {
		t.Error("show printed a secret")
	}
}

func TestUnknownKeyNamesLine(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"h.toml", "[server]\nport = 1\nprot = 2\n", "h.toml:3: server.prot"},
		{"h.yaml", "server:\n  port: 1\nlog:\n  levle: debug\n", "h.yaml:4: log.levle"},
	} {
		_, _, err := Load(writeFile(t, tc.name, tc.body), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestLegacyModelFile(t *testing.T) {
	file := writeFile(t, "config.yaml", "roles:\n  narrator: {provider: ollama, model: llama3.2}\n  summariser:\n    model: llama3.2:1b\npipeline: multipass\nprompt_versions: narrator@1\n")
	c, src, err := Load(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Models.Narrator.Model != "llama3.2" || c.Models.Summariser.Model != "llama3.2:1b" || c.Models.Pipeline != "multipass" || c.Models.PromptVersions != "narrator@1" {
		t.Errorf("legacy file read as %+v", c.Models)
	}
	if len(src.Notices) != 1 || !strings.Contains(src.Notices[0], "hearth config init --from") {
		t.Errorf("notices %q", src.Notices)
	}
	if got := src.Origin("models.narrator.model"); got != file+":2" {
		t.Errorf("origin %q", got)
	}
}

func TestEnvParsing(t *testing.T) {
	tests := []struct {
		env  string
		get  func(*Config) any
		want any
	}{
		{"HEARTH__SERVER__PORT=9000", func(c *Config) any { return c.Server.Port }, 9000},
		{"HEARTH__SERVER__PORT= 9000 ", func(c *Config) any { return c.Server.Port }, 9000},
		{"HEARTH__SERVER__MAX_BODY_BYTES=2097152", func(c *Config) any { return c.Server.MaxBodyBytes }, int64(2 << 20)},
		{"HEARTH__LIMITS__RATE_LIMIT_RPM=30", func(c *Config) any { return c.Limits.RateLimitRPM }, 30},
		{"HEARTH__LIMITS__MAX_DOCUMENT_SIZE_BYTES=5000000000", func(c *Config) any { return c.Limits.MaxDocumentSizeBytes }, int64(5_000_000_000)},
		{"HEARTH__ASSISTANT__CONVERSATION_TTL=48h", func(c *Config) any { return c.Assistant.ConversationTTL }, 48 * time.Hour},
		{"HEARTH__SERVER__READ_HEADER_TIMEOUT=1m30s", func(c *Config) any { return c.Server.ReadHeaderTimeout }, 90 * time.Second},
		{"HEARTH__SERVER__SESSION_IDLE=30m", func(c *Config) any { return c.Server.SessionIdle }, 30 * time.Minute},
		{"HEARTH__SERVER__CORS_ORIGINS=http://localhost:30000, https://vtt.example.org,,",
			func(c *Config) any { return c.Server.CORSOrigins }, []string{"http://localhost:30000", "https://vtt.example.org"}},
		{"HEARTH__SERVER__CORS_ORIGINS=", func(c *Config) any { return c.Server.CORSOrigins }, []string{}},
		{"HEARTH__MCP__ENABLED=false", func(c *Config) any { return c.MCP.Enabled }, false},
		{"HEARTH__MCP__ENABLED=0", func(c *Config) any { return c.MCP.Enabled }, false},
		{"HEARTH__MODELS__NARRATOR__PROVIDER=ollama", func(c *Config) any { return c.Models.Narrator.Provider }, "ollama"},
		{"HEARTH__MODELS__VISION__API_KEY=a=b", func(c *Config) any { return c.Models.Vision.APIKey }, Secret("a=b")},
		{"hearth__log__level=debug", func(c *Config) any { return c.Log.Level }, "info"}, // prefix is case-sensitive
		{"HEARTH__log__level=debug", func(c *Config) any { return c.Log.Level }, "debug"},
		{"HEARTH__ASSISTANT__SYSTEM=mgt2e", func(c *Config) any { return c.Assistant.System }, "mgt2e"},
	}
	t.Chdir(t.TempDir())
	for _, tt := range tests {
		c, _, err := Load("", []string{tt.env})
		if err != nil {
			t.Errorf("%s: %v", tt.env, err)
			continue
		}
		if got := tt.get(c); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %#v, want %#v", tt.env, got, tt.want)
		}
	}
}

func TestFormats(t *testing.T) {
	toml := `
[server]
host = "0.0.0.0"
cors_origins = ["http://localhost:30000"]
shutdown_timeout = "5s"

[models]
pipeline = "multipass"
context_budget = 6000

[models.narrator]
provider = "anthropic"
model = "claude-sonnet-4-5"
api_key_env = "MY_KEY"

[models.summariser]
model = "small"

[mcp]
enabled = false

[limits]
max_document_size_bytes = 1000
`
	yaml := `
server:
  host: 0.0.0.0
  cors_origins: ["http://localhost:30000"]
  shutdown_timeout: 5s
models:
  pipeline: multipass
  context_budget: 6000
  narrator:
    provider: anthropic
    model: claude-sonnet-4-5
    api_key_env: MY_KEY
  summariser:
    model: small
mcp:
  enabled: false
limits:
  max_document_size_bytes: 1000
`
	want := Default()
	want.Server.Host = "0.0.0.0"
	want.Server.CORSOrigins = []string{"http://localhost:30000"}
	want.Server.ShutdownTimeout = 5 * time.Second
	want.Models.Pipeline = "multipass"
	want.Models.ContextBudget = 6000
	want.Models.Narrator = Role{Provider: "anthropic", Model: "claude-sonnet-4-5", APIKeyEnv: "MY_KEY"}
	want.Models.Summariser = Role{Model: "small"}
	want.MCP.Enabled = false
	want.Limits.MaxDocumentSizeBytes = 1000

	for _, f := range []struct{ name, content string }{
		{"hearth.toml", toml}, {"hearth.yaml", yaml}, {"hearth.YML", yaml}, {"hearth.conf", toml},
	} {
		c, _, err := Load(writeFile(t, f.name, f.content), nil)
		if err != nil {
			t.Errorf("%s: %v", f.name, err)
			continue
		}
		if !reflect.DeepEqual(c, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", f.name, c, want)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, file, content string
		env                 []string
		key, source         string   // of the first *KeyError; empty when the error is not one
		contains            []string // in the whole message
	}{
		{"typo in file", "hearth.toml", "[server]\nprot = 9000\n", nil,
			"server.prot", "FILE", []string{"unknown key", "[server] has host, port"}},
		{"unknown section", "hearth.toml", "[sever]\nport = 9000\n", nil,
			"sever.port", "FILE", []string{"unknown key", "sections are server, storage"}},
		{"unknown role", "hearth.toml", "[models.narator]\nprovider = \"ollama\"\n", nil,
			"models.narator.provider", "FILE", []string{"[models] has", "narrator"}},
		{"typo in yaml", "hearth.yaml", "log:\n  levle: debug\n", nil,
			"log.levle", "FILE", []string{"[log] has level, format"}},
		{"value below a value", "hearth.yaml", "server:\n  port:\n    x: 1\n", nil,
			"server.port.x", "FILE", []string{"server.port is a value"}},
		{"section given a value", "hearth.toml", "server = 5\n", nil,
			"server", "FILE", []string{"is a section"}},
		{"string for int", "hearth.toml", "[server]\nport = \"9000\"\n", nil,
			"server.port", "FILE", []string{"want a whole number", `got "9000"`}},
		{"float for int", "hearth.yaml", "server:\n  port: 80.5\n", nil,
			"server.port", "FILE", []string{"want a whole number", "80.5"}},
		{"number for duration", "hearth.toml", "[assistant]\nhard_timeout = 300\n", nil,
			"assistant.hard_timeout", "FILE", []string{"want a duration", `"90s"`, "the number 300"}},
		{"bad duration", "hearth.toml", "[assistant]\nhard_timeout = \"5 minutes\"\n", nil,
			"assistant.hard_timeout", "FILE", []string{"want a duration", `"5 minutes"`}},
		{"string for list", "hearth.toml", "[server]\ncors_origins = \"http://a.example\"\n", nil,
			"server.cors_origins", "FILE", []string{"want a list of strings"}},
		{"number in list", "hearth.toml", "[server]\ncors_origins = [1]\n", nil,
			"server.cors_origins", "FILE", []string{"an entry is the number 1"}},
		{"number for string", "hearth.toml", "[models.narrator]\nmodel = 3\n", nil,
			"models.narrator.model", "FILE", []string{"want a string"}},
		{"yaml null", "hearth.yaml", "log:\n  level:\n", nil,
			"log.level", "FILE", []string{"null", "remove the key"}},
		{"bad int in env", "", "", []string{"HEARTH__SERVER__PORT=eighty"},
			"server.port", "HEARTH__SERVER__PORT", []string{"want a whole number (default 8080)", `"eighty"`}},
		{"int overflow in env", "", "", []string{"HEARTH__SERVER__PORT=99999999999999999999"},
			"server.port", "HEARTH__SERVER__PORT", []string{"want a whole number"}},
		{"bad duration in env", "", "", []string{"HEARTH__ASSISTANT__CONVERSATION_TTL=7d"},
			"assistant.conversation_ttl", "HEARTH__ASSISTANT__CONVERSATION_TTL", []string{"168h"}},
		{"bad bool in env", "", "", []string{"HEARTH__MCP__ENABLED=yes please"},
			"mcp.enabled", "HEARTH__MCP__ENABLED", []string{"want true or false"}},
		{"single underscore in env", "", "", []string{"HEARTH__SERVER_PORT=1"},
			"server_port", "HEARTH__SERVER_PORT", []string{"double underscore"}},
		{"invalid value from file", "hearth.toml", "[server]\nport = 70000\n", nil,
			"server.port", "FILE", []string{"between 0 and 65535"}},
		{"invalid value from env", "", "", []string{"HEARTH__LIMITS__RATE_LIMIT_RPM=0"},
			"limits.rate_limit_rpm", "HEARTH__LIMITS__RATE_LIMIT_RPM", []string{"must be positive"}},
		{"invalid provider", "hearth.toml", "[models.planner]\nprovider = \"olama\"\n", nil,
			"models.planner.provider", "FILE", []string{"offline, ollama, openai, anthropic, gemini", `"olama"`}},
		{"toml syntax", "hearth.toml", "[server]\nport = = 1\n", nil,
			"", "", []string{"line 2"}},
		{"yaml syntax", "hearth.yaml", "server:\n  port: [\n", nil,
			"", "", []string{"line"}},
		{"yaml not a map", "hearth.yaml", "- 1\n- 2\n", nil,
			"", "", []string{"yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := ""
			if tt.file != "" {
				path = writeFile(t, tt.file, tt.content)
			} else {
				t.Chdir(t.TempDir())
			}
			c, _, err := Load(path, tt.env)
			if err == nil {
				t.Fatalf("no error; config %+v", c)
			}
			if c != nil {
				t.Error("a config returned with an error")
			}
			msg := err.Error()
			t.Log(msg)
			for _, s := range tt.contains {
				if !strings.Contains(msg, s) {
					t.Errorf("error %q does not contain %q", msg, s)
				}
			}
			var ke *KeyError
			if tt.key == "" {
				if errors.As(err, &ke) {
					t.Errorf("unexpected key error %v", ke)
				}
				if path != "" && !strings.Contains(msg, path) {
					t.Errorf("error %q does not name the file", msg)
				}
				return
			}
			if !errors.As(err, &ke) {
				t.Fatalf("error %q is not a *KeyError", msg)
			}
			// A key from the file is reported with its line: FILE:N.
			if want := strings.ReplaceAll(tt.source, "FILE", path); ke.Key != tt.key || (ke.Source != want && !strings.HasPrefix(ke.Source, want+":")) {
				t.Errorf("key error at %s from %s, want %s from %s", ke.Key, ke.Source, tt.key, want)
			}
		})
	}
}

func TestLoadReportsEveryProblem(t *testing.T) {
	path := writeFile(t, "hearth.toml", "[server]\nprot = 1\nport = 70000\n[log]\nformat = \"xml\"\n")
	_, _, err := Load(path, []string{"HEARTH__LIMITS__RATE_LIMIT_BURST=x"})
	if err == nil {
		t.Fatal("no error")
	}
	// Unknown keys and unparsable values come first; invalid values are
	// only judged once everything parsed.
	for _, s := range []string{"server.prot", "limits.rate_limit_burst"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %s", err, s)
		}
	}
	path = writeFile(t, "hearth.toml", "[server]\nport = 70000\n[log]\nformat = \"xml\"\n")
	_, _, err = Load(path, nil)
	if err == nil || !strings.Contains(err.Error(), "server.port") || !strings.Contains(err.Error(), "log.format") {
		t.Errorf("error %v should name both server.port and log.format", err)
	}
}

func TestValidate(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	tests := []struct {
		key    string
		change func(*Config)
	}{
		{"server.port", func(c *Config) { c.Server.Port = -1 }},
		{"server.port", func(c *Config) { c.Server.Port = 65536 }},
		{"server.host", func(c *Config) { c.Server.Host = "localhost:8080" }},
		{"server.host", func(c *Config) { c.Server.Host = "[::1]" }},
		{"server.public_url", func(c *Config) { c.Server.PublicURL = "hearth.example.org" }},
		{"server.public_url", func(c *Config) { c.Server.PublicURL = "https://hearth.example.org/?a=1" }},
		{"server.cors_origins", func(c *Config) { c.Server.CORSOrigins = []string{"http://localhost:30000/game"} }},
		{"server.cors_origins", func(c *Config) { c.Server.CORSOrigins = []string{"localhost:30000"} }},
		{"server.trusted_proxies", func(c *Config) { c.Server.TrustedProxies = []string{"10.0.0.0/33"} }},
		{"server.trusted_proxies", func(c *Config) { c.Server.TrustedProxies = []string{"proxy.lan"} }},
		{"server.max_body_bytes", func(c *Config) { c.Server.MaxBodyBytes = 0 }},
		{"server.read_header_timeout", func(c *Config) { c.Server.ReadHeaderTimeout = 0 }},
		{"server.shutdown_timeout", func(c *Config) { c.Server.ShutdownTimeout = -time.Second }},
		{"server.session_idle", func(c *Config) { c.Server.SessionIdle = 0 }},
		{"server.session_max", func(c *Config) { c.Server.SessionMax = -time.Hour }},
		{"server.session_idle", func(c *Config) { c.Server.SessionIdle, c.Server.SessionMax = 48*time.Hour, 24*time.Hour }},
		{"images.provider", func(c *Config) { c.Images.Provider = "midjourney" }},
		{"images.base_url", func(c *Config) { c.Images.BaseURL = "localhost:8000/v1" }},
		{"images.api_key", func(c *Config) { c.Images.APIKey, c.Images.APIKeyFile = "k", "/run/secrets/k" }},
		{"images.size", func(c *Config) { c.Images.Size = "large" }},
		{"images.size", func(c *Config) { c.Images.Size = "1024x0" }},
		{"models.pipeline", func(c *Config) { c.Models.Pipeline = "magic" }},
		{"models.context_budget", func(c *Config) { c.Models.ContextBudget = -5 }},
		{"models.timeout", func(c *Config) { c.Models.Timeout = 0 }},
		{"models.vision.provider", func(c *Config) { c.Models.Vision.Provider = "OpenAI" }},
		{"models.narrator.base_url", func(c *Config) { c.Models.Narrator.BaseURL = "127.0.0.1:11434" }},
		{"models.embedder.api_key", func(c *Config) {
			c.Models.Embedder.APIKey, c.Models.Embedder.APIKeyFile = "k", "/run/secrets/k"
		}},
		{"assistant.tool_call_pause_threshold", func(c *Config) { c.Assistant.ToolCallPauseThreshold = 0 }},
		{"assistant.max_consecutive_internal", func(c *Config) { c.Assistant.MaxConsecutiveInternal = -1 }},
		{"assistant.time_pause_threshold", func(c *Config) { c.Assistant.TimePauseThreshold = 0 }},
		{"assistant.hard_timeout", func(c *Config) { c.Assistant.HardTimeout = 30 * time.Second }},
		{"assistant.external_tool_timeout", func(c *Config) { c.Assistant.ExternalToolTimeout = 0 }},
		{"assistant.conversation_ttl", func(c *Config) { c.Assistant.ConversationTTL = 0 }},
		{"assistant.cleanup_interval", func(c *Config) { c.Assistant.CleanupInterval = 0 }},
		{"assistant.max_per_user", func(c *Config) { c.Assistant.MaxPerUser = -1 }},
		{"mcp.path", func(c *Config) { c.MCP.Path = "mcp" }},
		{"mcp.sse_path", func(c *Config) { c.MCP.SSEPath = "" }},
		{"mcp.sse_path", func(c *Config) { c.MCP.SSEPath = "/mcp" }},
		{"limits.max_document_size_bytes", func(c *Config) { c.Limits.MaxDocumentSizeBytes = 0 }},
		{"limits.rate_limit_rpm", func(c *Config) { c.Limits.RateLimitRPM = -60 }},
		{"limits.rate_limit_burst", func(c *Config) { c.Limits.RateLimitBurst = 0 }},
		{"log.level", func(c *Config) { c.Log.Level = "verbose" }},
		{"log.format", func(c *Config) { c.Log.Format = "xml" }},
	}
	for _, tt := range tests {
		c := Default()
		tt.change(c)
		err := c.Validate()
		var ke *KeyError
		if !errors.As(err, &ke) {
			t.Errorf("%s: err %v, want a *KeyError", tt.key, err)
			continue
		}
		if ke.Key != tt.key {
			t.Errorf("%s: error names %s: %v", tt.key, ke.Key, err)
		}
		if !strings.HasPrefix(err.Error(), "config: "+tt.key+": ") {
			t.Errorf("%s: message %q", tt.key, err)
		}
	}

	ok := []func(*Config){
		func(c *Config) { c.Server.Port = 0 },
		func(c *Config) { c.Server.Host = "0.0.0.0" },
		func(c *Config) { c.Server.Host = "::1" },
		func(c *Config) { c.Server.Host = "" },
		func(c *Config) { c.Server.PublicURL = "https://hearth.example.org/base/" },
		func(c *Config) { c.Server.CORSOrigins = []string{"*", "https://foundry.example.org:30000"} },
		func(c *Config) { c.Models.Narrator = Role{Provider: "gemini", BaseURL: "https://g.example"} },
		func(c *Config) { c.Assistant.MaxPerUser = 0 },
		func(c *Config) { c.MCP.Enabled = false },
	}
	for i, change := range ok {
		c := Default()
		change(c)
		if err := c.Validate(); err != nil {
			t.Errorf("valid change %d: %v", i, err)
		}
	}
}

func TestWriteMasksSecrets(t *testing.T) {
	const fileSecret, envSecret = "sk-file-6f1c2a9e", "sk-env-b2d4e8f0"
	path := writeFile(t, "hearth.toml", fmt.Sprintf("[models.narrator]\nprovider = \"openai\"\napi_key = %q\n", fileSecret))
	c, _, err := Load(path, []string{"HEARTH__MODELS__VISION__API_KEY=" + envSecret})
	if err != nil {
		t.Fatal(err)
	}
	if string(c.Models.Narrator.APIKey) != fileSecret || string(c.Models.Vision.APIKey) != envSecret {
		t.Fatal("secrets not loaded")
	}
	var out bytes.Buffer
	if err := c.Write(&out); err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("config", "narrator", c.Models.Narrator, "key", c.Models.Vision.APIKey)
	renderings := map[string]string{
		"Write": out.String(),
		"%v":    fmt.Sprintf("%v", c),
		"%+v":   fmt.Sprintf("%+v", *c),
		"%#v":   fmt.Sprintf("%#v", *c),
		//lint:ignore S1025 the test checks what fmt's %s prints for the secret
		"%s":   fmt.Sprintf("%s", c.Models.Vision.APIKey),
		"slog": logged.String(),
	}
	for how, s := range renderings {
		for _, secret := range []string{fileSecret, envSecret} {
			if strings.Contains(s, secret) {
				t.Errorf("%s shows a secret: %s", how, s)
			}
		}
	}
	if n := strings.Count(out.String(), `api_key = "****"`); n != 2 {
		t.Errorf("Write masked %d keys, want 2:\n%s", n, out.String())
	}
	if !strings.Contains(logged.String(), `****`) {
		t.Errorf("slog output %s lacks the mask", logged.String())
	}
	// Write must not mask the caller's config.
	if string(c.Models.Narrator.APIKey) != fileSecret {
		t.Error("Write changed the config")
	}
}

func TestWriteRoundTrip(t *testing.T) {
	c := Default()
	c.Server.Host = "0.0.0.0"
	c.Server.PublicURL = "https://hearth.example.org"
	c.Server.CORSOrigins = []string{"http://localhost:30000", "https://vtt.example.org"}
	c.Server.TrustedProxies = []string{"10.0.0.0/8", "::1"}
	c.Server.ReadHeaderTimeout = 1500 * time.Millisecond
	c.Models.Narrator = Role{Provider: "ollama", Model: "llama3.2", BaseURL: "http://gpu.lan:11434"}
	c.Models.Embedder = Role{Provider: "openai", APIKeyEnv: "OPENAI_API_KEY", APIKeyFile: "/run/k"}
	c.Models.PromptVersions = "narrator@2"
	c.Assistant.System = "mgt2e \"quoted\" \\ ünïcode"
	c.MCP.Enabled = false
	c.Limits.RateLimitBurst = 3
	c.Log = Log{Level: "debug", Format: "text"}
	var out bytes.Buffer
	if err := c.Write(&out); err != nil {
		t.Fatal(err)
	}
	got, _, err := Load(writeFile(t, "out.toml", out.String()), nil)
	if err != nil {
		t.Fatalf("reading Write's output: %v\n%s", err, out.String())
	}
	if !reflect.DeepEqual(got, c) {
		t.Errorf("round trip:\n got %+v\nwant %+v\n%s", got, c, out.String())
	}
}

func TestRole(t *testing.T) {
	narrator := Role{Provider: "ollama", Model: "llama3.2", BaseURL: "http://gpu:11434"}
	tests := []struct {
		name   string
		models Models
		role   string
		want   Role
	}{
		{"narrator defaults to offline", Models{}, "narrator", Role{Provider: "offline"}},
		{"unset role inherits narrator", Models{Narrator: narrator}, "planner", narrator},
		{"same provider fills gaps", Models{Narrator: narrator, Summariser: Role{Model: "llama3.2:1b"}}, "summariser",
			Role{Provider: "ollama", Model: "llama3.2:1b", BaseURL: "http://gpu:11434"}},
		{"other provider stands alone", Models{Narrator: narrator, Vision: Role{Provider: "gemini", Model: "gemini-2.5-flash"}}, "vision",
			Role{Provider: "gemini", Model: "gemini-2.5-flash"}},
		{"key file beats inherited key", Models{Narrator: Role{Provider: "openai", APIKey: "k"}, Assistant: Role{APIKeyFile: "/f"}}, "assistant",
			Role{Provider: "openai", APIKeyFile: "/f"}},
	}
	for _, tt := range tests {
		got, ok := tt.models.Role(tt.role)
		if !ok || got != tt.want {
			t.Errorf("%s: got %+v (%v), want %+v", tt.name, got, ok, tt.want)
		}
	}
	if _, ok := (Models{}).Role("bard"); ok {
		t.Error("unknown role reported as known")
	}
	for _, name := range RoleNames() {
		if _, ok := (Models{}).Role(name); !ok {
			t.Errorf("role %s not known", name)
		}
	}
}

func TestLogHandler(t *testing.T) {
	for _, tt := range []struct {
		log          Log
		debugShown   bool
		jsonExpected bool
	}{
		{Log{Level: "info", Format: "json"}, false, true},
		{Log{Level: "debug", Format: "text"}, true, false},
	} {
		var buf bytes.Buffer
		l := slog.New(tt.log.Handler(&buf))
		l.Debug("d")
		l.Info("i")
		out := buf.String()
		if shown := strings.Contains(out, "msg=d") || strings.Contains(out, `"msg":"d"`); shown != tt.debugShown {
			t.Errorf("%+v: debug shown %v: %s", tt.log, shown, out)
		}
		if strings.HasPrefix(out, "{") != tt.jsonExpected {
			t.Errorf("%+v: format wrong: %s", tt.log, out)
		}
	}
}

// The template documents the session keys with their defaults, so a new
// install finds them.
func TestTemplateHasSessionKeys(t *testing.T) {
	tmpl := Default().Template()
	for _, want := range []string{"[server]", `# session_idle = "12h0m0s"`, `# session_max = "168h0m0s"`} {
		if !strings.Contains(tmpl, want) {
			t.Errorf("template lacks %q:\n%s", want, tmpl)
		}
	}
}

// database.url comes from the environment, and every way of showing the
// configuration shows where it points but never its password.
func TestDatabaseURLMasksPassword(t *testing.T) {
	const pw = "pg-s3cret-71a9"
	env := []string{"HEARTH__DATABASE__URL=postgres://hearth:" + pw + "@db.lan:5433/hearth?sslmode=require"}
	c, src, err := Load("", env)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(c.Database.URL), pw) || !c.Database.URL.Postgres() {
		t.Fatalf("database.url not loaded: %q", c.Database.URL)
	}
	var written, shown, logged bytes.Buffer
	if err := c.Write(&written); err != nil {
		t.Fatal(err)
	}
	if err := c.Show(&shown, src); err != nil {
		t.Fatal(err)
	}
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("config", "database", c.Database)
	renderings := map[string]string{
		"Write":    written.String(),
		"Show":     shown.String(),
		"Template": c.Template(),
		"%v":       fmt.Sprintf("%v", c),
		"%#v":      fmt.Sprintf("%#v", *c),
		"slog":     logged.String(),
	}
	for how, s := range renderings {
		if strings.Contains(s, pw) {
			t.Errorf("%s shows the password:\n%s", how, s)
		}
		if !strings.Contains(s, "hearth:****@db.lan:5433/hearth") {
			t.Errorf("%s does not show where the database is:\n%s", how, s)
		}
	}
	if !strings.Contains(shown.String(), "HEARTH__DATABASE__URL") {
		t.Errorf("Show does not say where database.url came from:\n%s", shown.String())
	}
}

func TestMaskURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"postgres://h:pw@host/db", "postgres://h:****@host/db"},
		{"postgres://h@host:5432/db?sslmode=disable", "postgres://h@host:5432/db?sslmode=disable"},
		{"postgresql://host/db?password=pw&sslmode=disable", "postgresql://host/db?password=****&sslmode=disable"},
		{"postgres://h:p%40ss@host/db", "postgres://h:****@host/db"},
		{"host=db password=pw", "****"}, // not a URL: where the password is cannot be told
		{"postgres://h:pw@[bad", "****"},
	}
	for _, tt := range tests {
		if got := MaskURL(tt.in); got != tt.want {
			t.Errorf("MaskURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestValidateDatabaseURL(t *testing.T) {
	tests := []struct {
		url string
		ok  bool
	}{
		{"", true},
		{"postgres://hearth@127.0.0.1:5432/hearth", true},
		{"postgresql://hearth:pw@db/hearth", true},
		{"mysql://db/hearth", false},
		{"sqlite:/var/lib/hearth.db", false},
		{"postgres:///hearth", false}, // no host
		{"host=db dbname=hearth password=pw", false},
	}
	for _, tt := range tests {
		c := Default()
		c.Database.URL = DatabaseURL(tt.url)
		err := c.Validate()
		if (err == nil) != tt.ok {
			t.Errorf("Validate(database.url = %q) = %v, want ok %v", tt.url, err, tt.ok)
		}
		if err != nil && strings.Contains(err.Error(), "pw") {
			t.Errorf("the error quotes the URL: %v", err)
		}
	}
}

// Image generation is off by default; when on, its model defaults by
// provider and `config show` lists the section with the key masked.
func TestImages(t *testing.T) {
	c := Default()
	if c.Images.On() {
		t.Fatal("image generation is on by default")
	}
	c.Images = Images{Provider: "gemini", APIKey: "sk-image-secret", Size: "1024x768", BaseURL: "http://127.0.0.1:9000"}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if r := c.Images.Role(); !c.Images.On() || r.Model != "imagen-3.0-generate-002" || r.Provider != "gemini" || string(r.APIKey) != "sk-image-secret" {
		t.Errorf("role %+v", r)
	}
	c.Images.Model = "imagen-4.0-generate-001"
	if r := c.Images.Role(); r.Model != "imagen-4.0-generate-001" {
		t.Errorf("a chosen model was replaced: %q", r.Model)
	}
	var b strings.Builder
	if err := c.Show(&b, Source{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"[images]", `provider = "gemini"`, `size = "1024x768"`, `model = "imagen-4.0-generate-001"`} {
		if !strings.Contains(out, want) {
			t.Errorf("config show lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "sk-image-secret") {
		t.Error("config show prints the image API key")
	}
}
