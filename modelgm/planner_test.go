package modelgm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/llm/cassette"
	"github.com/hearth-rpg/hearth/modelgm"
	"github.com/hearth-rpg/hearth/skill/replan"
)

const cyclic = `{"requestId":"p1","tools":[
 {"toolId":"a","toolPath":"skills/dice-roller/scripts/roll","input":{"notation":"1d20"},"dependencies":["b"],"required":true,"async":false},
 {"toolId":"b","toolPath":"skills/dice-roller/scripts/roll","input":{"notation":"1d6"},"dependencies":["a"],"required":true,"async":false}],
 "parallel":false,"disabledSkills":[],"metadata":{"generationAttempt":1,"parentPlanId":""}}`

const good = "```json\n" + `{"requestId":"p2","narrative":"You roll for it.","tools":[
 {"toolId":"a","toolPath":"skills/dice-roller/scripts/roll","input":{"notation":"1d20"},"dependencies":[],"required":true,"async":false}],
 "parallel":false,"disabledSkills":[],"metadata":{"generationAttempt":1,"parentPlanId":""}}` + "\n```"

func TestModelPlannerRepairsAPlanWithACycle(t *testing.T) {
	model := cassette.Script(cassette.Text(cyclic), cassette.Text(good))
	p := &modelgm.ModelPlanner{Role: modelgm.Role{Provider: model, Model: "scripted"}}
	pl, err := p.Plan(context.Background(), replan.Request{Input: "I climb the cliff", Attempt: 2, ParentPlanID: "p0"})
	if err != nil {
		t.Fatal(err)
	}
	if pl.RequestID != "p2" || len(pl.Tools) != 1 || pl.Metadata.GenerationAttempt != 2 || pl.Metadata.ParentPlanID != "p0" {
		t.Errorf("plan: %+v", pl)
	}
	reqs := model.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-1].Content, "circular dependency: a → b → a") {
		t.Errorf("the repair request does not carry the cycle: %q", reqs[len(reqs)-1].Messages[len(reqs[len(reqs)-1].Messages)-1].Content)
	}
}

func TestModelPlannerRefusesDisabledSkills(t *testing.T) {
	model := cassette.Script(cassette.Text(good), cassette.Text(good))
	p := &modelgm.ModelPlanner{Role: modelgm.Role{Provider: model, Model: "scripted"}}
	if _, err := p.Plan(context.Background(), replan.Request{Input: "roll", Attempt: 1, DisabledSkills: []string{"dice-roller"}}); err == nil ||
		!strings.Contains(err.Error(), "disabled") {
		t.Errorf("a plan using a disabled skill: %v", err)
	}
}
