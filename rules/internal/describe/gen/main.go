// Command gen writes rules/descriptions.go; see package describe.
package main

import (
	"log"
	"os"

	"github.com/hearth-rpg/hearth/rules/internal/describe"
)

func main() {
	out, err := describe.Generate("intents.go")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("descriptions.go", out, 0o644); err != nil {
		log.Fatal(err)
	}
}
