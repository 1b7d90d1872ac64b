package traveller

import (
	"bytes"
	"os"
	"strconv"
	"testing"
)

func BenchmarkParse(b *testing.B) {
	for b.Loop() {
		if _, err := Parse("A788899-C"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTradeCodes(b *testing.B) {
	u, err := Parse("B584620-A")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		TradeCodes(u, Mongoose2e)
	}
}

// BenchmarkReadWorlds reads the 1,552 real worlds.
func BenchmarkReadWorlds(b *testing.B) {
	realWorlds(b)
	data, err := os.ReadFile(worldsPath(b))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ReadWorlds(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoute searches the 1,552 real worlds from Regina to Rhylanor.
// By jump-1 there is no route: the search exhausts Regina's jump-1 cluster.
func BenchmarkRoute(b *testing.B) {
	worlds := realWorlds(b)
	regina, rhylanor := mustFind(b, worlds, "Regina"), mustFind(b, worlds, "Rhylanor")
	for _, rating := range []int{1, 2, 4} {
		b.Run("jump-"+strconv.Itoa(rating), func(b *testing.B) {
			for b.Loop() {
				_, _ = Route(regina, rhylanor, rating, worlds)
			}
		})
	}
}
