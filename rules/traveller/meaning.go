package traveller

// The meanings below follow the Mongoose Traveller 2nd edition world
// tables (Core Rulebook, World Creation), with the T5 Second Survey's
// definitions where the digit goes beyond them. They are functions over
// switches rather than package tables so that nothing here can be changed
// at run time.

func starport(r rune) (Starport, bool) {
	switch r {
	case 'A':
		return Starport{Code: "A", Quality: "excellent", Fuel: FuelRefined, FuelPrice: 500, Berthing: "Cr1D×1000",
			Facilities: []string{"shipyard (all ships)", "repair"}}, true
	case 'B':
		return Starport{Code: "B", Quality: "good", Fuel: FuelRefined, FuelPrice: 500, Berthing: "Cr1D×500",
			Facilities: []string{"shipyard (spacecraft)", "repair"}}, true
	case 'C':
		return Starport{Code: "C", Quality: "routine", Fuel: FuelUnrefined, FuelPrice: 100, Berthing: "Cr1D×100",
			Facilities: []string{"shipyard (small craft)", "repair"}}, true
	case 'D':
		return Starport{Code: "D", Quality: "poor", Fuel: FuelUnrefined, FuelPrice: 100, Berthing: "Cr1D×10",
			Facilities: []string{"limited repair"}}, true
	case 'E':
		return Starport{Code: "E", Quality: "frontier (a marked landing site)", Fuel: FuelNone, Berthing: "none",
			Facilities: []string{}}, true
	case 'X':
		return Starport{Code: "X", Quality: "no starport", Fuel: FuelNone, Facilities: []string{}}, true
	case '?':
		return Starport{Code: "?", Quality: "unknown", Fuel: FuelUnknown, Facilities: []string{}}, true
	}
	return Starport{}, false
}

func size(d Digit) Size {
	s := Size{Digit: d}
	if d.Unknown {
		s.Description = "unknown"
		return s
	}
	s.DiameterKm = d.Value * 1600
	// Surface gravity in G by size 0–A.
	g := [11]float64{0, 0.05, 0.15, 0.25, 0.35, 0.45, 0.7, 0.9, 1.0, 1.25, 1.4}
	if d.Value < len(g) {
		v := g[d.Value]
		s.SurfaceGravity = &v
	}
	switch {
	case d.Value == 0:
		s.Description = "asteroid belt or planetoid, under 800 km across; negligible gravity"
	case d.Value <= 3:
		s.Description = "small world, " + thousands(int64(s.DiameterKm)) + " km across (Luna is about size 2)"
	case d.Value <= 6:
		s.Description = "medium-small world, " + thousands(int64(s.DiameterKm)) + " km across (Mars is about size 4)"
	case d.Value <= 9:
		s.Description = "Earth-class world, " + thousands(int64(s.DiameterKm)) + " km across (Earth is size 8)"
	case d.Value == 10:
		s.Description = "large world, 16,000 km across"
	default:
		s.Description = "very large world, about " + thousands(int64(s.DiameterKm)) + " km across"
	}
	return s
}

func atmosphere(d Digit) Atmosphere {
	a := Atmosphere{Digit: d}
	type row struct{ name, pressure, gear string }
	rows := [16]row{
		{"none (vacuum)", "0", "vacc suit"},
		{"trace", "0.001–0.09", "vacc suit"},
		{"very thin, tainted", "0.1–0.42", "respirator and filter"},
		{"very thin", "0.1–0.42", "respirator"},
		{"thin, tainted", "0.43–0.7", "filter"},
		{"thin", "0.43–0.7", "none"},
		{"standard", "0.71–1.49", "none"},
		{"standard, tainted", "0.71–1.49", "filter"},
		{"dense", "1.5–2.49", "none"},
		{"dense, tainted", "1.5–2.49", "filter"},
		{"exotic (unbreathable gases)", "varies", "air supply"},
		{"corrosive", "varies", "vacc suit"},
		{"insidious (defeats protective gear over hours)", "varies", "vacc suit"},
		{"very dense (breathable only at high altitude)", "2.5 or more", "none"},
		{"low (breathable only in the lowlands)", "0.5 or less", "none"},
		{"unusual", "varies", "varies"},
	}
	if d.Unknown {
		a.Name, a.PressureAtm, a.SurvivalGear = "unknown", "unknown", "unknown"
		return a
	}
	r := rows[d.Value]
	a.Name, a.PressureAtm, a.SurvivalGear = r.name, r.pressure, r.gear
	a.NeedsGear = r.gear != "none"
	return a
}

func hydrographics(d Digit) Hydrographics {
	h := Hydrographics{Digit: d}
	desc := [11]string{
		"desert world",
		"dry world",
		"a few small seas",
		"small seas and oceans",
		"wet world",
		"large oceans",
		"large oceans",
		"Earth-like world",
		"mostly water: only a few small continents",
		"only a few small islands and archipelagos",
		"almost entirely liquid",
	}
	if d.Unknown {
		h.Description = "unknown"
		return h
	}
	h.Description = desc[d.Value]
	switch d.Value {
	case 0:
		h.PercentMin, h.PercentMax = 0, 5
	case 10:
		h.PercentMin, h.PercentMax = 96, 100
	default:
		h.PercentMin, h.PercentMax = d.Value*10-4, d.Value*10+5
	}
	return h
}

func population(d Digit) Population {
	p := Population{Digit: d}
	desc := [16]string{
		"none", "few", "hundreds", "thousands", "tens of thousands",
		"hundreds of thousands", "millions", "tens of millions",
		"hundreds of millions", "billions", "tens of billions",
		"hundreds of billions", "trillions", "tens of trillions",
		"hundreds of trillions", "quadrillions",
	}
	if d.Unknown {
		p.Description = "unknown"
		return p
	}
	p.Description = desc[d.Value]
	if d.Value == 0 {
		return p
	}
	p.Min = 1
	for range d.Value {
		p.Min *= 10
	}
	p.Max = p.Min*10 - 1
	if d.Value == 1 {
		p.Min = 1
	}
	return p
}

func government(d Digit) Government {
	g := Government{Digit: d}
	type row struct{ name, desc string }
	rows := [16]row{
		{"none", "No government structure; family or clan ties predominate."},
		{"company/corporation", "Rule by a company's managerial elite; most citizens are its employees or dependants."},
		{"participating democracy", "Rule by the direct advice and consent of the citizens."},
		{"self-perpetuating oligarchy", "Rule by a restricted minority with little or no input from the citizens."},
		{"representative democracy", "Rule by elected representatives."},
		{"feudal technocracy", "Rule by those who perform technical services, in return for the loyalty of those who depend on them."},
		{"captive government", "Rule by an imposed leadership answerable to an outside power: a colony or an occupied world."},
		{"balkanisation", "No central authority; rival governments compete for control."},
		{"civil service bureaucracy", "Rule by government agencies staffed by experts."},
		{"impersonal bureaucracy", "Rule by government agencies that have become insulated from the citizens."},
		{"charismatic dictator", "Rule by one leader who enjoys the overwhelming confidence of the citizens."},
		{"non-charismatic leader", "Rule by a leader who came to power through normal channels after a charismatic dictator."},
		{"charismatic oligarchy", "Rule by a select group or class that enjoys the overwhelming confidence of the citizens."},
		{"religious dictatorship", "Rule by a religious organisation with little regard for the citizens' individual needs."},
		{"religious autocracy", "Rule by one religious leader with absolute power."},
		{"totalitarian oligarchy", "Rule by an all-powerful minority that keeps absolute control through coercion and oppression."},
	}
	if d.Unknown {
		g.Name = "unknown"
		return g
	}
	g.Name, g.Description = rows[d.Value].name, rows[d.Value].desc
	return g
}

func lawLevel(d Digit) LawLevel {
	l := LawLevel{Digit: d, WeaponsBanned: []string{}, ArmourBanned: []string{}}
	if d.Unknown {
		l.Description = "unknown"
		return l
	}
	// What each level adds to the levels below it.
	weapons := [10][]string{
		nil,
		{"poison gas", "explosives", "undetectable weapons", "weapons of mass destruction"},
		{"portable energy and laser weapons"},
		{"military weapons"},
		{"light assault weapons", "submachine guns"},
		{"personal concealable weapons"},
		{"all firearms except shotguns and stunners"},
		{"shotguns"},
		{"all bladed weapons", "stunners"},
		{"all weapons"},
	}
	armour := [10][]string{
		nil,
		{"battle dress"},
		{"combat armour"},
		{"flak"},
		{"cloth"},
		{"mesh"},
		nil,
		nil,
		{"all visible armour"},
		{"all armour"},
	}
	switch v := d.Value; {
	case v == 0:
		l.Description = "no law: no weapons or armour restricted"
	case v <= 3:
		l.Description = "low law"
	case v <= 7:
		l.Description = "moderate law; carrying weapons openly is discouraged from level 6"
	case v <= 9:
		l.Description = "high law"
	default:
		l.Description = "extreme law: every weapon and all armour banned, and personal freedoms ever more curtailed the higher the level"
	}
	if d.Value >= 9 {
		l.WeaponsBanned = append(l.WeaponsBanned, weapons[9]...)
		l.ArmourBanned = append(l.ArmourBanned, armour[9]...)
		return l
	}
	for v := 1; v <= d.Value; v++ {
		l.WeaponsBanned = append(l.WeaponsBanned, weapons[v]...)
		l.ArmourBanned = append(l.ArmourBanned, armour[v]...)
	}
	return l
}

func techLevel(d Digit) TechLevel {
	t := TechLevel{Digit: d}
	if d.Unknown {
		t.Era = "unknown"
		return t
	}
	desc := [16]string{
		"Stone Age: primitive tools, no industry.",
		"Bronze and Iron Age: metalworking, sail and muscle power.",
		"Renaissance: printing, sailing ships, early firearms.",
		"Industrial revolution: steam power, railways, early industry.",
		"Mechanisation: internal combustion, early electricity and flight.",
		"Electrification: radio, telecommunications, mass production.",
		"Nuclear age: fission power, early computers, rockets.",
		"Early space age: satellites, orbital flight, digital electronics.",
		"Interplanetary: ships reach the other worlds of the system; fusion research.",
		"Gravity manipulation; the first jump drives.",
		"Orbital habitats and factories are common.",
		"Early artificial intelligence, grav-supported structures.",
		"Weather control, plasma weapons.",
		"Battle dress, cloning.",
		"Man-portable fusion weapons, flying cities.",
		"Black globe generators, synthetic anagathics; the Third Imperium's usual maximum.",
	}
	switch v := d.Value; {
	case v <= 3:
		t.Era = "primitive"
	case v <= 6:
		t.Era = "industrial"
	case v <= 9:
		t.Era = "pre-stellar"
	case v <= 11:
		t.Era = "early stellar"
	case v <= 14:
		t.Era = "average stellar"
	case v == 15:
		t.Era = "high stellar"
	default:
		t.Era = "beyond the Third Imperium's technology"
	}
	if d.Value < len(desc) {
		t.Description = desc[d.Value]
	} else {
		t.Description = "Experimental or alien technology rarely seen in charted space."
	}
	// Jump drive by tech level (MgT2e): J-1 at TL9, J-2 at TL11, then one more per TL to J-6 at TL15.
	switch v := d.Value; {
	case v >= 15:
		t.MaxJump = 6
	case v >= 11:
		t.MaxJump = v - 9
	case v >= 9:
		t.MaxJump = 1
	}
	return t
}
