package plan

import (
	"context"
	"time"

	"github.com/hearth-rpg/hearth/skill"
)

// SkillRunner runs tools as the scripts of discovered skills: the toolPath
// must name a script of a skill in Skills, so a plan can never run any
// other program.
type SkillRunner struct {
	Skills *skill.Set
	// Live, when set, is used instead of Skills: each call resolves its
	// script in the skills as they are on disk now (hot reload).
	Live        *skill.Live
	CampaignDir string // where assets may be written besides a skill's data directory
	// Timeout is the per-attempt timeout when neither the plan's tool nor
	// the skill's manifest gives one; 0 means skill.DefaultTimeout.
	Timeout   time.Duration
	LookupEnv func(string) (string, bool) // for ${VAR} in configuration; nil: os.LookupEnv
	Limits    skill.Limits
}

// Run resolves the tool's script, prepares it and runs it.
func (r *SkillRunner) Run(ctx context.Context, c Call) (skill.Result, error) {
	set := r.Skills
	if r.Live != nil {
		set = r.Live.Current()
	}
	sk, sc, err := set.Resolve(c.Tool.ToolPath)
	if err != nil {
		return skill.Result{ExitCode: -1}, err
	}
	timeout := c.Timeout
	if timeout <= 0 && sk.Ext.TimeoutMs <= 0 {
		timeout = r.Timeout
	}
	inv, err := sk.Prepare(sc.Name, skill.Call{
		RequestID:   c.PlanID + "/" + c.Tool.ToolID,
		Input:       c.Tool.Input,
		CampaignDir: r.CampaignDir,
		Timeout:     timeout,
		LookupEnv:   r.LookupEnv,
		OnEvent:     c.OnEvent,
		Limits:      r.Limits,
		Env:         skill.EnvFrom(ctx),
	})
	if err != nil {
		return skill.Result{ExitCode: -1}, err
	}
	return skill.Run(ctx, inv)
}
