// Package prompt is the registry of prompt templates. Prompts are files
// named NAME@VERSION.tmpl (narrator@1.tmpl), embedded in the binary; a
// campaign pins the versions it was written against, an experiment can
// override any prompt from a directory, and every turn records the exact
// versions it used, so a replay can tell prompt changes from model
// changes. Templates use text/template; a {player_stats} placeholder is read
// as {{.PlayerStats}}. A template may open with a
// {{/* … */}} comment saying what its version changed (Template.Notes,
// shown by replays); "Status: candidate" in it keeps a new version out of
// the defaults until a campaign or the configuration pins it.
package prompt
