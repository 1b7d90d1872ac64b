package skill

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hearth-rpg/hearth/skill/protocol"
)

// Call is what Prepare needs besides the script: the tool input and where
// the invocation happens.
type Call struct {
	RequestID   string
	Operation   string
	Input       map[string]any
	CampaignDir string        // the campaign being played; assets may be written there too
	Timeout     time.Duration // 0: the skill's timeoutMs, else DefaultTimeout
	LookupEnv   func(string) (string, bool)
	OnEvent     func(protocol.Event)
	Limits      Limits
	// Env is added to the script's environment: how it reaches the host
	// API for this invocation (HEARTH_SKILL_API, HEARTH_SKILL_TOKEN).
	Env []string
}

// Environment variables every script gets, besides BaseEnv and its
// sensitive configuration.
const (
	EnvSkillName   = "HEARTH_SKILL_NAME"
	EnvSkillDir    = "HEARTH_SKILL_DIR"
	EnvSkillData   = "HEARTH_SKILL_DATA" // the private data directory, created on first use
	EnvCampaignDir = "HEARTH_CAMPAIGN_DIR"
	EnvRequestID   = "HEARTH_REQUEST_ID"
	// EnvExe is the hearth binary running the skill, passed on from
	// Hearth's own environment: the bundled skills' scripts exec
	// "$HEARTH_EXE skill builtin NAME" (see package skill/builtin).
	EnvExe = "HEARTH_EXE"
)

// Prepare builds the invocation of one of the skill's scripts: it runs in
// the skill's directory with its data directory created, reads a
// protocol.Input on stdin (the non-sensitive configuration under
// "config"), gets its sensitive configuration as environment variables,
// and may create assets only in its data directory or the campaign
// directory.
func (s *Skill) Prepare(script string, c Call) (Invocation, error) {
	sc, ok := s.Script(script)
	if !ok {
		return Invocation{}, &Error{Skill: s.Name, Script: script, Category: ProcessError, Code: CodeNotFound,
			Msg: fmt.Sprintf("no script %q in %s/scripts", script, s.Dir)}
	}
	fail := func(err error) (Invocation, error) {
		return Invocation{}, &Error{Skill: s.Name, Script: script, Category: ProcessError, Code: CodeStartFailed, Msg: err.Error(), Err: err}
	}
	data := s.DataDir()
	if err := os.MkdirAll(data, 0o700); err != nil {
		return fail(fmt.Errorf("creating the data directory: %w", err))
	}
	cfg, err := s.LoadConfig(c.LookupEnv)
	if err != nil {
		return fail(err)
	}
	in := c.Input
	if in == nil {
		in = map[string]any{}
	}
	doc, err := json.Marshal(protocol.Input{RequestID: c.RequestID, Tool: script, Operation: c.Operation, Input: in, Config: cfg.Public()})
	if err != nil {
		return fail(fmt.Errorf("encoding the tool input: %w", err))
	}
	env := append(BaseEnv(),
		EnvSkillName+"="+s.Name,
		EnvSkillDir+"="+s.Dir,
		EnvSkillData+"="+data,
		EnvRequestID+"="+strings.ReplaceAll(c.RequestID, "\x00", ""),
	)
	roots := []string{data}
	if c.CampaignDir != "" {
		env = append(env, EnvCampaignDir+"="+c.CampaignDir)
		roots = append(roots, c.CampaignDir)
	}
	env = append(env, cfg.Env()...)
	env = append(env, c.Env...)
	timeout := c.Timeout
	if timeout <= 0 && s.Ext.TimeoutMs > 0 {
		timeout = time.Duration(s.Ext.TimeoutMs) * time.Millisecond
	}
	return Invocation{
		Skill:      s.Name,
		Script:     sc.Path,
		Input:      append(doc, '\n'),
		Env:        env,
		Dir:        s.Dir,
		Timeout:    timeout,
		AssetRoots: roots,
		OnEvent:    c.OnEvent,
		Limits:     c.Limits,
	}, nil
}
