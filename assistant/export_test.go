package assistant

import "github.com/hearth-rpg/hearth/llm"

// History is what as.history keeps of msgs within the default budget.
func History(as *Assistant, msgs []llm.Message) []llm.Message {
	_, kept := as.history(msgs, as.o.HistoryBudget)
	return kept
}

// TestToolbox is toolbox: a player's document and a GM's, indexed.
var TestToolbox = toolbox
