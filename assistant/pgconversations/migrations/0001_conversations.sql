-- Conversations, as in assistant/sqliteconversations. Times are Unix
-- nanoseconds (ordered as numbers); messages and metadata the JSON as
-- written (TEXT, not JSONB, which would reorder it).
CREATE TABLE assistant_conversations (
    id         TEXT COLLATE "C" PRIMARY KEY,
    user_id    TEXT COLLATE "C" NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    messages   TEXT NOT NULL, -- JSON array of llm.Message
    metadata   TEXT NOT NULL  -- JSON Metadata
);
CREATE INDEX assistant_conversations_user ON assistant_conversations (user_id, updated_at);
CREATE INDEX assistant_conversations_updated ON assistant_conversations (updated_at);
