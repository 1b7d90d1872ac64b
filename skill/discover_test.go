package skill

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hearth-rpg/hearth/skill/protocol"
)

// writeTree writes files under root; names ending in "*" are made
// executable (the star is dropped).
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, "*") {
			name, mode = strings.TrimSuffix(name, "*"), 0o755
		}
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
}

const oracleSchema = `{
  "type": "object",
  "properties": {
    "apiKey": {"type": "string", "x-sensitive": true, "x-env-var": "ORACLE_API_KEY", "x-category": "provider"},
    "password": {"type": "string", "format": "password"},
    "model": {"type": "string", "default": "phi-4"},
    "temperature": {"type": "number", "minimum": 0, "maximum": 2, "x-category": "tuning"},
    "style": {"type": "string", "enum": ["terse", "vivid", "poetic"]},
    "verbose": {"type": "boolean", "x-env-var": "ORACLE_VERBOSE"}
  },
  "required": ["model"]
}`

// oracleScript echoes what it was given: the stdin document and the
// environment variables a skill relies on; it also writes an asset.
const oracleScript = `#!/bin/sh
IFS= read -r input
echo hi > "$HEARTH_SKILL_DATA/out.txt"
printf '{"version":"0","type":"asset","assetId":"out","kind":"document","mediaType":"text/plain","path":"data/out.txt"}\n'
printf '{"version":"0","type":"state_patch","patch":{"stdin":%s,"env":{"key":"%s","password":"%s","name":"%s","campaign":"%s","pwd":"%s"}}}\n' \
  "$input" "$ORACLE_API_KEY" "$HEARTH_CONFIG_PASSWORD" "$HEARTH_SKILL_NAME" "$HEARTH_CAMPAIGN_DIR" "$(pwd)"
echo '{"version":"0","type":"done","ok":true}'
`

func skillsFixture(t *testing.T) string {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"README.md": "not a skill",
		"oracle/SKILL.md": "---\nname: oracle\ndescription: Answers questions. Use when the player asks.\n" +
			"metadata:\n  x-narratoria:\n    capabilities: [lore]\n    retryPolicy: {maxRetries: 1, backoffMs: 5}\n---\n## Behavioral Guidance\nBe cryptic.\n",
		"oracle/scripts/ask*":                     oracleScript,
		"oracle/scripts/notes.txt":                "not executable",
		"oracle/references/config-schema.json":    oracleSchema,
		"oracle/config.json":                      `{"temperature": 0.5, "apiKey": "${ORACLE_KEY_SOURCE}", "password": "hunter2"}`,
		"misnamed/SKILL.md":                       "---\nname: other\ndescription: d\n---\n",
		"empty/scripts/x*":                        "#!/bin/sh\n",
		"broken/SKILL.md":                         "---\nname: broken\ndescription: [\n---\n",
		"badschema/SKILL.md":                      "---\nname: badschema\ndescription: d\n---\n",
		"badschema/references/config-schema.json": `{"type": "array"}`,
		".hidden/SKILL.md":                        "---\nname: nope\n---\n",
	})
	return dir
}

func TestDiscover(t *testing.T) {
	t.Setenv("ORACLE_KEY_SOURCE", "sk-test")
	dir := skillsFixture(t)
	set, warns, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range set.All() {
		names = append(names, s.Name)
	}
	if want := []string{"badschema", "oracle"}; !reflect.DeepEqual(names, want) {
		t.Errorf("skills = %v, want %v", names, want)
	}
	wantWarn := []string{
		"badschema/references/config-schema.json: the schema's type is \"array\"",
		"broken/SKILL.md:3: did not find expected node content; skipped",
		"empty/SKILL.md: missing",
		"misnamed/SKILL.md:2: name \"other\" must match the directory name \"misnamed\"; skipped",
		"oracle/scripts/notes.txt: not executable",
	}
	var got []string
	for _, w := range warns {
		got = append(got, strings.TrimPrefix(w.Error(), dir+string(filepath.Separator)))
	}
	slices.Sort(got)
	if len(got) != len(wantWarn) {
		t.Fatalf("warnings:\n%s\nwant %d", strings.Join(got, "\n"), len(wantWarn))
	}
	for i := range got {
		if !strings.HasPrefix(got[i], wantWarn[i]) {
			t.Errorf("warning %q, want prefix %q", got[i], wantWarn[i])
		}
	}
	o := set.Get("oracle")
	if len(o.Scripts) != 1 || o.Scripts[0].Name != "ask" || o.Config == nil || len(o.Config.Fields) != 6 {
		t.Fatalf("oracle = %+v", o)
	}
	if g, err := o.Guidance(); err != nil || g != "Be cryptic." {
		t.Errorf("Guidance = %q, %v", g, err)
	}
	if rp, ok := set.RetryPolicy("oracle"); !ok || rp != (RetryPolicy{MaxRetries: 1, BackoffMs: 5}) {
		t.Errorf("RetryPolicy = %v, %v", rp, ok)
	}
	sums := set.Summaries(nil)
	if len(sums) != 2 || sums[1].Name != "oracle" || sums[1].Health != Healthy || !reflect.DeepEqual(sums[1].Scripts, []string{"ask"}) {
		t.Errorf("Summaries = %+v", sums)
	}
}

func TestDiscoverMissingDirIsEmpty(t *testing.T) {
	set, warns, err := Discover(filepath.Join(t.TempDir(), "nope"))
	if err != nil || len(warns) != 0 || len(set.All()) != 0 {
		t.Errorf("Discover = %v, %v, %v", set.All(), warns, err)
	}
	var none *Set
	if none.Get("x") != nil || none.All() != nil || none.Changed() {
		t.Error("a nil Set is not empty")
	}
}

func TestResolve(t *testing.T) {
	set, _, err := Discover(skillsFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	sk, sc, err := set.Resolve("skills/oracle/scripts/ask")
	if err != nil || sk.Name != "oracle" || sc.Path != filepath.Join(sk.Dir, "scripts", "ask") {
		t.Errorf("Resolve = %v, %+v, %v", sk, sc, err)
	}
	for _, bad := range []string{"/bin/sh", "skills/nope/scripts/ask", "skills/oracle/scripts/notes.txt", "skills/oracle/scripts/../../../bin/sh"} {
		_, _, err := set.Resolve(bad)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeNotFound {
			t.Errorf("Resolve(%q) error = %v, want %s", bad, err, CodeNotFound)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	set, _, _ := Discover(skillsFixture(t))
	o := set.Get("oracle")
	env := map[string]string{"ORACLE_KEY_SOURCE": "sk-test", "ORACLE_VERBOSE": "true"}
	cfg, err := o.LoadConfig(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"apiKey": "sk-test", "password": "hunter2", "model": "phi-4", "temperature": 0.5, "verbose": true}
	if !reflect.DeepEqual(cfg.Values, want) {
		t.Errorf("values = %v, want %v", cfg.Values, want)
	}
	if pub := cfg.Public(); pub["apiKey"] != nil || pub["password"] != nil || pub["model"] != "phi-4" {
		t.Errorf("Public = %v", pub)
	}
	if got, want := cfg.Env(), []string{"ORACLE_API_KEY=sk-test", "HEARTH_CONFIG_PASSWORD=hunter2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Env = %v, want %v", got, want)
	}
	if len(cfg.Problems) != 0 || len(cfg.Missing) != 0 {
		t.Errorf("problems %v missing %v", cfg.Problems, cfg.Missing)
	}
	cfg, _ = o.LoadConfig(func(string) (string, bool) { return "", false })
	if !reflect.DeepEqual(cfg.Missing, []string{"ORACLE_KEY_SOURCE"}) || cfg.Values["apiKey"] != "" {
		t.Errorf("unset variable: missing %v, apiKey %q", cfg.Missing, cfg.Values["apiKey"])
	}
}

func TestSaveConfig(t *testing.T) {
	set, _, _ := Discover(skillsFixture(t))
	o := set.Get("oracle")
	before, _ := os.ReadFile(o.ConfigPath())
	tests := []struct {
		values map[string]any
		msg    string
	}{
		{map[string]any{"temperature": 5.0}, "temperature: maximum"},
		{map[string]any{"style": "purple"}, "style: enum"},
		{map[string]any{"model": 3.0}, "model: type"},
		{map[string]any{"temperature": "${TEMP}"}, "temperature: type"},
	}
	for _, tt := range tests {
		err := o.SaveConfig(tt.values, func(k string) (string, bool) { return "hot", k == "TEMP" })
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("SaveConfig(%v) = %v, want an error containing %q", tt.values, err, tt.msg)
		}
	}
	if after, _ := os.ReadFile(o.ConfigPath()); string(after) != string(before) {
		t.Error("a refused configuration changed config.json")
	}
	good := map[string]any{"model": "${MODEL}", "style": "vivid", "apiKey": "${ORACLE_KEY_SOURCE}"}
	lookup := func(k string) (string, bool) { return map[string]string{"MODEL": "llama"}[k], k == "MODEL" }
	if err := o.SaveConfig(good, lookup); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(o.ConfigPath())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("config.json mode = %v, %v; want 0600", fi.Mode(), err)
	}
	var saved map[string]any
	b, _ := os.ReadFile(o.ConfigPath())
	if json.Unmarshal(b, &saved); !reflect.DeepEqual(saved, good) {
		t.Errorf("saved %v, want the values as given %v", saved, good)
	}
}

func TestParseConfigSchemaErrors(t *testing.T) {
	for _, src := range []string{`[`, `{"type":"string"}`, `{"properties":{"k":{"x-env-var":"not a name"}}}`, `{"properties":{"k":{"default":}}}`} {
		if _, err := ParseConfigSchema([]byte(src)); err == nil {
			t.Errorf("ParseConfigSchema(%s) accepted it", src)
		}
	}
	cs, err := ParseConfigSchema([]byte(oracleSchema))
	if err != nil {
		t.Fatal(err)
	}
	key := cs.Fields[slices.IndexFunc(cs.Fields, func(f Field) bool { return f.Name == "apiKey" })]
	if !key.Sensitive || key.EnvVar != "ORACLE_API_KEY" || key.Category != "provider" || key.Type != "string" {
		t.Errorf("apiKey field = %+v", key)
	}
}

func TestPrepareRunsInsideTheSkill(t *testing.T) {
	dir := skillsFixture(t)
	set, _, _ := Discover(dir)
	o := set.Get("oracle")
	campaign := t.TempDir()
	env := map[string]string{"ORACLE_KEY_SOURCE": "sk-test"}
	inv, err := o.Prepare("ask", Call{
		RequestID: "plan-1/ask", Input: map[string]any{"question": "who?"}, CampaignDir: campaign,
		Timeout:   time.Minute,
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(inv.Input), "sk-test") || strings.Contains(string(inv.Input), "hunter2") {
		t.Errorf("a sensitive value is in the stdin document: %s", inv.Input)
	}
	res, err := Run(t.Context(), inv)
	if err != nil {
		t.Fatalf("Run: %v (stderr %s)", err, res.Stderr)
	}
	if a := res.Events[0].(*protocol.Asset); a.Path != filepath.Join(o.DataDir(), "out.txt") {
		t.Errorf("asset path %s", a.Path)
	}
	p := res.Events[1].(*protocol.StatePatch).Patch
	wantEnv := map[string]any{"key": "sk-test", "password": "hunter2", "name": "oracle", "campaign": campaign, "pwd": o.Dir}
	if !reflect.DeepEqual(p["env"], wantEnv) {
		t.Errorf("script env = %v, want %v", p["env"], wantEnv)
	}
	stdin := p["stdin"].(map[string]any)
	if stdin["tool"] != "ask" || stdin["requestId"] != "plan-1/ask" || !reflect.DeepEqual(stdin["input"], map[string]any{"question": "who?"}) {
		t.Errorf("stdin = %v", stdin)
	}
	if cfg := stdin["config"].(map[string]any); cfg["model"] != "phi-4" || cfg["apiKey"] != nil {
		t.Errorf("stdin config = %v", cfg)
	}
	if _, err := o.Prepare("nope", Call{}); err == nil {
		t.Error("Prepare of a missing script succeeded")
	}
}

func TestChanged(t *testing.T) {
	dir := skillsFixture(t)
	set, _, _ := Discover(dir)
	if set.Changed() {
		t.Fatal("Changed right after Discover")
	}
	writeTree(t, dir, map[string]string{"fresh/SKILL.md": "---\nname: fresh\ndescription: d\n---\n"})
	if !set.Changed() {
		t.Error("a new skill went unnoticed")
	}
}

func TestHealthTransitions(t *testing.T) {
	S, F, T := Success, Failure, Transient
	tests := []struct {
		name     string
		outcomes []Outcome
		want     []State // state after each outcome
	}{
		{"healthy stays on success", []Outcome{S, S}, []State{Healthy, Healthy}},
		{"timeout is temporary", []Outcome{T}, []State{TemporaryFailure}},
		{"temporary recovers", []Outcome{T, S}, []State{TemporaryFailure, Healthy}},
		{"temporary exhausts retries", []Outcome{T, T, F, T}, []State{TemporaryFailure, TemporaryFailure, TemporaryFailure, PermanentFailure}},
		{"three failures degrade", []Outcome{F, F, F}, []State{Healthy, Healthy, Degraded}},
		{"a success resets the count", []Outcome{F, F, S, F, F}, []State{Healthy, Healthy, Healthy, Healthy, Healthy}},
		{"degraded recovers", []Outcome{F, F, F, S}, []State{Healthy, Healthy, Degraded, Healthy}},
		{"three more fail permanently", []Outcome{F, F, F, F, T, F}, []State{Healthy, Healthy, Degraded, Degraded, Degraded, PermanentFailure}},
		{"permanent until restart", []Outcome{F, F, F, F, F, F, S}, []State{Healthy, Healthy, Degraded, Degraded, Degraded, PermanentFailure, PermanentFailure}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Health
			for i, o := range tt.outcomes {
				tr := h.Record("dice", o)
				if tr.To != tt.want[i] || h.State("dice") != tt.want[i] {
					t.Fatalf("after outcome %d (%v): state %s, want %s", i, o, tr.To, tt.want[i])
				}
			}
		})
	}
	var h Health
	for range 6 {
		h.Record("broken", Failure)
	}
	h.Record("fine", Failure)
	if d := h.Disabled(); !reflect.DeepEqual(d, []string{"broken"}) {
		t.Errorf("Disabled = %v", d)
	}
	if h := new(Health); h.State("broken") != Healthy {
		t.Error("a new session did not start healthy")
	}
	var none *Health
	none.Record("x", Failure)
	if none.State("x") != Healthy || none.Disabled() != nil {
		t.Error("a nil Health is not all healthy")
	}
}

func TestOutcomeOf(t *testing.T) {
	tests := []struct {
		err  error
		want Outcome
	}{
		{nil, Success},
		{&Error{Category: Timeout}, Transient},
		{&Error{Category: ToolFailure, Code: "network_error"}, Transient},
		{&Error{Category: ToolFailure, Code: "NO_TARGET"}, Failure},
		{&Error{Category: InvalidJSON}, Failure},
		{errors.New("other"), Failure},
	}
	for _, tt := range tests {
		if got := OutcomeOf(tt.err); got != tt.want {
			t.Errorf("OutcomeOf(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestRetryDelay(t *testing.T) {
	p := RetryPolicy{MaxRetries: 3, BackoffMs: 100}
	for attempt, want := range map[int]time.Duration{0: 0, 1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 4: 800 * time.Millisecond} {
		if got := p.Delay(attempt); got != want {
			t.Errorf("Delay(%d) = %v, want %v", attempt, got, want)
		}
	}
	if d := (RetryPolicy{BackoffMs: MaxBackoffMs}).Delay(1000); d <= 0 {
		t.Errorf("Delay overflowed: %v", d)
	}
	for _, bad := range []RetryPolicy{{MaxRetries: -1}, {MaxRetries: 11}, {BackoffMs: -1}, {BackoffMs: 60_001}} {
		if bad.Validate() == nil {
			t.Errorf("Validate(%+v) accepted it", bad)
		}
	}
}
