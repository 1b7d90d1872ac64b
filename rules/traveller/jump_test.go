package traveller

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func at(sector, hex string) World {
	return World{Sector: sector, Hex: hex, Name: sector + " " + hex}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b World
		want int
	}{
		// TRADE_CODES.md §5 and Traveller Map's API documentation.
		{at("Spinward Marches", "1910"), at("Spinward Marches", "1705"), 6},  // Regina–Efate
		{at("Spinward Marches", "1910"), at("Spinward Marches", "2716"), 10}, // Regina–Rhylanor
		{at("Spinward Marches", "1910"), at("Spinward Marches", "1106"), 8},  // Regina–Jewell
		{at("Spinward Marches", "3235"), at("Deneb", "0135"), 1},
		{at("Spinward Marches", "0101"), at("Spinward Marches", "0201"), 1},
		{at("Spinward Marches", "0101"), at("Spinward Marches", "0202"), 2},
		{at("Spinward Marches", "1910"), at("Spinward Marches", "1910"), 0},
		// Sector edges: rimward into Trojan Reach, and sectors of unknown
		// position measure within themselves.
		{at("Spinward Marches", "0140"), at("Trojan Reach", "0101"), 1},
		{at("Spinward Marches", "0240"), at("Trojan Reach", "0201"), 1},
		{at("Deneb", "0101"), at("Trojan Reach", "3201"), 41},
		{at("Reft", "0101"), at("Reft", "0505"), 6},
		{at("Spin", "1910"), at("Spinward Marches", "1705"), 6},
	}
	for _, tt := range tests {
		got, err := Distance(tt.a, tt.b)
		if err != nil || got != tt.want {
			t.Errorf("Distance(%s, %s) = %d, %v; want %d", tt.a.Name, tt.b.Name, got, err, tt.want)
		}
		back, _ := Distance(tt.b, tt.a)
		if back != got {
			t.Errorf("Distance(%s, %s) = %d one way, %d the other", tt.a.Name, tt.b.Name, got, back)
		}
	}

	// The six neighbours of 0202 are 0201, 0203, 0102, 0103, 0302 and 0303:
	// even columns sit half a hex rimward.
	var near []string
	for c := 1; c <= 32; c++ {
		for r := 1; r <= 40; r++ {
			h := fmt.Sprintf("%02d%02d", c, r)
			if d, _ := Distance(at("S", "0202"), at("S", h)); d == 1 {
				near = append(near, h)
			}
		}
	}
	if want := []string{"0102", "0103", "0201", "0203", "0302", "0303"}; !reflect.DeepEqual(near, want) {
		t.Errorf("neighbours of 0202 = %v, want %v", near, want)
	}

	for _, tt := range []struct {
		a, b World
		want string
	}{
		{at("Reft", "0101"), at("Deneb", "0101"), `sector "Reft" has no known position`},
		{at("Deneb", "0101"), at("Reft", "0101"), "known sectors: Spinward Marches, Deneb, Trojan Reach, Solomani Rim"},
		{at("Deneb", "0000"), at("Deneb", "0101"), `hex "0000"`},
	} {
		if _, err := Distance(tt.a, tt.b); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Distance(%s, %s) = %v, want an error containing %q", tt.a.Name, tt.b.Name, err, tt.want)
		}
	}
}

// Distance agrees with a breadth-first walk over hex neighbours across the
// Spinward Marches, Deneb and Trojan Reach, built from the offset rule
// alone.
func TestDistanceMatchesWalk(t *testing.T) {
	// Global columns and rows of the three sectors, padded so the walk may
	// leave them.
	c0, c1 := 32*-4-10, 32*-3+31+10
	r0, r1 := 40*-1-10, 40*0+39+10
	w, h := c1-c0+1, r1-r0+1
	neighbours := func(c, r int) [][2]int {
		// Odd global columns are the even-numbered XX columns, half a hex down.
		if c&1 == 1 {
			return [][2]int{{c, r - 1}, {c, r + 1}, {c - 1, r}, {c + 1, r}, {c - 1, r + 1}, {c + 1, r + 1}}
		}
		return [][2]int{{c, r - 1}, {c, r + 1}, {c - 1, r - 1}, {c + 1, r - 1}, {c - 1, r}, {c + 1, r}}
	}
	cell := func(sector string, sx, sy, col, row int) (World, int, int) {
		return at(sector, fmt.Sprintf("%02d%02d", col, row)), 32*sx + col - 1, 40*sy + row - 1
	}
	sectors := []struct {
		name   string
		sx, sy int
	}{{"Spinward Marches", -4, -1}, {"Deneb", -3, -1}, {"Trojan Reach", -4, 0}}
	sources := [][4]int{{0, 32, 40, 0}, {1, 1, 1, 0}, {2, 1, 1, 0}, {0, 17, 22, 0}, {2, 32, 1, 0}}
	for _, src := range sources {
		s := sectors[src[0]]
		from, fc, fr := cell(s.name, s.sx, s.sy, src[1], src[2])
		dist := make([]int, w*h)
		for i := range dist {
			dist[i] = -1
		}
		dist[(fc-c0)*h+fr-r0] = 0
		queue := [][2]int{{fc, fr}}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			for _, n := range neighbours(p[0], p[1]) {
				if n[0] < c0 || n[0] > c1 || n[1] < r0 || n[1] > r1 || dist[(n[0]-c0)*h+n[1]-r0] >= 0 {
					continue
				}
				dist[(n[0]-c0)*h+n[1]-r0] = dist[(p[0]-c0)*h+p[1]-r0] + 1
				queue = append(queue, n)
			}
		}
		bad := 0
		for _, s := range sectors {
			for col := 1; col <= 32; col++ {
				for row := 1; row <= 40; row++ {
					to, c, r := cell(s.name, s.sx, s.sy, col, row)
					got, err := Distance(from, to)
					if want := dist[(c-c0)*h+r-r0]; err != nil || got != want {
						if bad++; bad < 5 {
							t.Errorf("Distance(%s, %s) = %d, %v; the walk says %d", from.Name, to.Name, got, err, want)
						}
					}
				}
			}
		}
	}
}

// The X-boat routes Traveller Map draws (res/Sectors/M1105/*.xml) are
// jump-4 links; those that cross a sector edge check the sector positions.
func TestXBoatLinksAcrossSectors(t *testing.T) {
	links := [][2]World{
		{at("Spinward Marches", "3209"), at("Deneb", "0208")},
		{at("Spinward Marches", "3212"), at("Deneb", "0311")},
		{at("Spinward Marches", "3202"), at("Deneb", "0201")},
		{at("Deneb", "0233"), at("Spinward Marches", "3235")},
		{at("Spinward Marches", "2140"), at("Trojan Reach", "2102")},
		{at("Trojan Reach", "2902"), at("Spinward Marches", "2739")},
	}
	for _, l := range links {
		d, err := Distance(l[0], l[1])
		if err != nil || d < 1 || d > 4 {
			t.Errorf("X-boat link %s → %s: %d parsecs, %v; want 1–4", l[0].Name, l[1].Name, d, err)
		}
	}
}

func TestJumpFuel(t *testing.T) {
	tests := []struct {
		hull, parsecs int
		want          float64
	}{
		{200, 2, 40}, {500, 3, 150}, {500, 1, 50}, {100, 1, 10}, {155, 1, 15.5},
		{200, 0, 20}, // less than a parsec counts as one
		{1, 6, 0.6},
	}
	for _, tt := range tests {
		got, err := JumpFuel(tt.hull, tt.parsecs)
		if err != nil || got != tt.want {
			t.Errorf("JumpFuel(%d, %d) = %v, %v; want %v", tt.hull, tt.parsecs, got, err, tt.want)
		}
	}
	// A jump-3 ship that jumps 2 parsecs on full tanks (30% of its hull)
	// still holds fuel for a 1-parsec jump.
	full, _ := JumpFuel(200, 3)
	two, _ := JumpFuel(200, 2)
	one, _ := JumpFuel(200, 1)
	if full-two != one {
		t.Errorf("full tanks %v - a 2-parsec jump %v = %v, want a 1-parsec jump's %v", full, two, full-two, one)
	}
	for _, tt := range []struct {
		hull, parsecs int
		want          string
	}{{0, 1, "hull of 0 tons"}, {-5, 1, "hull of -5 tons"}, {100, 7, "a jump of 7 parsecs"}, {100, -1, "a jump of -1 parsecs"}} {
		if _, err := JumpFuel(tt.hull, tt.parsecs); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("JumpFuel(%d, %d) = %v, want %q", tt.hull, tt.parsecs, err, tt.want)
		}
	}
}

func TestReachable(t *testing.T) {
	regina, efate := at("Spinward Marches", "1910"), at("Spinward Marches", "1705")
	for rating, want := range map[int]bool{5: false, 6: true} {
		ok, d, err := Reachable(regina, efate, rating)
		if err != nil || ok != want || d != 6 {
			t.Errorf("Reachable(Regina, Efate, %d) = %v, %d, %v; want %v at 6 parsecs", rating, ok, d, err, want)
		}
	}
	for _, rating := range []int{0, 7, -1} {
		if _, _, err := Reachable(regina, efate, rating); err == nil || !strings.Contains(err.Error(), "jump-1 to jump-6") {
			t.Errorf("Reachable with rating %d: %v", rating, err)
		}
	}
}

func TestPlan(t *testing.T) {
	route := []World{at("Spinward Marches", "1910"), at("Spinward Marches", "1912"), at("Spinward Marches", "1815")}
	trip, err := Plan(route, 200)
	if err != nil {
		t.Fatal(err)
	}
	if trip.Jumps != 2 || trip.Parsecs != 6 || trip.FuelTons != 120 || trip.MaxLegFuelTons != 80 ||
		trip.HoursMin != 2*154 || trip.HoursMax != 2*184 || trip.HoursTypical != 2*168 {
		t.Errorf("Plan = %+v", trip)
	}
	if len(trip.Legs) != 2 || trip.Legs[1].From.Hex != "1912" || trip.Legs[1].Parsecs != 4 || trip.Legs[1].FuelTons != 80 {
		t.Errorf("legs = %+v", trip.Legs)
	}
	trip, err = Plan(route[:1], 100)
	if err != nil || trip.Jumps != 0 || trip.Legs == nil || trip.HoursMax != 0 {
		t.Errorf("Plan of one world = %+v, %v", trip, err)
	}
	for _, tt := range []struct {
		route []World
		hull  int
		want  string
	}{
		{nil, 100, "empty route"},
		{route, 0, "hull of 0 tons"},
		{[]World{at("Spinward Marches", "1910"), at("Spinward Marches", "2716")}, 100, "leg 1, Spinward Marches 1910 to Spinward Marches 2716: a jump of 10 parsecs"},
		{[]World{at("Spinward Marches", "1910"), at("Reft", "0101")}, 100, "no known position"},
	} {
		if _, err := Plan(tt.route, tt.hull); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Plan(%v, %d) = %v, want %q", tt.route, tt.hull, err, tt.want)
		}
	}
}

func hexes(route []World) string {
	var s []string
	for _, w := range route {
		s = append(s, w.Hex)
	}
	return strings.Join(s, " ")
}

func TestRouteSmall(t *testing.T) {
	a, b, c, d := at("S", "0101"), at("S", "0103"), at("S", "0105"), at("S", "0107")
	far := at("S", "3240")
	tests := []struct {
		from, to World
		rating   int
		worlds   []World
		want     string // hexes, or part of the error
	}{
		{a, d, 2, []World{c, b}, "0101 0103 0105 0107"},
		{a, d, 3, []World{c, b}, "0101 0103 0105 0107"},
		{a, d, 4, []World{c, b}, "0101 0105 0107"}, // ties with 0101 0103 0107; the list names 0105 first
		{a, d, 6, nil, "0101 0107"},
		{a, a, 1, nil, "0101"},
		{a, d, 1, []World{b, c}, "with jump-1 through the 4 worlds given: the nearest reachable world is S 0101, 6 parsecs away"},
		{a, far, 6, []World{b, c, d}, "no route"},
		{a, d, 0, nil, "drives are rated jump-1 to jump-6"},
		{a, at("S", "9999"), 2, nil, `hex "9999"`},
		{a, at("Reft", "0101"), 2, []World{b}, `has no known position, so distances to other sectors cannot be measured`},
	}
	for _, tt := range tests {
		got, err := Route(tt.from, tt.to, tt.rating, tt.worlds)
		if err != nil {
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Route(%s, %s, %d) error %q, want %q", tt.from.Hex, tt.to.Hex, tt.rating, err, tt.want)
			}
			continue
		}
		if h := hexes(got); h != tt.want {
			t.Errorf("Route(%s, %s, %d) = %s, want %s", tt.from.Hex, tt.to.Hex, tt.rating, h, tt.want)
		}
	}
	// One sector of unknown position is fine; one known sector under two
	// spellings is one sector.
	got, err := Route(at("Reft", "0101"), at("Reft", "0105"), 2, []World{at("Reft", "0103")})
	if err != nil || hexes(got) != "0101 0103 0105" {
		t.Errorf("Route within Reft = %s, %v", hexes(got), err)
	}
	got, err = Route(at("Spin", "0101"), at("Spinward Marches", "0105"), 2, []World{at("spinward marches", "0103"), at("Spin", "0101")})
	if err != nil || hexes(got) != "0101 0103 0105" {
		t.Errorf("Route with abbreviated sectors = %s, %v", hexes(got), err)
	}
	if _, err := Route(a, far, 6, []World{b}); !errors.Is(err, ErrNoRoute) {
		t.Errorf("an unreachable world should wrap ErrNoRoute: %v", err)
	}
	// Of two routes with the fewest jumps, the shorter in parsecs.
	// Via 0303 is 3+3 parsecs, via 0201 1+3.
	got, err = Route(at("S", "0101"), at("S", "0501"), 3, []World{at("S", "0303"), at("S", "0201")})
	if err != nil || hexes(got) != "0101 0201 0501" {
		t.Errorf("Route via the shortest stop = %s, %v", hexes(got), err)
	}
}

// Route on the real Spinward Marches: the X-boat line Traveller Map draws
// from Regina to Rhylanor is a valid jump-4 route, and Route finds one with
// no more jumps, as few as a brute-force search does.
func TestRouteRealData(t *testing.T) {
	worlds := realWorlds(t)
	regina, rhylanor := mustFind(t, worlds, "Regina"), mustFind(t, worlds, "Rhylanor")
	xboat := []string{"1910", "1912", "1815", "1719", "1920", "2319", "2417", "2716"}
	for i := 1; i < len(xboat); i++ {
		a := mustFind(t, worlds, "Spinward Marches "+xboat[i-1])
		b := mustFind(t, worlds, "Spinward Marches "+xboat[i])
		if ok, d, err := Reachable(a, b, 4); !ok || err != nil {
			t.Errorf("X-boat leg %s → %s is %d parsecs (%v), not a jump-4", a, b, d, err)
		}
	}
	route, err := Route(regina, rhylanor, 4, worlds)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Regina → Rhylanor, jump-4: %s", hexes(route))
	if len(route)-1 > len(xboat)-1 || len(route)-1 < 3 {
		t.Errorf("%d jumps; the X-boat line takes %d and 10 parsecs need at least 3", len(route)-1, len(xboat)-1)
	}

	pos := make([]axial, len(worlds))
	for i, w := range worlds {
		pos[i], err = locate(w, false)
		if err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(1105, 1910))
	checked := 0
	for range 40 {
		from, to := rng.IntN(len(worlds)), rng.IntN(len(worlds))
		rating := 1 + rng.IntN(4)
		jumps, parsecs := bruteRoute(pos, from, to, rating)
		got, err := Route(worlds[from], worlds[to], rating, worlds)
		if jumps < 0 {
			if !errors.Is(err, ErrNoRoute) {
				t.Errorf("%s → %s jump-%d: brute force finds no route, Route says %v", worlds[from], worlds[to], rating, err)
			}
			continue
		}
		checked++
		if err != nil {
			t.Errorf("%s → %s jump-%d: %v; brute force takes %d jumps", worlds[from], worlds[to], rating, err, jumps)
			continue
		}
		trip, err := Plan(got, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range trip.Legs {
			if l.Parsecs > rating {
				t.Errorf("leg %s → %s is %d parsecs for a jump-%d", l.From, l.To, l.Parsecs, rating)
			}
		}
		if trip.Jumps != jumps || trip.Parsecs != parsecs || got[0].Hex != worlds[from].Hex || got[len(got)-1].Hex != worlds[to].Hex {
			t.Errorf("%s → %s jump-%d: %d jumps, %d parsecs; brute force %d, %d", worlds[from], worlds[to], rating, trip.Jumps, trip.Parsecs, jumps, parsecs)
		}
	}
	if checked < 10 {
		t.Errorf("only %d of 40 random pairs had routes; the check is too weak", checked)
	}

	// Regina's jump-1 cluster does not reach Rhylanor.
	if _, err := Route(regina, rhylanor, 1, worlds); !errors.Is(err, ErrNoRoute) || !strings.Contains(err.Error(), "the nearest reachable world is Tureded, 3 parsecs away") {
		t.Errorf("Regina → Rhylanor by jump-1: %v", err)
	}

	// Deterministic, and the Solomani Rim is out of reach from the Marches.
	again, _ := Route(regina, rhylanor, 4, worlds)
	if !reflect.DeepEqual(route, again) {
		t.Errorf("Route differs between runs: %s, %s", hexes(route), hexes(again))
	}
	_, err = Route(regina, mustFind(t, worlds, "Terra"), 6, worlds)
	if !errors.Is(err, ErrNoRoute) || !strings.Contains(err.Error(), "parsecs away") {
		t.Errorf("Regina → Terra: %v", err)
	}
}

// bruteRoute is a plain breadth-first search over every pair: the fewest
// jumps from a to b, and the fewest parsecs among routes that short, or -1.
func bruteRoute(pos []axial, a, b, rating int) (jumps, parsecs int) {
	const inf = 1 << 30
	best := make([]int, len(pos))
	for i := range best {
		best[i] = inf
	}
	best[a] = 0
	layer := []int{a}
	seen := make([]bool, len(pos))
	seen[a] = true
	for j := 0; len(layer) > 0; j++ {
		if seen[b] {
			return j, best[b]
		}
		next := map[int]bool{}
		for _, n := range layer {
			for m := range pos {
				if seen[m] {
					continue
				}
				if d := pos[n].dist(pos[m]); d <= rating {
					next[m] = true
					best[m] = min(best[m], best[n]+d)
				}
			}
		}
		layer = layer[:0]
		for m := range next {
			seen[m] = true
			layer = append(layer, m)
		}
	}
	return -1, -1
}
