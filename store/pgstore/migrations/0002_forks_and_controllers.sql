-- Forks carry a description and a canonical mark (at most one per
-- session, kept by UpdateBranch in one transaction).
ALTER TABLE branches ADD COLUMN description TEXT NOT NULL DEFAULT '';
ALTER TABLE branches ADD COLUMN canonical BOOLEAN NOT NULL DEFAULT FALSE;

-- A turn records who decided it, next to the agent (actor) that played it.
ALTER TABLE turns ADD COLUMN controller TEXT NOT NULL DEFAULT '';
