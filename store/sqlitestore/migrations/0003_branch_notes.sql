-- Forks carry a description and a canonical mark (at most one per
-- session, kept by UpdateBranch in one transaction).
ALTER TABLE branches ADD COLUMN description TEXT NOT NULL DEFAULT '';
ALTER TABLE branches ADD COLUMN canonical INTEGER NOT NULL DEFAULT 0;
