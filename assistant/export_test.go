package assistant

import "github.com/hearth-rpg/hearth/llm"

// History is as.history.
func History(as *Assistant, msgs []llm.Message) []llm.Message { return as.history(msgs) }

// TestToolbox is toolbox: a player's document and a GM's, indexed.
var TestToolbox = toolbox
