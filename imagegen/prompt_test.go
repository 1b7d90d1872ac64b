package imagegen_test

import (
	"strings"
	"testing"

	"github.com/hearth-rpg/hearth/imagegen"
)

func TestScenePrompt(t *testing.T) {
	long := strings.Repeat("The tide roars. ", 400)
	tests := []struct {
		name     string
		scene    imagegen.Scene
		has      []string
		hasNot   []string
		maxBytes int
	}{
		{
			name: "whole scene",
			scene: imagegen.Scene{Campaign: "Saltmere", Location: "The Drowned Lantern", Description: "A smoky\ttavern\non the quay.",
				Mood: "tense", Characters: []string{"Kestrel", " ", "Old Maren"},
				Narration: []string{"You push open the door.", "", "Maren slams a tankard down and glares."}},
			has: []string{imagegen.Style, `"Saltmere"`, "Setting: The Drowned Lantern — A smoky tavern on the quay.", "Mood: tense.",
				"Present: Kestrel, Old Maren.", "Just before: You push open the door.", "Depict this moment: Maren slams a tankard down and glares."},
			hasNot: []string{"\t", "\n", ", ,"},
		},
		{
			name:   "narration only (a past turn)",
			scene:  imagegen.Scene{Narration: []string{"A gull steals the map."}},
			has:    []string{"Depict this moment: A gull steals the map."},
			hasNot: []string{"Setting:", "Present:", "Just before:"},
		},
		{
			name:     "long narration is bounded and keeps the moment",
			scene:    imagegen.Scene{Location: "Quay", Description: long, Narration: []string{long, long, "The lighthouse goes dark."}},
			has:      []string{"Depict this moment: The lighthouse goes dark.", "Just before: …", "T…."},
			maxBytes: imagegen.MaxPrompt,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := imagegen.ScenePrompt(tt.scene)
			if p != imagegen.ScenePrompt(tt.scene) {
				t.Error("the same scene gave two prompts")
			}
			for _, s := range tt.has {
				if !strings.Contains(p, s) {
					t.Errorf("prompt lacks %q:\n%s", s, p)
				}
			}
			for _, s := range tt.hasNot {
				if strings.Contains(p, s) {
					t.Errorf("prompt has %q:\n%s", s, p)
				}
			}
			if tt.maxBytes > 0 && len(p) > tt.maxBytes {
				t.Errorf("prompt is %d bytes, over %d", len(p), tt.maxBytes)
			}
		})
	}
}
