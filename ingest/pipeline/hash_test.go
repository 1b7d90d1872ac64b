package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func mustHash(t *testing.T, o Options) string {
	t.Helper()
	s := sha256.Sum256(o.Data)
	return hex.EncodeToString(s[:])
}
