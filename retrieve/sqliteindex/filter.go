package sqliteindex

import (
	"strings"

	"github.com/hearth-rpg/hearth/access"
	"github.com/hearth-rpg/hearth/retrieve"
)

// where builds the SQL condition on lore_chunks (aliased c) for a
// filter: one " AND …" clause per set field, to follow a role check.
// Lists travel as one JSON array parameter each, so the SQL text depends
// only on which fields are set and its prepared statement can be reused.
func where(f retrieve.Filter) (string, []any) {
	f = f.Normalized()
	var b strings.Builder
	var args []any
	in := func(col string, vals []string) {
		if len(vals) > 0 {
			b.WriteString(" AND " + col + " IN (SELECT value FROM json_each(?))")
			args = append(args, jsonList(vals))
		}
	}
	key := func(kind string, vals []string) {
		if len(vals) > 0 {
			b.WriteString(" AND c.n IN (SELECT chunk FROM lore_keys WHERE kind = '" + kind + "' AND value IN (SELECT value FROM json_each(?)))")
			args = append(args, jsonList(vals))
		}
	}
	in("c.pack", f.Packs)
	if len(f.ExcludePacks) > 0 {
		b.WriteString(" AND c.pack NOT IN (SELECT value FROM json_each(?))")
		args = append(args, jsonList(f.ExcludePacks))
	}
	in("c.content_type", f.ContentTypes)
	if len(f.Corpora) > 0 {
		cs := make([]string, len(f.Corpora))
		for i, c := range f.Corpora {
			cs[i] = string(c)
		}
		in("c.corpus", cs)
	}
	if f.Location != "" {
		b.WriteString(" AND c.location = ?")
		args = append(args, f.Location)
	}
	if f.Faction != "" {
		b.WriteString(" AND c.faction = ?")
		args = append(args, f.Faction)
	}
	key("entity", f.EntityIDs)
	key("thread", f.Threads)
	if len(f.Tags) > 0 && f.TagMatch == retrieve.All {
		// Normalized removed duplicates, so a chunk with every tag has
		// exactly len(Tags) matching key rows.
		b.WriteString(" AND c.n IN (SELECT chunk FROM lore_keys WHERE kind = 'tag' AND value IN (SELECT value FROM json_each(?)) GROUP BY chunk HAVING COUNT(*) = ?)")
		args = append(args, jsonList(f.Tags), len(f.Tags))
	} else {
		key("tag", f.Tags)
	}
	return b.String(), args
}

// roleLevel is the highest access level a role reads, as
// access.Level.CanSee has it: the zero role is a player.
func roleLevel(role access.Level) int {
	if role == 0 {
		return int(access.Player)
	}
	return int(role)
}
