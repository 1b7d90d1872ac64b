// Package prompt is the registry of prompt templates. Prompts are files
// named NAME@VERSION.tmpl (narrator@1.tmpl), embedded in the binary; a
// campaign pins the versions it was written against, an experiment can
// override any prompt from a directory, and every turn records the exact
// versions it used, so a replay can tell prompt changes from model
// changes. Templates use text/template; the seed's {player_stats} is read
// as {{.PlayerStats}}.
package prompt
