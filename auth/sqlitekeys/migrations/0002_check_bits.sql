-- check_bits holds 16 bits of a SHA-256 of the key (see quickCheck): enough
-- to refuse almost every wrong secret without an argon2id hash while the
-- key is throttled, too few to say anything useful about a 240-bit secret.
-- NULL for keys issued before it existed, until their next successful use.
ALTER TABLE auth_keys ADD COLUMN check_bits INTEGER;
