package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hearth-rpg/hearth/skill"
)

func TestMain(m *testing.M) {
	if err := skill.BecomeSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "warning:", err)
	}
	code := m.Run()
	if diceBin != "" && diceErr == nil {
		os.RemoveAll(filepath.Dir(diceBin))
	}
	os.Exit(code)
}
