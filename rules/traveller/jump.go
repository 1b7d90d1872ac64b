package traveller

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/hearth-rpg/hearth"
)

// MaxJump is the longest jump any drive makes (jump-6, at TL 15).
const MaxJump = 6

// Hours spent in jump space, whatever the distance: 148 + 6D hours
// (154–184), about one week.
const (
	JumpHoursMin     = 154
	JumpHoursMax     = 184
	JumpHoursTypical = 168
)

// sector is a sector's place on Traveller Map's grid: Core is (0, 0), x
// grows trailing and y rimward.
type sector struct {
	name, abbr string
	x, y       int
}

// knownSectors are the sectors whose positions Distance knows. Source:
// Traveller Map sector metadata, <X> and <Y> in res/Sectors/M1105/<name>.xml
// of github.com/inexorabletash/travellermap, matching the "Sector/Hex
// Coordinates" section of https://travellermap.com/doc/api.
func knownSectors() []sector {
	return []sector{
		{"Spinward Marches", "Spin", -4, -1},
		{"Deneb", "Dene", -3, -1},
		{"Trojan Reach", "Troj", -4, 0},
		{"Solomani Rim", "Solo", 0, 3},
	}
}

func lookupSector(name string) (sector, bool) {
	name = normSpace(name)
	for _, s := range knownSectors() {
		if strings.EqualFold(name, s.name) || strings.EqualFold(name, s.abbr) ||
			s.name == "Trojan Reach" && strings.EqualFold(name, "Trojan Reaches") {
			return s, true
		}
	}
	return sector{}, false
}

// normSpace trims s and collapses runs of white space, allocating only
// when there is something to change.
func normSpace(s string) string {
	prev := true // at the start, a space would be leading
	for _, r := range s {
		sp := unicode.IsSpace(r)
		if sp && (prev || r != ' ') {
			return strings.Join(strings.Fields(s), " ")
		}
		prev = sp
	}
	if prev && s != "" {
		return strings.TrimRightFunc(s, unicode.IsSpace)
	}
	return s
}

// canonicalSector is the full name of a known sector, else name as given.
func canonicalSector(name string) string {
	if s, ok := lookupSector(name); ok {
		return s.name
	}
	return name
}

func sameSector(a, b string) bool {
	return strings.EqualFold(canonicalSector(a), canonicalSector(b))
}

func knownSectorNames() string {
	var names []string
	for _, s := range knownSectors() {
		names = append(names, s.name)
	}
	return strings.Join(names, ", ")
}

// axial is a hex in axial coordinates over the whole map.
type axial struct{ q, r int }

// locate places a sector hex on the map. Within one sector the sector's
// position does not matter, so a caller comparing worlds of one unknown
// sector passes local = true.
func locate(w World, local bool) (axial, error) {
	col, row, err := parseHex(w.Hex)
	if err != nil {
		return axial{}, fmt.Errorf("%s: %w", w.Name, err)
	}
	var sx, sy int
	if !local {
		s, ok := lookupSector(w.Sector)
		if !ok {
			return axial{}, fmt.Errorf("%s: sector %q has no known position, so distances to other sectors cannot be measured; known sectors: %s", w.Name, w.Sector, knownSectorNames())
		}
		sx, sy = s.x, s.y
	}
	c := 32*sx + col - 1
	r := 40*sy + row - 1
	// Even-numbered columns (odd c, counting from 0) sit half a hex rimward.
	return axial{q: c, r: r - (c-(c&1))/2}, nil
}

func (a axial) dist(b axial) int {
	dq, dr := a.q-b.q, a.r-b.r
	return (abs(dq) + abs(dr) + abs(dq+dr)) / 2
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// Distance is the number of parsecs (hexes) between two worlds, within a
// sector or across sectors whose positions are known.
func Distance(a, b World) (int, error) {
	local := sameSector(a.Sector, b.Sector)
	pa, err := locate(a, local)
	if err != nil {
		return 0, err
	}
	pb, err := locate(b, local)
	if err != nil {
		return 0, err
	}
	return pa.dist(pb), nil
}

// Reachable reports whether a ship with a jump-rating drive reaches to from
// from in one jump, and the distance in parsecs.
func Reachable(from, to World, rating int) (bool, int, error) {
	if err := checkRating(rating); err != nil {
		return false, 0, err
	}
	d, err := Distance(from, to)
	if err != nil {
		return false, 0, err
	}
	return d <= rating, d, nil
}

func checkRating(rating int) error {
	if rating < 1 || rating > MaxJump {
		return fmt.Errorf("jump rating %d: drives are rated jump-1 to jump-%d", rating, MaxJump)
	}
	return nil
}

// JumpFuel is the tons of fuel one jump of parsecs uses in a ship of hullTons:
// 10% of the hull per parsec, a jump shorter than a parsec counting as one.
func JumpFuel(hullTons, parsecs int) (float64, error) {
	if hullTons < 1 {
		return 0, fmt.Errorf("hull of %d tons: a ship displaces at least 1 ton", hullTons)
	}
	if parsecs < 0 || parsecs > MaxJump {
		return 0, fmt.Errorf("a jump of %d parsecs: one jump covers 1 to %d parsecs", parsecs, MaxJump)
	}
	return float64(hullTons) * float64(max(parsecs, 1)) / 10, nil
}

// Leg is one jump of a trip.
type Leg struct {
	From     World   `json:"from"`
	To       World   `json:"to"`
	Parsecs  int     `json:"parsecs"`
	FuelTons float64 `json:"fuel_tons"`
}

// Trip is a route flown jump by jump. The hours count time in jump space
// only; travel to the jump point and from the arrival point adds to them.
type Trip struct {
	Legs     []Leg   `json:"legs"`
	Jumps    int     `json:"jumps"`
	Parsecs  int     `json:"parsecs_jumped"`
	FuelTons float64 `json:"fuel_tons"`
	// MaxLegFuelTons is the most fuel one jump takes: the tankage the
	// ship needs if it refuels at every stop.
	MaxLegFuelTons float64 `json:"max_leg_fuel_tons"`
	HoursMin       int     `json:"hours_in_jump_min"`
	HoursMax       int     `json:"hours_in_jump_max"`
	HoursTypical   int     `json:"hours_in_jump_typical"`
}

// Plan turns a route (as Route returns it, start first) into legs with the
// fuel a ship of hullTons burns on each.
func Plan(route []World, hullTons int) (Trip, error) {
	if len(route) == 0 {
		return Trip{}, errors.New("empty route: give at least the starting world")
	}
	if _, err := JumpFuel(hullTons, 1); err != nil {
		return Trip{}, err
	}
	t := Trip{Legs: []Leg{}}
	for i := 1; i < len(route); i++ {
		d, err := Distance(route[i-1], route[i])
		if err != nil {
			return Trip{}, err
		}
		f, err := JumpFuel(hullTons, d)
		if err != nil {
			return Trip{}, fmt.Errorf("leg %d, %s to %s: %w", i, route[i-1].Name, route[i].Name, err)
		}
		t.Legs = append(t.Legs, Leg{From: route[i-1], To: route[i], Parsecs: d, FuelTons: f})
		t.Parsecs += d
		t.FuelTons += f
		t.MaxLegFuelTons = max(t.MaxLegFuelTons, f)
	}
	t.Jumps = len(t.Legs)
	t.FuelTons = math.Round(t.FuelTons*100) / 100
	t.HoursMin, t.HoursMax, t.HoursTypical = t.Jumps*JumpHoursMin, t.Jumps*JumpHoursMax, t.Jumps*JumpHoursTypical
	return t, nil
}

// ErrNoRoute is wrapped by Route when the destination cannot be reached.
var ErrNoRoute = &hearth.Error{Code: hearth.NotFound, Message: "no route"}

// Route finds a way from from to to for a ship with a jump-rating drive,
// stopping only at worlds of the list: the fewest jumps, and among those
// the fewest parsecs (least fuel). The result starts with from and ends
// with to. from and to need not be in the list. Worlds are the same when
// sector and hex are; the first of several at one place is used. Ties are
// broken by list order, so the answer is deterministic.
//
// Route does not ask whether a stop sells fuel: a world with starport E or
// X and no gas giant leaves a ship to carry the fuel for the next jump.
func Route(from, to World, rating int, worlds []World) ([]World, error) {
	if err := checkRating(rating); err != nil {
		return nil, err
	}
	nodes := make([]World, 0, len(worlds)+2)
	type place struct{ sector, hex string }
	index := map[place]int{}
	sectorKey := map[string]string{} // as written → canonical, lower case
	add := func(w World) (int, error) {
		if _, _, err := parseHex(w.Hex); err != nil {
			return 0, fmt.Errorf("%s: %w", w.Name, err)
		}
		sk, ok := sectorKey[w.Sector]
		if !ok {
			sk = strings.ToLower(canonicalSector(w.Sector))
			sectorKey[w.Sector] = sk
		}
		key := place{sk, w.Hex}
		if i, ok := index[key]; ok {
			return i, nil
		}
		index[key] = len(nodes)
		nodes = append(nodes, w)
		return len(nodes) - 1, nil
	}
	for _, w := range worlds {
		if _, err := add(w); err != nil {
			return nil, err
		}
	}
	src, err := add(from)
	if err != nil {
		return nil, err
	}
	dst, err := add(to)
	if err != nil {
		return nil, err
	}
	if src == dst {
		return []World{nodes[src]}, nil
	}

	// Worlds all of one sector need no sector position, known or not.
	local := true
	for _, k := range sectorKey {
		local = local && k == sectorKey[from.Sector]
	}
	pos := make([]axial, len(nodes))
	grid := map[[2]int][]int{}
	for i, w := range nodes {
		p, err := locate(w, local)
		if err != nil {
			return nil, err
		}
		pos[i] = p
		// A hex within rating steps is within rating columns and rows
		// (one step changes each by at most one), so only the 3×3 cells
		// around a world's cell hold its neighbours.
		c, r := offset(p)
		cell := [2]int{floorDiv(c, rating), floorDiv(r, rating)}
		grid[cell] = append(grid[cell], i)
	}

	const unseen = math.MaxInt
	jumps := make([]int, len(nodes))
	parsecs := make([]int, len(nodes))
	prev := make([]int, len(nodes))
	done := make([]bool, len(nodes))
	for i := range jumps {
		jumps[i], parsecs[i], prev[i] = unseen, unseen, -1
	}
	jumps[src], parsecs[src] = 0, 0
	q := &queue{{node: src}}
	for q.Len() > 0 {
		it := heap.Pop(q).(item)
		n := it.node
		if done[n] {
			continue
		}
		done[n] = true
		if n == dst {
			break
		}
		c, r := offset(pos[n])
		cx, cy := floorDiv(c, rating), floorDiv(r, rating)
		for dx := -1; dx <= 1; dx++ {
			for dy := -1; dy <= 1; dy++ {
				for _, m := range grid[[2]int{cx + dx, cy + dy}] {
					if done[m] {
						continue
					}
					d := pos[n].dist(pos[m])
					if d > rating {
						continue
					}
					j, p := jumps[n]+1, parsecs[n]+d
					if j < jumps[m] || j == jumps[m] && (p < parsecs[m] || p == parsecs[m] && n < prev[m]) {
						jumps[m], parsecs[m], prev[m] = j, p, n
						heap.Push(q, item{node: m, jumps: j, parsecs: p})
					}
				}
			}
		}
	}
	if !done[dst] {
		return nil, noRoute(nodes, pos, done, src, dst, rating)
	}
	var path []World
	for n := dst; n != -1; n = prev[n] {
		path = append(path, nodes[n])
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path, nil
}

// noRoute explains a failed search with the reachable world nearest the
// destination, so the caller can see how far short the drive falls.
func noRoute(nodes []World, pos []axial, done []bool, src, dst, rating int) error {
	best, bestD := src, pos[src].dist(pos[dst])
	for i, ok := range done {
		if ok {
			if d := pos[i].dist(pos[dst]); d < bestD {
				best, bestD = i, d
			}
		}
	}
	return fmt.Errorf("%w from %s to %s with jump-%d through the %d worlds given: the nearest reachable world is %s, %d parsecs away; a bigger drive or other stops are needed",
		ErrNoRoute, nodes[src], nodes[dst], rating, len(nodes), nodes[best].Name, bestD)
}

// offset turns axial coordinates back into global column and row.
func offset(a axial) (c, r int) {
	return a.q, a.r + (a.q-(a.q&1))/2
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

type item struct{ node, jumps, parsecs int }

// queue orders by fewest jumps, then fewest parsecs, then list order.
type queue []item

func (q queue) Len() int { return len(q) }
func (q queue) Less(i, j int) bool {
	a, b := q[i], q[j]
	if a.jumps != b.jumps {
		return a.jumps < b.jumps
	}
	if a.parsecs != b.parsecs {
		return a.parsecs < b.parsecs
	}
	return a.node < b.node
}
func (q queue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)   { *q = append(*q, x.(item)) }
func (q *queue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}
