package rules

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/world"
)

func (x *resolver) talk(v Talk) error {
	pc, err := x.actor(v, v.Character)
	if err != nil {
		return err
	}
	if strings.TrimSpace(v.NPC) == "" {
		here := x.w.CharactersAt(pc.Location)
		if len(here) == 0 {
			return reject(v, "there is no one here to talk to")
		}
		return reject(v, "talk to whom? present: %s", List(nameList(here), "and"))
	}
	npc, err := present(x.w, v, v.NPC)
	if err != nil {
		return err
	}
	if npc.ID == pc.ID {
		return reject(v, "talking to yourself helps little; talk to someone present")
	}
	if npc.HasCondition("dead") {
		return reject(v, "%s is dead and says nothing more", npc.Name)
	}
	if !npc.Alive() || npc.HasCondition("unconscious") {
		return reject(v, "%s is unconscious", npc.Name)
	}
	o := Outcome{Actor: pc.ID, Action: "talk", Target: npc.ID,
		Effects: world.Effects{world.EntitiesMentioned{IDs: []string{npc.ID}}}}
	topic := strings.TrimSpace(v.Topic)
	key, quote := topicLine(x.w, npc, topic)
	switch {
	case quote != "":
		o.Quote = quote
		o.Text = fmt.Sprintf("%s says: %q", npc.Name, quote)
		o.Details = map[string]any{"topic": key}
	case topic == "":
		// A greeting that offers work is stale once the quest is taken.
		o.Quote = cmp.Or(questGreeting(x.w, npc), npc.Greeting)
		if o.Quote == "" {
			o.Text = fmt.Sprintf("%s regards you and waits.", npc.Name)
		} else {
			o.Text = fmt.Sprintf("%s says: %q", npc.Name, o.Quote)
		}
	default:
		o.Text = fmt.Sprintf("%s has nothing to say about %s.", npc.Name, topic)
		o.Details = map[string]any{"unknown_topic": topic}
	}
	if len(npc.Topics) > 0 {
		if o.Details == nil {
			o.Details = map[string]any{}
		}
		o.Details["topics"] = world.SortedKeys(npc.Topics)
	}
	if quote != "" && !x.knows(quote) {
		o.Effects = append(o.Effects, world.FactRecorded{Fact: world.Fact{
			ID: x.newID("fact"), Subject: npc.ID, Text: fmt.Sprintf("%s said: %s", npc.Name, quote),
			Category: world.CategoryEvent, Visibility: access.Player, Importance: 0.5, Turn: x.w.Turn, Source: "play"}})
	}
	x.res.add(o)
	// Talking with a quest giver takes the quest up.
	for _, id := range world.SortedKeys(x.w.Quests) {
		q := x.w.Quests[id]
		if q.Giver == npc.ID && q.Status == world.QuestAvailable {
			x.res.add(Outcome{Actor: pc.ID, Action: "quest_started", Target: q.ID,
				Text:    fmt.Sprintf("New quest: %s.", q.Name),
				Effects: world.Effects{world.QuestStatusChanged{Quest: q.ID, From: q.Status, To: world.QuestActive}}})
		}
	}
	return nil
}

// questGreeting is what a quest giver says once the player has taken
// their quest: asking after it, or thanks when it is done.
func questGreeting(w *world.State, npc *world.Character) string {
	for _, id := range world.SortedKeys(w.Quests) {
		q := w.Quests[id]
		if q.Giver != npc.ID {
			continue
		}
		switch q.Status {
		case world.QuestActive:
			return fmt.Sprintf("Back again. Any luck with %s?", strings.ToLower(q.Name))
		case world.QuestCompleted:
			return "You did right by us. Sit, the next one's on the house."
		}
	}
	return ""
}

// workWords are how a player asks a quest giver for their quest.
var workWords = []string{"work", "job", "jobs", "quest", "task", "errand", "reward", "pay", "offer"}

// knows reports whether a fact with this text (said by anyone) exists.
func (x *resolver) knows(quote string) bool {
	for _, f := range x.w.Facts {
		if strings.HasSuffix(f.Text, quote) {
			return true
		}
	}
	return false
}

// topicLine finds what npc says about topic: a topic key matching the words,
// or a key naming an entity the topic refers to.
func topicLine(w *world.State, npc *world.Character, topic string) (key, line string) {
	if topic == "" || len(npc.Topics) == 0 {
		return "", ""
	}
	var cands []named
	for _, k := range world.SortedKeys(npc.Topics) {
		cands = append(cands, named{k, strings.ReplaceAll(k, "_", " "), nil})
	}
	if hits := match(topic, cands); len(hits) > 0 {
		return hits[0].id, npc.Topics[hits[0].id]
	}
	// "ask Maren about work": the quest she gives, by its topic or its text.
	for _, word := range strings.Fields(Normalise(topic)) {
		if !slices.Contains(workWords, word) {
			continue
		}
		for _, id := range world.SortedKeys(w.Quests) {
			q := w.Quests[id]
			if q.Giver != npc.ID {
				continue
			}
			for _, k := range world.SortedKeys(npc.Topics) {
				if strings.Contains(q.ID, k) || strings.Contains(Normalise(q.Name), k) {
					return k, npc.Topics[k]
				}
			}
			if q.Description != "" {
				return q.ID, q.Description
			}
		}
	}
	// "ask Mira about the keeper" where the key is the keeper's ID.
	t := Normalise(topic)
	for _, id := range world.SortedKeys(w.Characters) {
		c := w.Characters[id]
		if _, ok := npc.Topics[id]; ok && (wordMatch(t, Normalise(c.Name)) || anyWordMatch(t, c.Aliases)) {
			return id, npc.Topics[id]
		}
	}
	for _, id := range world.SortedKeys(w.Items) {
		it := w.Items[id]
		if _, ok := npc.Topics[id]; ok && (wordMatch(t, Normalise(it.Name)) || anyWordMatch(t, it.Aliases)) {
			return id, npc.Topics[id]
		}
	}
	for _, id := range world.SortedKeys(w.Locations) {
		l := w.Locations[id]
		if _, ok := npc.Topics[id]; ok && (wordMatch(t, Normalise(l.Name)) || anyWordMatch(t, l.Aliases)) {
			return id, npc.Topics[id]
		}
	}
	// Any topic key that is one of the words.
	for _, k := range world.SortedKeys(npc.Topics) {
		for _, word := range strings.Fields(t) {
			if len(word) > 3 && strings.Contains(k, word) {
				return k, npc.Topics[k]
			}
		}
	}
	return "", ""
}
