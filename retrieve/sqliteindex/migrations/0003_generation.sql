-- A stamp that changes with every change to what a search can return:
-- a chunk (and with it its keys and full text) or a vector, whichever
-- process wrote it. A process keeps search results while it is unchanged.
INSERT OR IGNORE INTO lore_meta (key, value) VALUES ('generation', '0');
CREATE TRIGGER lore_generation_chunk_insert AFTER INSERT ON lore_chunks BEGIN
    UPDATE lore_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation';
END;
CREATE TRIGGER lore_generation_chunk_delete AFTER DELETE ON lore_chunks BEGIN
    UPDATE lore_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation';
END;
CREATE TRIGGER lore_generation_chunk_update AFTER UPDATE ON lore_chunks BEGIN
    UPDATE lore_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation';
END;
CREATE TRIGGER lore_generation_vector_insert AFTER INSERT ON lore_vectors BEGIN
    UPDATE lore_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation';
END;
CREATE TRIGGER lore_generation_vector_delete AFTER DELETE ON lore_vectors BEGIN
    UPDATE lore_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation';
END;
CREATE TRIGGER lore_generation_vector_update AFTER UPDATE ON lore_vectors BEGIN
    UPDATE lore_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation';
END;
