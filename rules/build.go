package rules

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/world"
)

// The world-building intents of seed 003 and the bookkeeping ones: NPCs,
// locations, facts, consequences, quests, events, state, opinions, stats,
// clocks, threads, scenes, whispers and time.

func (x *resolver) createNPC(v CreateNPC) error {
	name := strings.TrimSpace(v.Name)
	if name == "" {
		return reject(v, "a new NPC needs a name")
	}
	for _, c := range x.w.Characters {
		if strings.EqualFold(c.Name, name) {
			return reject(v, "%s already exists (at %s); use update_npc or move_npc", c.Name, locationName(x.w, c.Location))
		}
	}
	loc := ""
	if v.Location != "" {
		l, err := findLocation(x.w, v, v.Location)
		if err != nil {
			return err
		}
		loc = l.ID
	} else if pc := x.w.PC(); pc != nil {
		loc = pc.Location
	}
	if v.Faction != "" && x.w.Factions[Slug(v.Faction)] == nil && x.w.Factions[v.Faction] == nil {
		return reject(v, "no faction %q; factions: %s", v.Faction, strings.Join(world.SortedKeys(x.w.Factions), ", "))
	}
	kind := world.NPC
	if v.Creature {
		kind = world.Creature
	}
	c := world.Character{
		ID:   uniqueID(Slug(name), func(id string) bool { return x.w.Characters[id] != nil }),
		Kind: kind, Name: name, Description: v.Description, Personality: v.Personality,
		Disposition: v.Disposition, Location: loc, Knowledge: v.Knowledge, Faction: v.Faction,
		Secret: v.Secret, Hostile: v.Hostile || strings.EqualFold(v.Disposition, "hostile"),
	}
	if v.HP > 0 {
		c.HP, c.MaxHP = v.HP, v.HP
	}
	c.AC = v.AC
	if v.Damage != "" {
		c.Attacks = []world.Attack{{Name: cmpOr(v.AttackName, "attack"), Bonus: v.AttackBonus, Damage: v.Damage}}
	}
	x.res.add(Outcome{Action: "npc_created", Target: c.ID,
		Text:    fmt.Sprintf("%s enters the world at %s.", c.Name, locationName(x.w, loc)),
		Effects: world.Effects{world.NPCCreated{NPC: c}}})
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (x *resolver) updateNPC(v UpdateNPC) error {
	c, err := anyCharacter(x.w, v, v.NPC)
	if err != nil {
		return err
	}
	changes := map[string]any{}
	if v.Description != "" {
		changes["description"] = v.Description
	}
	if v.Personality != "" {
		changes["personality"] = v.Personality
	}
	if v.Disposition != "" {
		changes["disposition"] = v.Disposition
	}
	if len(v.Knowledge) > 0 {
		k := append([]any{}, anySlice(c.Knowledge)...)
		changes["knowledge"] = append(k, anySlice(v.Knowledge)...)
	}
	if v.Hostile != nil {
		changes["hostile"] = *v.Hostile
	}
	if len(changes) == 0 {
		return reject(v, "update_npc changes nothing; set description, personality, disposition, add_known_information or hostile")
	}
	x.res.add(Outcome{Action: "npc_updated", Target: c.ID, Text: fmt.Sprintf("%s is updated.", c.Name),
		Effects: world.Effects{world.NPCUpdated{ID: c.ID, Changes: changes}}})
	return nil
}

func anySlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func (x *resolver) moveNPC(v MoveNPC) error {
	c, err := anyCharacter(x.w, v, v.NPC)
	if err != nil {
		return err
	}
	if c.ID == x.w.Player {
		return reject(v, "move_npc moves NPCs; the player moves with move")
	}
	l, err := findLocation(x.w, v, v.Location)
	if err != nil {
		return err
	}
	if c.Location == l.ID {
		return reject(v, "%s is already at %s", c.Name, l.Name)
	}
	x.res.add(Outcome{Action: "npc_moved", Target: c.ID, Text: fmt.Sprintf("%s goes to %s.", c.Name, l.Name),
		Effects: world.Effects{world.CharacterMoved{Character: c.ID, From: c.Location, To: l.ID}}})
	return nil
}

func (x *resolver) removeNPC(v RemoveNPC) error {
	c, err := anyCharacter(x.w, v, v.NPC)
	if err != nil {
		return err
	}
	if c.ID == x.w.Player {
		return reject(v, "the player's character cannot be removed")
	}
	x.res.add(Outcome{Action: "npc_removed", Target: c.ID, Text: fmt.Sprintf("%s leaves the story%s.", c.Name, forText(v.Reason)),
		Effects: world.Effects{world.NPCRemoved{ID: c.ID, Reason: v.Reason}}})
	return nil
}

func (x *resolver) createLocation(v CreateLocation) error {
	name := strings.TrimSpace(v.Name)
	if name == "" {
		return reject(v, "a new location needs a name")
	}
	for _, l := range x.w.Locations {
		if strings.EqualFold(l.Name, name) {
			return reject(v, "%s already exists; use update_location or connect_locations", l.Name)
		}
	}
	l := world.Location{ID: uniqueID(Slug(name), func(id string) bool { return x.w.Locations[id] != nil }),
		Name: name, Description: v.Description}
	if v.Parent != "" {
		p, err := findLocation(x.w, v, v.Parent)
		if err != nil {
			return err
		}
		l.Parent = p.ID
	}
	o := Outcome{Action: "location_created", Target: l.ID, Text: fmt.Sprintf("%s now exists.", l.Name),
		Effects: world.Effects{world.LocationCreated{Location: l}}}
	if v.ConnectTo != "" {
		from, err := findLocation(x.w, v, v.ConnectTo)
		if err != nil {
			return err
		}
		o.Effects = append(o.Effects, world.LocationsConnected{From: from.ID, To: l.ID, Direction: v.Direction, BackDirection: v.BackDirection})
		o.Text = fmt.Sprintf("%s now exists, reached from %s.", l.Name, from.Name)
	}
	x.res.add(o)
	return nil
}

func (x *resolver) connectLocations(v ConnectLocations) error {
	from, err := findLocation(x.w, v, v.From)
	if err != nil {
		return err
	}
	to, err := findLocation(x.w, v, v.To)
	if err != nil {
		return err
	}
	if from.ID == to.ID {
		return reject(v, "a location cannot lead to itself")
	}
	if _, ok := from.Exit(to.ID); ok {
		return reject(v, "%s already leads to %s", from.Name, to.Name)
	}
	x.res.add(Outcome{Action: "locations_connected", Target: to.ID, Text: fmt.Sprintf("%s now leads to %s.", from.Name, to.Name),
		Effects: world.Effects{world.LocationsConnected{From: from.ID, To: to.ID, Direction: v.Direction,
			BackDirection: v.BackDirection, Description: v.Description, OneWay: v.OneWay}}})
	return nil
}

func (x *resolver) updateLocation(v UpdateLocation) error {
	l, err := findLocation(x.w, v, v.Location)
	if err != nil {
		return err
	}
	changes := map[string]any{}
	if v.Description != "" {
		changes["description"] = v.Description
	}
	if v.Atmosphere != "" {
		changes["atmosphere"] = v.Atmosphere
	}
	if len(changes) == 0 {
		return reject(v, "update_location changes nothing; set description or atmosphere")
	}
	x.res.add(Outcome{Action: "location_updated", Target: l.ID, Text: fmt.Sprintf("%s changes.", l.Name),
		Effects: world.Effects{world.LocationUpdated{ID: l.ID, Changes: changes}}})
	return nil
}

func (x *resolver) rememberFact(v RememberFact) error {
	if strings.TrimSpace(v.Fact) == "" {
		return reject(v, "remember_fact needs the fact")
	}
	vis, err := access.Parse(v.Visibility)
	if err != nil {
		return reject(v, "%v", err)
	}
	imp := v.Importance
	if imp == 0 {
		imp = 0.5
	}
	if imp < 0 || imp > 1 {
		return reject(v, "importance %v: use a number from 0 to 1", v.Importance)
	}
	subject := ""
	if v.Subject != "" {
		subject = x.entityID(v.Subject)
	}
	f := world.Fact{ID: x.newID("fact"), Subject: subject, Text: v.Fact, Category: v.Category,
		Visibility: vis, Importance: imp, Turn: x.w.Turn, Source: "play"}
	x.res.add(Outcome{Action: "fact_recorded", Target: subject, Text: "Noted: " + v.Fact,
		Effects: world.Effects{world.FactRecorded{Fact: f}}})
	return nil
}

// entityID resolves a reference to any entity, falling back to the text
// itself (facts may be about things the world does not model).
func (x *resolver) entityID(ref string) string {
	if c, err := anyCharacter(x.w, Look{}, ref); err == nil {
		return c.ID
	}
	if l, err := findLocation(x.w, Look{}, ref); err == nil {
		return l.ID
	}
	var cands []named
	for _, id := range world.SortedKeys(x.w.Items) {
		cands = append(cands, named{id, x.w.Items[id].Name, x.w.Items[id].Aliases})
	}
	for _, id := range world.SortedKeys(x.w.Factions) {
		cands = append(cands, named{id, x.w.Factions[id].Name, nil})
	}
	for _, id := range world.SortedKeys(x.w.Quests) {
		cands = append(cands, named{id, x.w.Quests[id].Name, nil})
	}
	if hits := match(ref, cands); len(hits) == 1 {
		return hits[0].id
	}
	return ref
}

func (x *resolver) registerConsequence(v RegisterConsequence) error {
	if strings.TrimSpace(v.Trigger) == "" || strings.TrimSpace(v.Description) == "" {
		return reject(v, "a consequence needs a trigger and a description")
	}
	switch v.On {
	case "", world.OnEnter, world.OnTake, world.OnDefeat, world.OnQuestComplete, world.OnTalk, world.OnUse:
	default:
		return reject(v, "on %q: use enter_location, take_item, defeat, quest_completed, talk or use_item", v.On)
	}
	if v.On != "" && v.Target == "" {
		return reject(v, "on %s needs a target", v.On)
	}
	for i, raw := range v.Then {
		if _, err := DecodeIntent(raw); err != nil {
			return reject(v, "then[%d]: %v", i, err)
		}
	}
	imp := v.Importance
	if imp == 0 {
		imp = 0.7
	}
	var related []string
	for _, r := range v.Related {
		related = append(related, x.entityID(r))
	}
	id := uniqueID("consequence_"+Slug(v.Trigger), func(id string) bool { return x.w.Consequences[id] != nil })
	target := v.Target
	if target != "" {
		target = x.entityID(target)
	}
	at := ""
	if v.At != "" {
		l, err := findLocation(x.w, v, v.At)
		if err != nil {
			return err
		}
		at = l.ID
	}
	then := make([]world.RawIntent, len(v.Then))
	for i, r := range v.Then {
		then[i] = world.RawIntent(r)
	}
	c := world.Consequence{ID: id, Trigger: v.Trigger, On: v.On, Target: target, At: at, Description: v.Description,
		Severity: v.Severity, Related: related, Then: then, Importance: imp, Turn: x.w.Turn}
	x.res.add(Outcome{Action: "consequence_registered", Target: id, Text: "Consequence registered: when " + v.Trigger + ", " + v.Description,
		Effects: world.Effects{world.ConsequenceRegistered{Consequence: c}}})
	return nil
}

func (x *resolver) findQuest(in Intent, ref string) (*world.Quest, error) {
	var cands []named
	for _, id := range world.SortedKeys(x.w.Quests) {
		cands = append(cands, named{id, x.w.Quests[id].Name, nil})
	}
	hits := match(ref, cands)
	switch len(hits) {
	case 1:
		return x.w.Quests[hits[0].id], nil
	case 0:
		if len(cands) == 0 {
			return nil, reject(in, "no quest %q; there are no quests yet", ref)
		}
		return nil, reject(in, "no quest %q; quests: %s", ref, names(cands))
	}
	return nil, reject(in, "%q could mean %s; say which", ref, names(hits))
}

func (x *resolver) createQuest(v CreateQuest) error {
	name := strings.TrimSpace(v.Name)
	if name == "" {
		return reject(v, "a quest needs a name")
	}
	q := world.Quest{ID: uniqueID(Slug(name), func(id string) bool { return x.w.Quests[id] != nil }),
		Name: name, Description: v.Description, Status: world.QuestActive, RewardGold: v.RewardGold}
	if v.Available {
		q.Status = world.QuestAvailable
	}
	if v.Giver != "" {
		g, err := anyCharacter(x.w, v, v.Giver)
		if err != nil {
			return err
		}
		q.Giver = g.ID
	}
	for i, o := range v.Objectives {
		q.Objectives = append(q.Objectives, world.Objective{ID: fmt.Sprintf("o%d", i+1), Text: o})
	}
	x.res.add(Outcome{Action: "quest_created", Target: q.ID, Text: "New quest: " + q.Name + ".",
		Effects: world.Effects{world.QuestCreated{Quest: q}}})
	return nil
}

func (x *resolver) startQuest(v StartQuest) error {
	q, err := x.findQuest(v, v.Quest)
	if err != nil {
		return err
	}
	if q.Status != world.QuestAvailable {
		return reject(v, "%s is %s, not waiting to be taken", q.Name, q.Status)
	}
	x.res.add(Outcome{Action: "quest_started", Target: q.ID, Text: "New quest: " + q.Name + ".",
		Effects: world.Effects{world.QuestStatusChanged{Quest: q.ID, From: q.Status, To: world.QuestActive}}})
	return nil
}

func (x *resolver) addObjective(v AddObjective) error {
	q, err := x.findQuest(v, v.Quest)
	if err != nil {
		return err
	}
	if strings.TrimSpace(v.Objective) == "" {
		return reject(v, "the objective needs a text")
	}
	o := world.Objective{ID: uniqueID(fmt.Sprintf("o%d", len(q.Objectives)+1), func(id string) bool { return q.Objective(id) != nil }),
		Text: v.Objective, Optional: v.Optional}
	x.res.add(Outcome{Action: "objective_added", Target: q.ID, Text: fmt.Sprintf("%s: new objective: %s.", q.Name, o.Text),
		Effects: world.Effects{world.ObjectiveAdded{Quest: q.ID, Objective: o}}})
	return nil
}

func (x *resolver) completeObjective(v CompleteObjective) error {
	q, err := x.findQuest(v, v.Quest)
	if err != nil {
		return err
	}
	var cands []named
	for _, o := range q.Objectives {
		cands = append(cands, named{o.ID, o.Text, nil})
	}
	hits := match(v.Objective, cands)
	if len(hits) != 1 {
		return reject(v, "%s has no single objective %q; objectives: %s", q.Name, v.Objective, objectiveList(q))
	}
	obj := q.Objective(hits[0].id)
	if obj.Done {
		return reject(v, "objective %q of %s is already done", obj.Text, q.Name)
	}
	if q.Status == world.QuestCompleted || q.Status == world.QuestFailed {
		return reject(v, "%s is already %s", q.Name, q.Status)
	}
	out := Outcome{Action: "objective_completed", Target: q.ID, Text: fmt.Sprintf("Objective complete: %s.", obj.Text),
		Details: map[string]any{"objective": obj.ID}}
	if q.Status == world.QuestAvailable {
		out.Effects = append(out.Effects, world.QuestStatusChanged{Quest: q.ID, From: q.Status, To: world.QuestActive})
	}
	out.Effects = append(out.Effects, world.ObjectiveCompleted{Quest: q.ID, Objective: obj.ID})
	x.res.add(out)
	remaining := 0
	for _, o := range q.Objectives {
		if !o.Done && !o.Optional && o.ID != obj.ID {
			remaining++
		}
	}
	if remaining == 0 {
		return x.finishQuest(q)
	}
	return nil
}

func objectiveList(q *world.Quest) string {
	var parts []string
	for _, o := range q.Objectives {
		mark := " "
		if o.Done {
			mark = "x"
		}
		parts = append(parts, fmt.Sprintf("[%s] %s (%s)", mark, o.Text, o.ID))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// finishQuest completes a quest and hands out its rewards.
func (x *resolver) finishQuest(q *world.Quest) error {
	pc := x.w.PC()
	o := Outcome{Action: "quest_completed", Target: q.ID, Text: fmt.Sprintf("Quest complete: %s!", q.Name),
		Effects: world.Effects{world.QuestStatusChanged{Quest: q.ID, From: q.Status, To: world.QuestCompleted}}}
	if pc != nil {
		var rewards []string
		if q.RewardGold > 0 {
			o.Effects = append(o.Effects, world.GoldChanged{Character: pc.ID, From: pc.Gold, To: pc.Gold + q.RewardGold, Reason: q.Name})
			rewards = append(rewards, fmt.Sprintf("%d gold", q.RewardGold))
		}
		for _, id := range q.RewardItems {
			if it := x.w.Items[id]; it != nil {
				o.Effects = append(o.Effects, world.ItemTransferred{Item: id, Qty: 1, To: pc.ID})
				rewards = append(rewards, it.Name)
			}
		}
		if q.RewardXP > 0 {
			o.Effects = append(o.Effects, world.XPGained{Character: pc.ID, Amount: q.RewardXP, Reason: q.Name})
			rewards = append(rewards, fmt.Sprintf("%d XP", q.RewardXP))
		}
		if len(rewards) > 0 {
			o.Text += " Reward: " + List(rewards, "and") + "."
		}
	}
	x.res.add(o)
	return nil
}

func (x *resolver) completeQuest(v CompleteQuest) error {
	q, err := x.findQuest(v, v.Quest)
	if err != nil {
		return err
	}
	if q.Status == world.QuestCompleted || q.Status == world.QuestFailed {
		return reject(v, "%s is already %s", q.Name, q.Status)
	}
	return x.finishQuest(q)
}

func (x *resolver) failQuest(v FailQuest) error {
	q, err := x.findQuest(v, v.Quest)
	if err != nil {
		return err
	}
	if q.Status == world.QuestCompleted || q.Status == world.QuestFailed {
		return reject(v, "%s is already %s", q.Name, q.Status)
	}
	x.res.add(Outcome{Action: "quest_failed", Target: q.ID, Text: fmt.Sprintf("Quest failed: %s%s.", q.Name, forText(v.Reason)),
		Effects: world.Effects{world.QuestStatusChanged{Quest: q.ID, From: q.Status, To: world.QuestFailed}}})
	return nil
}

func (x *resolver) scheduleEvent(v ScheduleEvent) error {
	if strings.TrimSpace(v.Description) == "" {
		return reject(v, "a scheduled event needs a description")
	}
	d, err := world.ParseDuration(v.In)
	if err != nil {
		return reject(v, "%v", err)
	}
	for i, raw := range v.Then {
		if _, err := DecodeIntent(raw); err != nil {
			return reject(v, "then[%d]: %v", i, err)
		}
	}
	loc := ""
	if v.Location != "" {
		l, err := findLocation(x.w, v, v.Location)
		if err != nil {
			return err
		}
		loc = l.ID
	}
	then := make([]world.RawIntent, len(v.Then))
	for i, r := range v.Then {
		then[i] = world.RawIntent(r)
	}
	ev := world.ScheduledEvent{ID: uniqueID("event_"+Slug(v.Description), func(id string) bool { return x.w.Scheduled[id] != nil }),
		At: x.w.Time + d, Description: v.Description, Location: loc, Then: then}
	x.res.add(Outcome{Action: "event_scheduled", Target: ev.ID, Text: fmt.Sprintf("Scheduled for %s: %s.", ev.At, v.Description),
		Effects: world.Effects{world.EventScheduled{Event: ev}}})
	return nil
}

func (x *resolver) assertState(v AssertState) error {
	if len(v.Patch) == 0 {
		return reject(v, "assert_state needs a patch object, e.g. {\"flags\": {\"met_mira\": true}}")
	}
	// Check it applies cleanly on a copy, so a bad patch is refused here
	// rather than failing at commit.
	probe, err := x.w.Clone()
	if err != nil {
		return err
	}
	if err := probe.Apply(world.StatePatched{Patch: v.Patch}); err != nil {
		return reject(v, "%v", err)
	}
	b, _ := json.Marshal(v.Patch)
	x.res.add(Outcome{Action: "state_patched", Text: "State updated: " + string(b),
		Effects: world.Effects{world.StatePatched{Patch: v.Patch}}})
	return nil
}

func (x *resolver) findFaction(in Intent, ref string) (*world.Faction, error) {
	var cands []named
	for _, id := range world.SortedKeys(x.w.Factions) {
		cands = append(cands, named{id, x.w.Factions[id].Name, nil})
	}
	hits := match(ref, cands)
	switch len(hits) {
	case 1:
		return x.w.Factions[hits[0].id], nil
	case 0:
		return nil, reject(in, "no faction %q; factions: %s", ref, names(cands))
	}
	return nil, reject(in, "%q could mean %s; say which", ref, names(hits))
}

// checkOpinionDelta refuses a change that cannot be meant: zero, or more
// than the whole -100..100 range.
func checkOpinionDelta(in Intent, delta int) error {
	if delta == 0 || delta < -200 || delta > 200 {
		return reject(in, "delta %d: use a non-zero change between -200 and 200 (opinions run from -100 to 100)", delta)
	}
	return nil
}

func (x *resolver) changeReputation(v ChangeReputation) error {
	f, err := x.findFaction(v, v.Faction)
	if err != nil {
		return err
	}
	if err := checkOpinionDelta(v, v.Delta); err != nil {
		return err
	}
	from := x.w.Reputation(f.ID)
	to := world.ClampOpinion(from + v.Delta)
	x.res.add(Outcome{Action: "reputation", Target: f.ID, Amount: to - from,
		Text:    fmt.Sprintf("Standing with %s: %d → %d%s.", f.Name, from, to, parenthesis(v.Reason)),
		Effects: world.Effects{world.ReputationChanged{Faction: f.ID, From: from, To: to, Reason: v.Reason}}})
	return nil
}

func (x *resolver) changePerception(v ChangePerception) error {
	c, err := anyCharacter(x.w, v, v.NPC)
	if err != nil {
		return err
	}
	if c.ID == x.w.Player {
		return reject(v, "perception is an NPC's opinion of the player; name an NPC")
	}
	if err := checkOpinionDelta(v, v.Delta); err != nil {
		return err
	}
	from := x.w.Perception(c.ID)
	to := world.ClampOpinion(from + v.Delta)
	x.res.add(Outcome{Action: "perception", Target: c.ID, Amount: to - from,
		Text:    fmt.Sprintf("%s's opinion of you: %d → %d%s.", c.Name, from, to, parenthesis(v.Reason)),
		Effects: world.Effects{world.PerceptionChanged{NPC: c.ID, From: from, To: to, Reason: v.Reason}}})
	return nil
}

func (x *resolver) changeStat(v ChangeStat) error {
	c, err := anyCharacter(x.w, v, v.Character)
	if err != nil {
		return err
	}
	stat := strings.ToLower(strings.TrimSpace(v.Stat))
	def := x.w.StatDef(c.ID, stat)
	if _, has := c.Stats[stat]; def == nil && !has {
		known := world.SortedKeys(c.Stats)
		return reject(v, "%s has no stat %q; stats: %s", c.Name, v.Stat, strings.Join(known, ", "))
	}
	from := c.Stats[stat]
	to := def.Clamp(from + v.Delta)
	x.res.add(Outcome{Action: "stat", Target: c.ID, Amount: to - from,
		Text:    fmt.Sprintf("%s's %s: %d → %d%s.", c.Name, stat, from, to, parenthesis(v.Reason)),
		Effects: world.Effects{world.StatChanged{Character: c.ID, Stat: stat, From: from, To: to, Reason: v.Reason}},
		Details: map[string]any{"stat": stat}})
	return nil
}

func (x *resolver) createClock(v CreateClock) error {
	if strings.TrimSpace(v.Name) == "" || v.Max <= 0 || v.Max > 100 {
		return reject(v, "a clock needs a name and a max between 1 and 100 (4, 6 or 8 are usual)")
	}
	c := world.Clock{ID: uniqueID(Slug(v.Name), func(id string) bool { return x.w.Clocks[id] != nil }),
		Name: v.Name, Max: v.Max, OnFull: v.OnFull}
	x.res.add(Outcome{Action: "clock_created", Target: c.ID, Text: fmt.Sprintf("Clock %q: 0/%d.", c.Name, c.Max),
		Effects: world.Effects{world.ClockCreated{Clock: c}}})
	return nil
}

func (x *resolver) advanceClock(v AdvanceClock) error {
	var cands []named
	for _, id := range world.SortedKeys(x.w.Clocks) {
		cands = append(cands, named{id, x.w.Clocks[id].Name, nil})
	}
	hits := match(v.Clock, cands)
	if len(hits) != 1 {
		return reject(v, "no single clock %q; clocks: %s", v.Clock, names(cands))
	}
	c := x.w.Clocks[hits[0].id]
	amount := v.Amount
	if amount == 0 {
		amount = 1
	}
	to := max(0, min(c.Max, c.Value+amount))
	if to == c.Value {
		return reject(v, "clock %q is already at %d/%d", c.Name, c.Value, c.Max)
	}
	o := Outcome{Action: "clock", Target: c.ID, Amount: to - c.Value,
		Text:    fmt.Sprintf("Clock %q: %d/%d.", c.Name, to, c.Max),
		Effects: world.Effects{world.ClockTicked{Clock: c.ID, From: c.Value, To: to}}}
	if to == c.Max {
		o.Details = map[string]any{"full": true}
		if c.OnFull != "" {
			o.Text += " It is full: " + c.OnFull
		}
	}
	x.res.add(o)
	return nil
}

func (x *resolver) updateThread(v UpdateThread) error {
	title := strings.TrimSpace(v.Thread)
	if title == "" {
		return reject(v, "name the thread")
	}
	status := v.Status
	switch status {
	case "", "open", "resolved", "abandoned":
	default:
		return reject(v, "status %q: use open, resolved or abandoned", v.Status)
	}
	var t world.Thread
	var cands []named
	for _, id := range world.SortedKeys(x.w.Threads) {
		cands = append(cands, named{id, x.w.Threads[id].Title, nil})
	}
	if hits := match(title, cands); len(hits) == 1 {
		t = *x.w.Threads[hits[0].id]
	} else {
		t = world.Thread{ID: uniqueID(Slug(title), func(id string) bool { return x.w.Threads[id] != nil }), Title: title, Status: "open"}
	}
	if status != "" {
		t.Status = status
	}
	if v.Stakes != "" {
		t.Stakes = v.Stakes
	}
	x.res.add(Outcome{Action: "thread", Target: t.ID, Text: fmt.Sprintf("Thread %q is %s.", t.Title, t.Status),
		Effects: world.Effects{world.ThreadUpdated{Thread: t}}})
	return nil
}

func (x *resolver) changeScene(v ChangeScene) error {
	loc := x.w.Scene.Location
	if pc := x.w.PC(); pc != nil {
		loc = pc.Location
	}
	if v.Location != "" {
		l, err := findLocation(x.w, v, v.Location)
		if err != nil {
			return err
		}
		loc = l.ID
	}
	s := world.Scene{Number: x.w.Scene.Number + 1, Title: v.Title, Location: loc, Mood: v.Mood, Started: x.w.Turn, StartAt: x.w.Time}
	x.res.add(Outcome{Action: "scene_changed", Target: loc, Text: "Scene: " + cmpOr(v.Title, locationName(x.w, loc)) + ".",
		Effects: world.Effects{world.SceneChanged{Scene: s}}})
	return nil
}

func (x *resolver) whisper(v Whisper) error {
	to, err := anyCharacter(x.w, v, v.To)
	if err != nil {
		return err
	}
	if strings.TrimSpace(v.Text) == "" {
		return reject(v, "whisper what?")
	}
	w := world.Whisper{ID: x.newID("whisper"), From: "gm", To: to.ID, Text: v.Text, Turn: x.w.Turn}
	x.res.add(Outcome{Action: "whisper", Target: to.ID, Text: fmt.Sprintf("(whispered to %s)", to.Name),
		Effects: world.Effects{world.WhisperSent{Whisper: w}}, Details: map[string]any{"whisper": w.ID}})
	return nil
}

func (x *resolver) revealSecret(v RevealSecret) error {
	var text, subject string
	e := world.SecretRevealed{How: v.How}
	switch {
	case v.Whisper != "":
		w := x.w.Whispers[v.Whisper]
		if w == nil {
			return reject(v, "no whisper %q; whispers: %s", v.Whisper, strings.Join(world.SortedKeys(x.w.Whispers), ", "))
		}
		if w.Revealed {
			return reject(v, "whisper %s is already revealed", w.ID)
		}
		e.Whisper, text, subject = w.ID, w.Text, w.To
	case v.Character != "":
		c, err := anyCharacter(x.w, v, v.Character)
		if err != nil {
			return err
		}
		if c.Secret == "" {
			return reject(v, "%s has no secret", c.Name)
		}
		if c.SecretRevealed {
			return reject(v, "%s's secret is already out", c.Name)
		}
		e.Character, text, subject = c.ID, c.Secret, c.ID
	default:
		return reject(v, "reveal which secret? give a whisper id or a character")
	}
	e.Text = text
	x.res.add(Outcome{Action: "secret_revealed", Target: subject, Text: "Revealed: " + text,
		Effects: world.Effects{e, world.FactRecorded{Fact: world.Fact{ID: x.newID("fact"), Subject: subject, Text: text,
			Category: world.CategorySecret, Visibility: access.Player, Importance: 0.9, Turn: x.w.Turn, Source: "play"}}}})
	return nil
}

func (x *resolver) advanceTime(v AdvanceTime) error {
	d, err := world.ParseDuration(v.Duration)
	if err != nil {
		return reject(v, "%v", err)
	}
	if d <= 0 || d > 52*world.Week {
		return reject(v, "advance time by between a minute and a year")
	}
	x.res.add(Outcome{Action: "time", Amount: int(d), Text: fmt.Sprintf("Time passes: it is now %s.", x.w.Time+d),
		Effects: world.Effects{world.TimeAdvanced{From: x.w.Time, To: x.w.Time + d}}})
	return nil
}

func parenthesis(reason string) string {
	if reason == "" {
		return ""
	}
	return " (" + reason + ")"
}
