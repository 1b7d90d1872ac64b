package pgkeys

// Reads returns how many times s read a key's row.
func Reads(s *Store) int64 { return s.reads.Load() }
