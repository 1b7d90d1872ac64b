CREATE TABLE assistant_conversations (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    messages   TEXT NOT NULL, -- JSON array of llm.Message
    metadata   TEXT NOT NULL  -- JSON Metadata
);
CREATE INDEX assistant_conversations_user ON assistant_conversations(user_id, updated_at);
CREATE INDEX assistant_conversations_updated ON assistant_conversations(updated_at);
